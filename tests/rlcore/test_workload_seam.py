"""The seam: a workload registered in a few lines here runs through the store, a real worker process, the CLI,
the run view and the runs table and comparison, with no edit to any of those modules."""

import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from rlcore.contract import reporting, workloads
from rlcore.contract.params import param
from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import Store

HERE = "tests.rlcore.test_workload_seam"  # the worker process imports this module to know the toy


@dataclass(frozen=True)
class ToyConfig:
    steps: int = param(4, "Records to report.", lo=1, hi=100)
    rate: float = param(0.5, "How fast the loss falls.", lo=0.0, hi=0.99)


def train_toy(cfg: ToyConfig, reporter: reporting.Reporter) -> workloads.Outcome:
    reporter.on_start(reporting.RunInfo("toy", cfg.steps, "steps"))
    for i in range(1, cfg.steps + 1):
        reporter.on_record(reporting.Record(i, i / 100, {reporting.LOSS: (1 - cfg.rate) ** i,
                                                         "toy/score": i / cfg.steps},
                                         i / cfg.steps))
    summary = {"score": 1 - (1 - cfg.rate) ** cfg.steps, "steps": cfg.steps, "train_seconds": cfg.steps / 100}
    reporter.on_end(summary)
    return workloads.Outcome(summary, {"toy.txt": b"made by the toy"})


workloads.register(workloads.Workload(
    kind="toy", title="Toy", description="A workload of a few lines.", config=ToyConfig, train=train_toy,
    judge=lambda cfg, s: workloads.Verdict("ok", "converged", f"Converged: score {s['score']:.2f}."),
    headlines=(workloads.Headline("score", "score", "%"),),
    charts=(workloads.Chart(reporting.LOSS, "toy loss", log_y=True), workloads.Chart("toy/score", "toy score"))))

ENV = os.environ | {workloads.PLUGIN_ENV: HERE, "TF_CPP_MIN_LOG_LEVEL": "2"}


@pytest.fixture
def toy_store(tmp_path, monkeypatch):
    monkeypatch.setenv(workloads.PLUGIN_ENV, HERE)  # inherited by the worker processes launched below
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
                              env=ENV | {"RLCORE_HOME": str(toy_store.home)})

    shown = json.loads(rlcore("runs", "show", str(first), "--json").stdout)
    assert shown["status"] == "done" and shown["verdict"]["text"] == "Converged: score 0.97."
    csv = toy_store.home / "toy.csv"
    assert rlcore("runs", "export", str(first), "--csv", str(csv)).returncode == 0
    assert csv.read_text().count("toy/score") == 5
    here = rlcore("toy", "--steps", "2", "--quiet")  # the CLI has a command for it too
    assert here.returncode == 0 and "Converged: score 0.75." in here.stdout, here.stderr

    from pagetest import drawn_charts, open_page  # the run view and the runs table/comparison, in AppTest

    view = open_page("runs", {"run": str(first)})
    assert not view.exception
    assert set(drawn_charts(view)) == {"toy loss", "toy score", "CPU cores busy"}  # its charts, and the machine's
    assert [m.value for m in view.metric] == ["96.9%"] and view.success[0].value.startswith("Converged")
    table = open_page("runs", {"runs": f"{first},{second}"})
    assert not table.exception
    assert list(table.dataframe[0].value["score"]) == pytest.approx([48.8, 96.875])  # in percent, newest first
    spec = drawn_charts(table)["loss"]
    assert [t["name"] for t in spec["data"] if t.get("showlegend") is not False] == [f"{first}: steps=5",
                                                                                      f"{second}: slow"]
