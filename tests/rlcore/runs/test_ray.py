"""The Ray executor on a real multi-node cluster on this machine: a 0-CPU head that holds the store and the
service actor, and two 1-CPU nodes (one also offering a stand-in "gpu kind" resource). Runs of every kind end
done with their metrics and files, spread over both nodes and never two on one node at once; cancel, a killed
worker, a lost node, a run no node can place, a dashboard that restarts, a sweep; the store stays intact.

Ray binds to this machine's own address and probes external ones to find it: these tests run only inside a
network namespace that has nothing but loopback (`make test` runs the suite in one) and skip elsewhere.
"""

import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runwait import wait_final, wait_for, wait_training

ray = pytest.importorskip("ray", reason="the cluster extra (requirements-cluster.txt) is not installed")

from rlcore import search  # noqa: E402
from rlcore.runs import executor, ray_executor, service, sweeps  # noqa: E402
from rlcore.runs.store import Store  # noqa: E402

if {name for _, name in socket.if_nameindex()} != {"lo"}:  # this process's own network namespace
    pytest.skip("Ray tests run only in a loopback-only network namespace (make test runs the suite in one)",
                allow_module_level=True)

TINY = {"epochs": 4, "memory_size": 100, "batch_size": 16, "test_games": 20, "hidden1": 16, "hidden2": 8,
        "eval_every": 0}
LONG = TINY | {"epochs": 100_000}
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from ray.cluster_utils import Cluster

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    # Ray starts its workers at nice 15 (its raylet's worker_niceness): beside two busy processes (make test-loaded)
    # a run's task got 4% of a core and a tiny bench ran past 300 s. The tests are of the executor, not of Ray's
    # courtesy to other work: its workers here compete as the lab's own worker processes do.
    os.environ["RAY_worker_niceness"] = "0"  # noqa: SIM112 (Ray reads this spelling)
    started = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "resources": {ray_executor.HEAD_RESOURCE: 1}, "include_dashboard": False})
    nodes = [started.add_node(num_cpus=1, resources={ray_executor.SLOT_RESOURCE: 1}),
             started.add_node(num_cpus=1, resources={ray_executor.SLOT_RESOURCE: 1, "gpu_kind": 1})]
    os.environ[ray_executor.ADDRESS_ENV] = started.address
    home = tmp_path_factory.mktemp("ray_home")
    store = Store(home)
    ray_executor.service(store, unplaceable_seconds=6.0)  # the first caller starts it; later ones find it
    try:
        yield started, nodes, store
    finally:
        ray.shutdown()
        started.shutdown()
        os.environ.pop(ray_executor.ADDRESS_ENV, None)


def queue(store, kind, config, **kwargs):
    run_id = service.create_run(store, kind, config, executor="ray", **kwargs)
    executor.submit(store, [run_id])
    return run_id


SCRIPT = ("import tensorflow as tf\nfrom tensorflow import keras\n"
          "model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])\n"
          "opt = keras.optimizers.SGD(0.1)\nx, y = tf.ones((8, 4)), tf.zeros((8, 1))\n"
          "for _ in range(5):\n    with tf.GradientTape() as tape:\n"
          "        loss = tf.reduce_mean((model(x) - y) ** 2)\n"
          "    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))\n")


def test_runs_of_every_kind_end_done_spread_over_both_nodes_one_at_a_time_per_node(cluster, tmp_path):
    """Every kind, your own code's too: a script runs on a node where the same path holds the same file (its
    sha256 is in the run's config); a file changed since the run was made is one sentence, never someone else's
    code run under its name."""
    from rlcore.contract import workloads

    _, nodes, store = cluster
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    prepared = workloads.get("script").prepare({"path": str(script), "args": "[]", "cwd": str(tmp_path),
                                                "profile": 0})
    ids = [queue(store, "dqn", TINY | {"seed": 1}), queue(store, "hjb", {"steps": 200, "steps_per_call": 100,
                                                                          "eval_every": 0, "eval_points": 20}),
           queue(store, "bench", {"workload": "hjb-step", "patterns": "graph", "batch": "4", "repeats": 1,
                                  "min_seconds": 0.05}),
           queue(store, "turbo", {"train_seconds": 0.2, "games": 32, "batch": 32, "memory": 2048,
                                  "test_games": 20}),
           queue(store, "script", prepared, label="same file")]  # five runs on two one-slot nodes: one node runs 3
    runs = [wait_final(store, run_id, timeout=300) for run_id in ids]
    assert [r.status for r in runs] == ["done"] * 5, [r.error for r in runs]
    assert runs[-1].summary["steps"] == 5
    other = tmp_path / "changed.py"
    other.write_text(SCRIPT)
    stale = workloads.get("script").prepare({"path": str(other), "args": "[]", "cwd": str(tmp_path), "profile": 0})
    other.write_text(SCRIPT + "print('changed')\n")  # after the run was made, before a node reads it
    changed = wait_final(store, queue(store, "script", stale, label="changed since"), timeout=300)
    assert changed.status == "failed" and changed.error.startswith(f"The script at {other} is not the one this run")
    assert all(store.metric_count(r.id) > 0 and r.summary for r in runs)
    assert (store.run_dir(ids[0]) / "model.keras").stat().st_size > 0  # files come back from the node as bytes
    by_node = {}
    for r in runs:
        by_node.setdefault(r.environment["node"]["node_id"], []).append((r.started, r.finished))
    assert set(by_node) == {n.node_id for n in nodes}  # both nodes worked
    for spans in by_node.values():
        spans.sort()
        assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))
    assert runs[0].environment["node"]["cpus"] == 1 and runs[0].host
    assert store.integrity_check() == "ok"


def test_cancel_while_queued_and_while_running(cluster):
    _, _, store = cluster
    busy = [queue(store, "dqn", LONG | {"seed": s}) for s in (3, 4)]  # both nodes busy
    waiting = queue(store, "dqn", LONG | {"seed": 5})
    for run_id in busy:
        wait_training(store, run_id)
    store.request_cancel(waiting)
    assert store.get_run(waiting).status == "cancelled"  # at once: it never held a node
    assert [executor.cancel(store, run_id) for run_id in busy] == ["cancelled", "cancelled"]
    for run_id in busy:
        run = store.get_run(run_id)
        # stopped by its own loop at its next report (a task stopped by force after the grace has no summary)
        assert run.summary["stopped_early"] and store.metric_count(run_id) > 0
    time.sleep(2)
    assert store.get_run(waiting).started is None and store.integrity_check() == "ok"


def test_a_killed_worker_is_worker_died(cluster):
    _, _, store = cluster
    run_id = queue(store, "dqn", LONG | {"seed": 6})
    run = wait_training(store, run_id)
    os.kill(run.environment["node"]["pid"], signal.SIGKILL)
    dead = wait_final(store, run_id)
    assert (dead.status, dead.error) == ("failed", "worker died")
    assert store.metric_count(run_id) > 0 and store.integrity_check() == "ok"


def test_a_gpu_run_on_a_cluster_without_a_gpu_says_why_it_waits_then_fails_clearly(cluster):
    _, _, store = cluster
    run_id = service.create_run(store, "dqn", TINY | {"device": "gpu"}, executor="ray")
    executor.submit(store, [run_id])
    phase = wait_for(lambda: store.get_run(run_id).phase, 30, "a waiting sentence")
    assert phase.startswith("waiting: no node offers 1 GPU; it fails after 6 s")
    failed = wait_final(store, run_id)
    assert failed.status == "failed"
    assert failed.error == "no node of the cluster can run it: it needs 1 GPU and none of the 2 nodes offers that"


def test_the_dashboard_can_restart_while_runs_go_on_and_its_view_catches_up(cluster, monkeypatch):
    _, _, store = cluster
    submit = ("import sys; from rlcore.runs import executor, service; from rlcore.runs.store import Store; "
              "s = Store(); "
              f"i = service.create_run(s, 'dqn', {TINY | {'epochs': 40}!r}, executor='ray'); "
              "executor.submit(s, [i]); print(i)")
    env = os.environ | {"RLCORE_HOME": str(store.home), "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run([sys.executable, "-c", submit], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)  # a dashboard process that queues a run, then is gone
    assert done.returncode == 0, done.stderr
    run_id = int(done.stdout.strip().splitlines()[-1])
    assert wait_final(store, run_id).status == "done"  # the service on the head carried it on

    from pagetest import drawn_charts, fixed_device_card, open_page

    monkeypatch.setenv("RLCORE_HOME", str(store.home))
    fixed_device_card(monkeypatch)
    view = open_page("dqn", {"run": str(run_id)})  # a new dashboard session sees the whole run
    assert not view.exception and view.subheader[0].value.endswith("— done")
    assert len(drawn_charts(view)) >= 3 and view.metric[0].label == "win rate"


def test_a_sweep_runs_its_members_on_the_cluster(cluster):
    _, _, store = cluster
    sweep_id, ids = sweeps.create(store, "dqn", TINY, search.Space(grid={"batch_size": [16, 32]}, seeds=[0, 1]),
                                  engine="ray")
    runs = [wait_final(store, run_id, timeout=300) for run_id in ids]
    assert [r.status for r in runs] == ["done"] * 4 and {r.executor for r in runs} == {"ray"}
    assert len({r.environment["node"]["node_id"] for r in runs}) == 2
    assert all(r.done == 2 for r in sweeps.results(store, store.get_sweep(sweep_id)))


def test_a_lost_node_is_node_died_with_the_node(cluster):
    started, nodes, store = cluster
    run_id = queue(store, "dqn", LONG | {"seed": 7})
    run = wait_training(store, run_id)
    node = next(n for n in nodes if n.node_id == run.environment["node"]["node_id"])
    started.remove_node(node, allow_graceful=False)
    lost = wait_final(store, run_id)
    assert lost.status == "failed" and lost.error.startswith(f"node died: {run.host} ({node.node_id[:12]})")
    assert store.integrity_check() == "ok"

