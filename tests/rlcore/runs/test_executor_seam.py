"""The executor seam: an engine registered in a few lines here (it runs each run in a thread of this process) takes
a run and a sweep of the toy workload through the real store and shows them on the pages, with no edit to the store,
the sweeps, the pages or the registry's other engines."""

import threading

from runwait import wait_final

from rlcore import search
from rlcore.contract import workloads
from rlcore.runs import executor, service, sweeps
from rlcore.runs.store import Store
from rlcore.runs.worker import execute


def _in_threads(store: Store, runs: list) -> None:
    def work() -> None:
        for run in runs:
            workload = workloads.get(run.kind)
            execute(store, run.id, workload, workload.make_config(run.config))

    threading.Thread(target=work, daemon=True).start()


executor.register(executor.Executor("threads", "a thread of this process per batch of runs", submit=_in_threads))


def test_a_run_and_a_sweep_run_through_an_executor_registered_in_a_few_lines(tmp_path, monkeypatch, toy_workload):
    monkeypatch.setenv(executor.ENV, "threads")
    store = Store(tmp_path)
    run_id = service.create_run(store, "toy", {"steps": 3}, executor=executor.current())
    executor.submit(store, [run_id])
    assert wait_final(store, run_id, timeout=60).status == "done"
    sweep_id, members = sweeps.create(store, "toy", {}, search.Space(grid={"rate": [0.1, 0.5]}))
    assert [wait_final(store, m, timeout=60).status for m in members] == ["done", "done"]
    assert {store.get_run(i).executor for i in (run_id, *members)} == {"threads"}
    assert "threads" in executor.names() and executor.get("threads").cancel is None  # cancel: ask and wait

    from pagetest import open_page

    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    compared = open_page("runs", {"runs": ",".join(map(str, (run_id, *members)))})
    swept = open_page("sweeps", {"sweep": str(sweep_id)})
    assert not compared.exception and not swept.exception
    assert any(s.value.startswith("Best by score") for s in swept.success)
