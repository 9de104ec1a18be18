"""Real worker subprocesses on a real SQLite file: queue, crash, cancel, failure, divergence, the CLI."""

import itertools
import json
import os
import signal
import subprocess
import sys

import pytest
from runwait import wait_final, wait_training

from rlcore.runs import service
from rlcore.runs.local import cancel, launch
from rlcore.runs.store import WORKER_DIED, Store

TINY_DQN = {"epochs": 6, "memory_size": 100, "batch_size": 16, "test_games": 20, "hidden1": 16, "hidden2": 8}
LONG_DQN = {"epochs": 100_000, "test_games": 20, "eval_every": 0}


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path)


def test_kill_9_mid_run_fails_as_worker_died_and_the_queue_goes_on(store):
    victim = service.create_run(store, "dqn", LONG_DQN)
    follower = service.create_run(store, "dqn", TINY_DQN)
    launch(store, victim)
    launch(store, follower)
    wait_training(store, victim)
    os.kill(store.get_run(victim).pid, signal.SIGKILL)
    dead = wait_final(store, victim, timeout=60)  # a guard against a hang, not a speed
    assert (dead.status, dead.error) == ("failed", WORKER_DIED)
    assert store.metric_count(victim) > 0
    assert store.integrity_check() == "ok"
    assert wait_final(store, follower).status == "done"


def test_queued_runs_all_finish_one_at_a_time_in_order_even_those_queued_while_it_works(store):
    first = service.create_run(store, "dqn", TINY_DQN)
    launch(store, first)
    later = [service.create_run(store, "dqn", TINY_DQN | {"seed": i, "threads": 2 * i})
             for i in (1, 2)]  # queued meanwhile
    launch(store, later[0])  # a second launch finds the runner alive; the third run has no launch of its own
    ids = [first, *later]
    runs = [wait_final(store, run_id, timeout=240) for run_id in ids]
    assert [r.status for r in runs] == ["done"] * 3
    spans = sorted((r.started, r.finished, r.id) for r in runs)
    assert [s[2] for s in spans] == ids  # started in creation order
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        assert end <= start  # never two running at the same time
    assert all(r.summary["games"] == TINY_DQN["epochs"] for r in runs)
    assert all(r.environment and r.environment["tensorflow"].startswith("2.") for r in runs)
    # Each run's process gave TensorFlow the threads it asked for (the default one; 2 and 4 for the others).
    assert [(r.environment["intra_op_threads"], r.environment["inter_op_threads"]) for r in runs] == [
        (1, 1), (2, 2), (4, 4)]
    assert (store.run_dir(ids[0]) / "model.keras").exists() and (store.run_dir(ids[0]) / "replays.json").exists()


def test_cancel_mid_run_stops_it_at_its_next_report_and_keeps_metrics(store):
    run_id = service.create_run(store, "dqn", LONG_DQN)
    launch(store, run_id)
    wait_training(store, run_id)
    status = cancel(store, run_id)
    assert status == "cancelled"
    run = store.get_run(run_id)
    assert run.error is None  # stopped by its own loop, not terminated after the grace
    assert run.summary["stopped_early"] is True and run.summary["games"] < LONG_DQN["epochs"]
    assert store.metric_count(run_id) > 0


def test_a_failing_workload_ends_failed_with_its_message(store):
    run_id = service.create_run(store, "dqn", TINY_DQN | {"device": "gpu"})
    launch(store, run_id)
    run = wait_final(store, run_id, timeout=90)
    if run.status == "done":
        pytest.skip("a GPU is visible here, so the GPU run did not fail")
    assert run.status == "failed"
    assert run.error.startswith("GPU requested but TensorFlow sees none")
    assert "Traceback" in (store.run_dir(run_id) / "worker.log").read_text()


def test_an_infinite_loss_ends_diverged(store):
    run_id = service.create_run(store, "hjb", {"output_bias": 1e30, "steps": 500, "steps_per_call": 100,
                                               "eval_every": 0})
    launch(store, run_id)
    run = wait_final(store, run_id, timeout=90)
    assert run.status == "diverged"
    assert run.error.startswith("the training loss became ")  # inf or nan


def test_cli_detach_show_export_and_delete(store, tmp_path):
    env = os.environ | {"RLCORE_HOME": str(store.home)}

    def rlcore(*args):
        return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=env,
                              timeout=60)

    proc = rlcore("dqn", "--epochs", "4", "--memory", "100", "--batch", "16",
                  "--test-games", "20", "--detach", "--label", "cli")
    assert proc.returncode == 0, proc.stderr
    run_id = int(proc.stdout.strip().splitlines()[-1])
    wait_final(store, run_id)
    shown = json.loads(rlcore("runs", "show", str(run_id), "--json").stdout)
    for key in ("status", "error", "pid", "config", "summary", "metric_rows"):
        assert key in shown
    assert shown["status"] == "done" and shown["label"] == "cli" and shown["metric_rows"] > 0
    csv = tmp_path / "m.csv"
    assert rlcore("runs", "export", str(run_id), "--csv", str(csv)).returncode == 0
    assert csv.read_text().splitlines()[0] == "run_id,step,wall,name,value"
    assert str(run_id) in rlcore("runs", "list").stdout
    bad = rlcore("dqn", "--batch", "5000", "--detach")
    assert bad.returncode == 2 and bad.stderr.startswith("error: batch must not exceed memory")
    assert len(json.loads(rlcore("runs", "list", "--json").stdout)) == 1  # the bad one wrote nothing
    missing = rlcore("runs", "show", "999")
    assert missing.returncode == 2 and "run 999 does not exist" in missing.stderr
    assert rlcore("runs", "delete", str(run_id)).returncode == 0
    assert json.loads(rlcore("runs", "list", "--json").stdout) == []


def test_a_bench_is_a_run_the_worker_executes_cell_by_cell(store):
    run_id = service.create_run(store, "bench", {"workload": "hjb-step", "patterns": "graph,graph-k10", "batch": "4,16",
                                        "repeats": 2, "min_seconds": 0.05}, label="bench")
    launch(store, run_id)
    run = wait_final(store, run_id)
    assert run.status == "done", run.error
    cells = run.summary["cells"]
    assert [(c["pattern"], c["batch"]) for c in cells] == [("graph", 4), ("graph", 16), ("graph-k10", 4),
                                                          ("graph-k10", 16)]
    assert all(c["steps_per_second"] == pytest.approx(c["calls_per_second"] * c["steps_per_call"]) for c in cells)
    metrics = store.metrics(run_id)
    assert sorted(metrics[metrics["name"] == "bench/calls_per_second"]["step"]) == [1, 2, 3, 4]
    assert run.summary["crossover"] == {"graph": None, "graph-k10": None}  # no GPU cells, no crossover


TINY_TURBO = {"train_seconds": 0.2, "games": 32, "batch": 32, "memory": 2048, "test_games": 50}


def test_turbo_through_the_worker_keeps_the_compiled_loop_and_says_what_the_cache_did(store):
    """The worker sets the XLA cache before TensorFlow starts: the first run compiles and writes it, the next loads."""
    first, second = service.create_run(store, "turbo", TINY_TURBO), service.create_run(store, "turbo", TINY_TURBO)
    for run_id in (first, second):
        launch(store, run_id)
    a, b = wait_final(store, first, timeout=180), wait_final(store, second, timeout=180)
    assert (a.status, b.status) == ("done", "done"), (a.error, b.error)
    assert (a.summary["xla_cache"], b.summary["xla_cache"]) == ("miss", "hit")
    assert b.summary["compile_seconds"] < a.summary["compile_seconds"]
    assert any((store.home / "xla_cache").iterdir())
    phases = store.metrics(first)
    assert set(phases[phases["name"].str.startswith("time/")]["name"]) == {"time/compile", "time/in-graph",
                                                                          "time/eval"}


def test_a_profiled_run_keeps_its_capture_in_its_folder_and_every_run_samples_the_machine(store):
    run_id = service.create_run(store, "hjb", {"steps": 400, "eval_every": 0, "eval_points": 20, "profile": 20})
    launch(store, run_id)
    run = wait_final(store, run_id)
    assert run.status == "done", run.error
    profile = run.summary["profile"]
    assert profile["verdict"] in ("dispatch-bound", "compute-bound", "compile-bound") and profile["steps"] == 20
    captures = list((store.run_dir(run_id) / "profile").glob("plugins/profile/*/*.xplane.pb"))
    assert len(captures) == 1 and str(captures[0]) == profile["capture"]
    # What the machine did, sampled beside the training: ordinary metrics, and a summary the views read.
    system = run.summary["system"]
    assert system["machine_cores"] == os.cpu_count() and 0 < system["run_cpu_cores_max"] <= os.cpu_count() + 0.5
    names = set(store.metrics([run_id])["name"])
    assert {"system/run_cpu_cores", "system/machine_cpu_cores", "system/run_threads", "system/run_memory_mb"} <= names
