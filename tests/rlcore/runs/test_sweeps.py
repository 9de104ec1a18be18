"""Sweeps in a real store with real workers: all members or nothing, cancel, and the CLI from sweep to export."""

import csv
import json
import os
import subprocess
import sys
import time

import pytest

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import ConfigError
from rlcore.runs import sweeps
from rlcore.runs.store import Store

TINY = {"epochs": 4, "memory_size": 100, "batch_size": 16, "test_games": 20, "hidden1": 16, "hidden2": 8,
        "eval_every": 0}
ENV = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"}


def rlcore(home, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, timeout=timeout,
                          env=ENV | {"RLCORE_HOME": str(home)})


def test_a_bad_member_writes_no_sweep_and_no_run(tmp_path):
    store = Store(tmp_path)
    space = search.Space(grid={"batch_size": [16, 5000]}, seeds=[0, 1])
    with pytest.raises(ConfigError, match=r"^Member 3 \(batch=5000 seed=0\): batch must not exceed memory"):
        sweeps.create(store, "dqn", TINY, space)
    assert store.list_sweeps() == [] and store.list_runs() == []


def test_a_thousand_members_are_written_in_one_transaction(tmp_path):
    store = Store(tmp_path)
    workload = workloads.get("dqn")
    members = search.members(workload, TINY, search.Space(grid={"learning_rate": [1e-3, 2e-3, 3e-3, 4e-3]},
                                                          seeds=list(range(250))))
    sweep_id, ids = store.create_sweep("dqn", TINY, {}, [(m.config, m.label(workload)) for m in members])
    assert len(ids) == 1000 and ids == list(range(1, 1001))
    assert {r.sweep_id for r in store.sweep_runs(sweep_id)} == {sweep_id} and len(store.list_runs()) == 1000
    assert store.get_run(1000).label == "lr=0.004 seed=249"


def test_cancelling_a_sweep_ends_queued_members_at_once_and_stops_the_running_one_keeping_its_metrics(tmp_path):
    store = Store(tmp_path)
    sweep_id, ids = sweeps.create(store, "dqn", TINY | {"epochs": 100_000},
                                  search.Space(grid={"batch_size": [16, 32, 48]}))
    deadline = time.monotonic() + 120
    while not (store.get_run(ids[0]).status == "running" and store.metric_count(ids[0]) > 0):
        assert time.monotonic() < deadline, "the first member never reported"
        time.sleep(0.2)
    running = store.cancel_sweep(sweep_id)
    assert running == [ids[0]]
    assert [store.get_run(i).status for i in ids[1:]] == ["cancelled", "cancelled"]
    while store.get_run(ids[0]).live:
        assert time.monotonic() < deadline + 30
        time.sleep(0.2)
    first = store.get_run(ids[0])
    assert first.status == "cancelled" and first.summary["stopped_early"] and store.metric_count(ids[0]) > 0
    assert store.integrity_check() == "ok"


def test_the_cli_runs_a_sweep_shows_its_results_exports_them_and_deletes_it(tmp_path):
    proc = rlcore(tmp_path, "sweep", "dqn", *[f"--set={k}={v}" for k, v in
                                               (("epochs", 3), ("memory", 100), ("test-games", 20), ("hidden1", 16),
                                                ("hidden2", 8), ("eval-every", 0))],
                  "--grid", "batch=16,32", "--quiet", "--label", "cli sweep")
    assert proc.returncode == 0, proc.stderr
    assert "2 runs — 2 done" in proc.stdout and "best by env steps/s (higher is better): batch=" in proc.stdout
    assert "its members are speed tests" in proc.stdout  # 3 games: ranked by speed, not crowned by win rate
    shown = json.loads(rlcore(tmp_path, "sweeps", "show", "1", "--json").stdout)
    assert shown["counts"] == {"done": 2} and [r["batch"] for r in shown["results"]] == [16, 32]
    assert all(r["runs"] == 1 and r["done"] == 1 and r["win_rate mean"] is not None for r in shown["results"])
    out = tmp_path / "sweep.csv"
    assert rlcore(tmp_path, "sweeps", "export", "1", "--csv", str(out)).returncode == 0
    assert [row["batch"] for row in csv.DictReader(out.open())] == ["16", "32"]
    assert "cli sweep" in rlcore(tmp_path, "sweeps", "list").stdout
    assert rlcore(tmp_path, "sweeps", "delete", "1").returncode == 0
    assert Store(tmp_path).list_runs() == [] and Store(tmp_path).list_sweeps() == []
    bad = rlcore(tmp_path, "sweep", "dqn", "--grid", "batch=16,5000", "--detach")
    assert bad.returncode == 2 and bad.stderr.startswith("error: Member 2 (batch=5000): batch must not exceed memory")
    assert Store(tmp_path).list_sweeps() == []
