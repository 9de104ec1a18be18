"""A page is registered where it is defined: each file of app_pages/ declares its own PAGE (title, icon, path,
order), read without running the page; the generated form (workload.py) declares none."""

from __future__ import annotations

from ui import router


def test_each_page_file_declares_its_place_and_the_router_reads_it_without_running_it():
    declared = {p.file: p for p in router.site_pages()}
    assert set(declared) == {"app_pages/home.py", "app_pages/sweeps.py", "app_pages/runs.py"}
    assert [p.title for p in router.site_pages()] == ["Home", "Sweeps", "Runs"]
    assert declared["app_pages/runs.py"].url_path == "runs" and declared["app_pages/home.py"].order == 0
