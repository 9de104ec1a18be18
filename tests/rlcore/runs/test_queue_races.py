"""The queue never loses a launch and never runs two at once, whatever the runner's life does: each race held open
at its exact point (the runner paused there, or killed), with real worker processes and real SQLite."""

import fcntl
import os
import signal
import subprocess
import threading
import time

import psutil
from runwait import wait_final, wait_for, wait_training

from rlcore.runs import service
from rlcore.runs.local import drain, launch, pid_alive, runner_alive
from rlcore.runs.store import HOST, Store

TINY_DQN = {"epochs": 3, "memory_size": 100, "batch_size": 16, "test_games": 20, "hidden1": 16, "hidden2": 8}


def test_a_process_that_reused_a_runner_s_pid_is_never_taken_for_the_runner(tmp_path):
    store = Store(tmp_path)
    stranger = subprocess.Popen(["sleep", "120"])  # alive, holding a pid a runner once had, and no runner
    try:
        with store._connect() as db:  # the record a runner left, now naming a process started at another time
            record = f"{HOST} {stranger.pid} 1 {time.time():.0f}"
            db.execute("INSERT OR REPLACE INTO meta VALUES ('runner', ?)", (record,))
        assert not runner_alive(store)
        run_id = service.create_run(store, "dqn", TINY_DQN)
        launch(store, run_id)
        assert wait_final(store, run_id).status == "done"
    finally:
        stranger.kill()
        stranger.wait()


def test_a_launch_while_the_runner_is_leaving_starts_a_runner_of_its_own(tmp_path):
    store = Store(tmp_path)
    leaving, go_on = threading.Event(), threading.Event()

    def pause(point: str) -> None:
        if point == "leaving":  # found the queue empty, about to end: the launch below comes in exactly here
            leaving.set()
            go_on.wait(60)

    runner = threading.Thread(target=drain, args=(store,), kwargs={"idle_seconds": 0.2, "pause": pause})
    runner.start()
    try:
        assert leaving.wait(60)
        run_id = service.create_run(store, "dqn", TINY_DQN)
        launch(store, run_id)  # the leaving runner holds no lock and no record: a new runner starts
    finally:
        go_on.set()
        runner.join(60)
    assert wait_final(store, run_id).status == "done"


def test_one_run_at_a_time_holds_when_the_runner_is_killed_while_its_worker_trains(tmp_path):
    store = Store(tmp_path)
    first = service.create_run(store, "dqn", {"epochs": 100_000, "test_games": 20, "eval_every": 0})
    launch(store, first)
    worker = wait_training(store, first).pid
    runner = psutil.Process(worker).ppid()
    os.kill(runner, signal.SIGKILL)  # the runner dies; its worker trains on, orphaned
    # A SIGKILL is delivered, not done: until the runner has exited it still holds the queue's lock, and a launch
    # in that instant rightly counts on it. The race under test starts once it is gone, and that is when its lock
    # is free, not when its pid reads dead: the runner has threads (numpy's), its main one can be a zombie while the
    # others still close its files. Waiting on the pid was this test's flake (seen once under the full suite: the
    # launch saw the lock held, started no runner, and the run failed "its worker never started" 60 s later).
    wait_for(lambda: not pid_alive(runner), 30, "the killed runner to exit")
    wait_for(lambda: not runner_alive(store), 30, "the killed runner's lock to be released")
    second = service.create_run(store, "dqn", TINY_DQN)
    launch(store, second)  # a new runner: it must wait for the orphan
    time.sleep(3)
    assert store.get_run(second).status == "queued" and store.get_run(first).status == "running"
    store.request_cancel(first)  # the orphan hears it at its next report and ends
    done = wait_final(store, second, timeout=180)
    assert done.status == "done", done.error
    assert wait_final(store, first).status == "cancelled"
    assert done.started >= store.get_run(first).finished  # never two at once


def test_a_probe_of_the_lock_at_the_instant_a_runner_takes_it_never_sends_the_runner_away(tmp_path):
    """The killed-runner test's flake ("its worker never started: no queue runner is alive", once under the full
    suite): `runner_alive` asks whether a runner holds runner.lock by taking it for an instant; a new runner
    trying the lock in that instant took the probe for a runner, ended, and left the queued run to nobody."""
    store = Store(tmp_path)
    run_id = service.create_run(store, "dqn", TINY_DQN)
    with open(tmp_path / "runner.lock", "a") as probe:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # the probe's instant, stretched
        runner = threading.Thread(target=drain, args=(store,), kwargs={"idle_seconds": 0.2})
        runner.start()
        runner.join(timeout=0.3)
        assert runner.is_alive(), "the runner took a probe's instant for another runner and left"
    runner.join(timeout=240)
    assert store.get_run(run_id).status == "done"
