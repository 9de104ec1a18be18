"""The seam: a workload that is one package of its own (tests/plugins/toy_workload), found through the Python entry
point its distribution declares, runs through the store, a real worker process, the CLI, the run view and the runs
table and comparison; no file of the lab names it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import Store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy_store(tmp_path, monkeypatch, toy_workload):
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    from pagetest import fixed_device_card

    fixed_device_card(monkeypatch)  # the real card is tested through the CLI
    return Store(tmp_path)


def _wait_done(store, run_id, timeout=60.0):
    import time

    deadline = time.monotonic() + timeout
    while store.get_run(run_id).live and time.monotonic() < deadline:
        time.sleep(0.2)
    return store.get_run(run_id)


def test_a_toy_workload_runs_through_store_worker_cli_and_pages(toy_store):
    first = service.create_run(toy_store, "toy", {"steps": 5})
    second = service.create_run(toy_store, "toy", {"steps": 3, "rate": 0.2}, label="slow")
    for run_id in (first, second):
        launch(toy_store, run_id)
    runs = [_wait_done(toy_store, run_id) for run_id in (first, second)]
    assert [r.status for r in runs] == ["done", "done"], [r.error for r in runs]
    assert runs[0].label == "steps=5" and runs[0].progress == 1.0  # a name from its settings; the loop's progress
    metrics = toy_store.metrics(first)
    assert (~metrics["name"].str.startswith("system/")).sum() == 10  # the loop's rows, beside the machine's samples
    assert (toy_store.run_dir(first) / "toy.txt").read_bytes() == b"made by the toy"

    def rlcore(*args):
        return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, timeout=60,
                              env=os.environ | {"RLCORE_HOME": str(toy_store.home), "TF_CPP_MIN_LOG_LEVEL": "2"})

    shown = json.loads(rlcore("runs", "show", str(first), "--json").stdout)
    assert shown["status"] == "done" and shown["verdict"]["text"] == "Converged: score 0.97."
    csv = toy_store.home / "toy.csv"
    assert rlcore("runs", "export", str(first), "--csv", str(csv)).returncode == 0
    assert csv.read_text().count("toy/score") == 5
    here = rlcore("toy", "--steps", "2", "--quiet")  # the CLI has a command for it too
    assert here.returncode == 0 and "Converged: score 0.75." in here.stdout, here.stderr

    # The run view and the runs table/comparison, in AppTest.
    from pagetest import column, drawn_charts, link_tables, open_page

    view = open_page("runs", {"run": str(first)})
    assert not view.exception
    assert set(drawn_charts(view)) == {"toy loss", "toy score", "CPU cores busy"}  # its charts, and the machine's
    assert [m.value for m in view.metric] == ["96.9%"] and view.success[0].value.startswith("Converged")
    table = open_page("runs", {"runs": f"{first},{second}"})
    assert not table.exception
    # In percent, newest first: the CLI's run is stored too.
    assert column(link_tables(table)[0], "score (%)") == ["75%", "48.8%", "96.9%"]
    spec = drawn_charts(table)["loss"]
    assert [t["name"] for t in spec["data"] if t.get("showlegend") is not False] == [f"{first}: steps=5",
                                                                                      f"{second}: slow"]


def test_the_toy_is_one_package_that_no_file_of_the_lab_names(toy_workload):
    """A new workload touches no file of the lab: neither the registry, the store, the executors, the CLI nor the
    dashboard name it (the toy's package is all there is of it)."""
    lab = [*ROOT.glob("rlcore/**/*.py"), *ROOT.glob("ui/**/*.py"), *ROOT.glob("app_pages/*.py"), ROOT / "app.py",
           ROOT / "pyproject.toml"]
    assert lab and not [str(p.relative_to(ROOT)) for p in lab if "toy" in p.read_text().lower()]
    assert toy_workload.kind == "toy" and toy_workload.train.__module__ == "toy_workload"
