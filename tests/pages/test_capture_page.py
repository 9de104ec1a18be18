"""The Captures page: an operator opens a capture by its path on the server (queued as a run, like any); what is no
capture is one sentence with nothing stored; a capture run's view shows xprof's measured parts under its Why panel,
and a viewer sees no server path."""

from pathlib import Path

from pagetest import open_page, shown

from rlcore import passphrase
from rlcore.contract import workloads
from rlcore.runs import service, worker
from rlcore.workloads.capture import KIND
from ui import access

V100 = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "v100_multi_worker" / "gpu_mw.xplane.pb"


def _read(at, path: str):
    at.text_input(key="capture_path").input(path).run()
    return at.button(key="read_capture").click().run()


def test_a_path_on_the_server_is_queued_as_a_capture_run_and_a_bad_one_is_one_sentence(store, launched, tmp_path):
    at = open_page("capture")
    for bad, said in ((str(tmp_path / "nowhere"), "No such file or folder"),
                      (str(Path(__file__)), "is not a TensorFlow profile"),
                      ("/dev/zero", "is not a regular file")):
        at = _read(at, bad)
        assert [said in shown(e) for e in at.error] == [True], bad
        assert store.list_runs() == [] and not at.exception
    at = _read(at, str(V100.parent))
    runs = store.list_runs()
    assert [(r.kind, r.status, r.config["path"]) for r in runs] == [(KIND, "queued", str(V100.resolve()))]
    assert launched == [runs[0].id] and at.query_params["run"] in (str(runs[0].id), [str(runs[0].id)])


def _page_text(at) -> str:
    return repr([shown(e) for e in (*at.markdown, *at.caption, *at.code, *at.info)]) + repr(
        [d.value.to_dict() for d in [*at.dataframe, *at.table]])


def test_a_capture_run_s_view_shows_its_why_and_what_xprof_measured_and_a_viewer_no_path(store, monkeypatch):
    workload = workloads.get(KIND)
    run_id = service.create_run(store, KIND, workload.prepare({"source": str(V100.parent), "name": "V100 demo"}))
    cfg = workload.make_config(store.get_run(run_id).config)
    worker.execute(store, run_id, workload, cfg)  # the worker's own path, in this process
    assert store.get_run(run_id).status == "done"
    at = open_page("capture", {"run": str(run_id)})
    assert not at.exception
    page = _page_text(at)
    assert "POTENTIALLY input-bound" in page and "likely its Python generator" in page
    assert "As xprof measured it" in [s.value for s in at.subheader] and "/device:GPU:6" in page
    assert str(V100.parent) in page  # the operator sees where it was read from
    monkeypatch.setenv(access.HASH_ENV, passphrase.hash_passphrase("a long enough passphrase"))  # a viewer now
    at = open_page("capture", {"run": str(run_id)})
    page = _page_text(at)
    assert not at.exception and "POTENTIALLY input-bound" in page and str(V100.parent) not in page
    assert "read_capture" not in {b.key for b in open_page("capture").button}  # no control to open one


def test_opening_a_capture_checks_it_without_importing_xprof_into_the_dashboard_s_process():
    """The dashboard's process never imports a framework or the profiler: the check runs in a child process."""
    import subprocess
    import sys

    code = (f"import sys; from rlcore.workloads.capture import prepare; prepare({{'source': {str(V100)!r}}}); "
            "print(sorted(m for m in ('xprof', 'tensorflow') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout.strip() == "[]"
