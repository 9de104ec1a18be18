"""The local executor: a queue runner that starts one worker process per run, oldest first, one at a time, and
the supervision of those processes (the runner's lock and record, which workers still live).

``launch`` makes sure a queue runner is alive (``python -m rlcore.runs --drain``, at most one per store: it
holds ``$RLCORE_HOME/runner.lock``). The runner takes the oldest queued run, starts ``python -m rlcore.runs --run
ID`` for it (the worker fixes the run's device and threads before its framework is imported there, then
``rlcore.runs.worker.execute`` trains it), waits for it, and takes the next; so runs start in creation order, never
two train at once, and a thousand queued runs cost no process until their turn. A run whose worker cannot start
fails at once with the reason and the runner goes on. Before the store is read, ``reconcile`` ends the local runs
whose process is gone.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rlcore.contract import settings
from rlcore.contract.params import ConfigError
from rlcore.contract.status import RunStatus
from rlcore.contract.workloads import get as get_workload
from rlcore.runs import executor, worker
from rlcore.runs.lifecycle import WAITABLE, RunLifecycle
from rlcore.runs.store import ACTIVE, HOST, WORKER_DIED, Store, StoreError
from rlcore.tracking.capture import PROFILE_DIR

NAME = "local"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FAILED = "its worker could not start"
NEVER_STARTED = "its worker never started: no queue runner is alive to start it"
RUNNER_START_SECONDS = 60.0  # a runner just started takes its lock within this, or it is not coming
# runner_alive probes the lock by taking it for an instant; a runner that meets the lock held tries again this long
# before it counts on another runner (the killed-runner race test's flake: a probe taken for a runner).
LOCK_PATIENCE_SECONDS = 1.0
RUNNER_KEY = "runner"  # the store's record of a queue runner just started
WORKER_MODULE = "rlcore.runs"  # `python -m rlcore.runs`: the worker process's own entry, not the CLI


def launch(store: Store, run_id: int) -> None:
    """Queue a stored run for the local executor: make sure the queue runner is alive, and return at once.

    If the runner cannot start (no Python, no room for its log), the run fails at once with the reason, so
    nothing waits on a run that nobody will execute.
    """
    if store.get_run(run_id) is None:
        raise ValueError(f"run {run_id} does not exist.")
    try:
        ensure_runner(store)
    except OSError as e:
        RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED,
                                     f"{LAUNCH_FAILED}: {e.strerror or e} ({e.filename or sys.executable}).")


def ensure_runner(store: Store) -> None:
    """Start the queue runner unless one is alive (a second one started in a race finds the lock held and ends)."""
    if runner_alive(store):
        return
    env = dict(os.environ) | {"RLCORE_HOME": str(store.home.resolve())}
    with open(store.home / "runner.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE, "--drain"], cwd=PROJECT_ROOT, env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    set_runner(store, proc.pid)  # alive from now on, before it takes the lock


def drain(store: Store | None = None, idle_seconds: float = 1.0, *, pause: Any = None) -> int:
    """The queue runner: execute queued local runs one at a time, oldest first, each in its own worker process;
    end when the queue has stayed empty for ``idle_seconds``. ``pause(point)``, for tests, holds the runner at a
    named point of its life."""
    store = store or Store()
    pause = pause or (lambda point: None)
    while True:
        with open(store.home / "runner.lock", "a") as lock:
            if not _take(lock):
                forget_runner(store, os.getpid())  # our record, if we were the one just started
                return 0  # another runner has the queue (and sees what was queued: it holds the lock)
            forget_runner(store, os.getpid())  # the lock now says we are alive
            idle_since = time.monotonic()
            while time.monotonic() - idle_since < idle_seconds:
                run_id = store.oldest_queued()
                if run_id is None:
                    time.sleep(0.1)
                    continue
                _wait_for_orphans(store)
                try:
                    _run_one(store, run_id)
                except StoreError as e:  # made read-only, full: the queue waits, it is not lost
                    if e.kind not in WAITABLE:
                        raise
                    time.sleep(2.0)
                idle_since = time.monotonic()
        # The lock is released: a launch from now on starts a runner of its own. A run queued before saw the lock
        # held and counted on this one, so the queue is read once more.
        pause("released")
        if store.oldest_queued() is None:
            pause("leaving")
            return 0


def _take(lock: Any, patience: float = LOCK_PATIENCE_SECONDS) -> bool:
    """The queue's lock, unless another runner holds it. A probe (`runner_alive`) holds it for an instant only:
    still held after `patience`, it is a runner's."""
    deadline = time.monotonic() + patience
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)


def _wait_for_orphans(store: Store, poll: float = 0.5) -> None:
    """One run at a time even across a runner's death: a worker that a killed runner left behind still trains
    (its own heartbeat keeps it), so the next run waits for it to end."""
    while local_run_alive(store) is not None:
        time.sleep(poll)


def _run_one(store: Store, run_id: int) -> None:
    """Start one run's worker process and wait for it; a worker that could not start or died without a word
    ends its run with the reason."""
    env = dict(os.environ) | {"RLCORE_HOME": str(store.home.resolve())}
    try:
        run_dir = store.run_dir(run_id)
        run_dir.mkdir(parents=True, exist_ok=True)
        with open(run_dir / "worker.log", "ab") as log:
            proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE, "--run", str(run_id)],
                                    cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED,
                                     f"{LAUNCH_FAILED}: {e.strerror or e} ({e.filename or sys.executable}).")
        return
    store.set_pid(run_id, proc.pid)
    proc.wait()
    RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED,
                                 WORKER_DIED)  # changes nothing if the worker recorded its end


def cancel(store: Store, run_id: int, grace_seconds: float = 3.0) -> str:
    """Ask a run to stop; terminate its worker if it has not stopped within the grace time."""
    store.request_cancel(run_id)
    deadline = time.monotonic() + grace_seconds
    while time.monotonic() < deadline:
        run = store.get_run(run_id)
        if run is None or run.status not in ACTIVE:
            return run.status if run else "deleted"
        time.sleep(0.1)
    run = store.get_run(run_id)
    if run and run.status in ACTIVE and run.own_process:
        # A person's own process (rlcore.init, model.fit with the callback, the CLI in the foreground) is never
        # killed: it heard the cancel and stops at its next step (model.fit, a script's) or when its code reads
        # run.stopped (rlcore.init); the run stays running until it does.
        return "cancel asked"
    if run and run.status in ACTIVE and run.pid:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGTERM)
        RunLifecycle.ended_elsewhere(store, run_id, RunStatus.CANCELLED,
                                     f"terminated: the worker did not stop within {grace_seconds:g} s")
    run = store.get_run(run_id)
    return run.status if run else "deleted"


def run_worker(run_id: int, store: Store | None = None) -> int:
    """The worker process of one run (started by the queue runner). Returns the exit code."""
    store = store or Store()
    run = store.get_run(run_id)
    if run is None:
        print(f"run {run_id} does not exist.", file=sys.stderr)
        return 2
    if run.status != RunStatus.QUEUED:
        return 0  # cancelled meanwhile
    try:  # validated where it is trained (and at the edge, when it was stored)
        workload = get_workload(run.kind)
        cfg = workload.make_config(run.config)
    except ConfigError as e:  # a stored config this version no longer accepts: the run fails, the queue goes on
        RunLifecycle.ended_elsewhere(store, run_id, RunStatus.FAILED, f"{LAUNCH_FAILED}: {e}")
        return 0
    # Before TensorFlow starts in this process: it reads the device and the XLA cache setting only then. A profile's
    # capture goes straight into the run's folder.
    worker.prepare(cfg, home=store.home, profile_dir=store.run_dir(run_id) / PROFILE_DIR)
    worker.execute(store, run_id, workload, cfg)
    # The run is recorded: the worker ends now, whatever threads the code left running (a person's script may
    # leave a non-daemon thread), so the queue's next run never waits on it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """The worker process's entry, started by the queue runner: ``--drain`` (the runner itself) or ``--run ID``
    (one run). TensorFlow's C++ log lines stay out of the run's log unless RLCORE_VERBOSE=1."""
    import argparse

    from rlcore.contract.params import parse_id
    from rlcore.tracking.machine import quiet_native_logs

    parser = argparse.ArgumentParser(prog=f"python -m {WORKER_MODULE}",
                                     description="Execute stored runs (the dashboard and --detach start this).")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", help="execute this run's id")
    what.add_argument("--drain", action="store_true", help="run the local queue, oldest first, until it is empty")
    args = parser.parse_args(argv)
    if not settings.VERBOSE.flag():
        quiet_native_logs()
    try:
        return drain() if args.drain else run_worker(parse_id(args.run))
    except (ConfigError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


# ---------------------------------------------------------------- supervision


def pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


def process_started(pid: int | None) -> str:
    """When a process started (its kernel start time), to tell it from a later process with the same pid."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(") ", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def set_runner(store: Store, pid: int | None) -> None:
    """Record a queue runner just started (it may not hold its lock yet), with its process's start time, so a
    process that later reuses the pid is never taken for it; None: no runner is starting (the runner clears the
    record once it holds the lock, or gives up)."""
    store.set_meta(RUNNER_KEY, f"{HOST} {pid} {process_started(pid)} {time.time():.0f}" if pid else "")


def forget_runner(store: Store, pid: int) -> None:
    """Clear the record of a runner just started, if it names this process."""
    store.clear_meta_like(RUNNER_KEY, f"{HOST} {pid} %")


def runner_alive(store: Store) -> bool:
    """Whether a local queue runner is alive: one holds $RLCORE_HOME/runner.lock, or one just started has not
    taken it yet (its record names its very process: pid and start time). A runner that released the lock to
    leave is not alive: a launch then starts another."""
    with contextlib.suppress(OSError), open(store.home / "runner.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(lock, fcntl.LOCK_UN)
    host, pid, started, written, *_ = (*store.meta(RUNNER_KEY).split(" "), "", "", "", "")
    return (host == HOST and pid.isdigit() and pid_alive(int(pid)) and started == process_started(int(pid))
            and written.isdigit() and time.time() - int(written) < RUNNER_START_SECONDS)


def local_run_alive(store: Store) -> int | None:
    """A local run whose worker process still lives (even one a dead runner left behind), or None."""
    return next((run_id for run_id, pid, status, _, host in store.live_runs(NAME)
                 if status == RunStatus.RUNNING and host in (None, HOST) and pid_alive(pid)), None)


def reconcile(store: Store) -> dict[int, str]:
    """The local runs that ended without a word: a running one whose worker process is gone ("worker died"); queued
    ones older than the store's start grace that no queue runner will ever start (none is alive)."""
    now = time.time()
    rows = store.live_runs(NAME)
    waiting = [r for r in rows if r[1] is None and r[2] == RunStatus.QUEUED and now - r[3] > store.start_grace]
    ended = {run_id: NEVER_STARTED for run_id, *_ in waiting} if waiting and not runner_alive(store) else {}
    ended |= {run_id: WORKER_DIED for run_id, pid, _, _, host in rows
              if pid is not None and host in (None, HOST) and not pid_alive(pid)}
    return ended


executor.register(executor.Executor(
    NAME, "this machine: a queue runner starts one worker process per run, oldest first (the default)",
    submit=lambda store, runs: launch(store, runs[0].id), cancel=cancel, reconcile=reconcile))
