"""The local executor: a queue runner that starts one worker process per run, oldest first, one at a time.

``launch`` makes sure a queue runner is alive (``python -m rlcore.runs --drain``, at most one per store: it
holds ``$RLCORE_HOME/runner.lock``). The runner takes the oldest queued run, starts ``python -m rlcore.runs --run
ID`` for it (the worker fixes the run's device and threads before TensorFlow is imported there), waits for it, and
takes the next; so runs start in creation order, never two
train at once, and a thousand queued runs cost no process until their turn. A run whose worker cannot start
fails at once with the reason and the runner goes on. While a run trains, a heartbeat thread tells the store
the process lives, whatever the training loop is doing (one compiled call can last a minute).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any

from rlcore import report, system_metrics, workloads
from rlcore.config import ConfigError
from rlcore.execution import prepare_process
from rlcore.profiling import PROFILE_DIR
from rlcore.runs import executor
from rlcore.runs.store import ACTIVE, WORKER_DIED, Store, StoreError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FLUSH_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0
CANCEL_GRACE_SECONDS = 10.0  # a cancelled run whose loop has not stopped by then (inside a long compiled call) ends
LAUNCH_FAILED = "its worker could not start"
WAITABLE = ("read-only", "full", "busy")  # storage faults that may pass (a remount, freed space): wait, then retry
MAX_BACKLOG = 200_000  # metric rows a worker keeps while the store refuses writes
RECORD_PATIENCE_SECONDS = 900.0  # how long a finished run waits for the store to take its end


class StoreReporter(report.BufferedReporter):
    """The worker's Reporter: metric rows straight into the store; a cancel flag there becomes a stop."""

    def __init__(self, store: Store, run_id: int, flush_seconds: float = FLUSH_SECONDS) -> None:
        super().__init__(flush_seconds)
        self.store, self.run_id = store, run_id

    def on_start(self, info: report.RunInfo) -> None:
        self.cancelled = self.store.heartbeat(self.run_id) or self.cancelled

    def send(self, rows: list[tuple[int, float, str, float]], progress: float | None, phase: str | None) -> bool:
        try:
            return self.store.report(self.run_id, rows, progress=progress, phase=phase)
        except StoreError as e:
            if e.kind not in WAITABLE:
                raise
            # The store refuses writes for now (made read-only, a full disk, busy): the run trains on and its rows
            # wait here for the next flush, a bounded backlog.
            with self._lock:
                self.rows[:0] = rows[-MAX_BACKLOG:]
                del self.rows[MAX_BACKLOG:]
            return False


class Heartbeat:
    """A thread that beats for the run every few seconds while the process lives, and hears cancel requests.

    A cancel reaches the loop at its next report; a loop inside one long compiled call cannot hear it, so after
    a grace period the heartbeat records the run as cancelled and ends the process.
    """

    def __init__(self, store: Store, run_id: int, reporter: StoreReporter, every: float = HEARTBEAT_SECONDS,
                 grace: float = CANCEL_GRACE_SECONDS) -> None:
        self.store, self.run_id, self.reporter, self.every, self.grace = store, run_id, reporter, every, grace
        self._stop = threading.Event()
        self._cancel_heard: float | None = None
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.every + 5)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            with contextlib.suppress(StoreError):  # a busy or full store must not kill the run; the next beat tries
                if self.store.heartbeat(self.run_id):
                    self.reporter.cancelled = True
                    self._cancel_heard = self._cancel_heard or time.monotonic()
            if self._cancel_heard and time.monotonic() - self._cancel_heard > self.grace and not self._stop.is_set():
                with contextlib.suppress(StoreError):
                    self.store.finish(self.run_id, "cancelled", error=f"stopped: the training did not reach a "
                                      f"point where it can stop within {self.grace:g} s of the cancel")
                os._exit(0)  # the whole process, lock included: the queue goes on


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
        store.finish(run_id, "failed", error=f"{LAUNCH_FAILED}: {e.strerror or e} ({e.filename or sys.executable}).")


def ensure_runner(store: Store) -> None:
    """Start the queue runner unless one is alive (a second one started in a race finds the lock held and ends)."""
    if store.runner_alive():
        return
    env = dict(os.environ) | {"RLCORE_HOME": str(store.home.resolve())}
    with open(store.home / "runner.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", WORKER_MODULE, "--drain"], cwd=PROJECT_ROOT, env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    store.set_runner(proc.pid)  # alive from now on, before it takes the lock


def drain(store: Store | None = None, idle_seconds: float = 1.0, *, pause: Any = None) -> int:
    """The queue runner: execute queued local runs one at a time, oldest first, each in its own worker process;
    end when the queue has stayed empty for ``idle_seconds``. ``pause(point)``, for tests, holds the runner at a
    named point of its life."""
    store = store or Store()
    pause = pause or (lambda point: None)
    while True:
        with open(store.home / "runner.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                store.forget_runner(os.getpid())  # our record, if we were the one just started
                return 0  # another runner has the queue (and sees what was queued: it holds the lock)
            store.forget_runner(os.getpid())  # the lock now says we are alive
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


def _wait_for_orphans(store: Store, poll: float = 0.5) -> None:
    """One run at a time even across a runner's death: a worker that a killed runner left behind still trains
    (its own heartbeat keeps it), so the next run waits for it to end."""
    while store.local_run_alive() is not None:
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
        store.finish(run_id, "failed", error=f"{LAUNCH_FAILED}: {e.strerror or e} ({e.filename or sys.executable}).")
        return
    store.set_pid(run_id, proc.pid)
    proc.wait()
    store.finish(run_id, "failed", error=WORKER_DIED)  # changes nothing if the worker recorded its end


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
    if run and run.status in ACTIVE and run.pid:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGTERM)
        store.finish(run_id, "cancelled", error=f"terminated: the worker did not stop within {grace_seconds:g} s")
    run = store.get_run(run_id)
    return run.status if run else "deleted"


def run_worker(run_id: int, store: Store | None = None) -> int:
    """The worker process of one run (started by the queue runner). Returns the exit code."""
    store = store or Store()
    run = store.get_run(run_id)
    if run is None:
        print(f"run {run_id} does not exist.", file=sys.stderr)
        return 2
    if run.status != "queued":
        return 0  # cancelled meanwhile
    try:  # validated where it is trained (and at the edge, when it was stored)
        workload = workloads.get(run.kind)
        cfg = workload.make_config(run.config)
    except ConfigError as e:  # a stored config this version no longer accepts: the run fails, the queue goes on
        store.finish(run_id, "failed", error=f"{LAUNCH_FAILED}: {e}")
        return 0
    # Before TensorFlow starts in this process: it reads the device and the XLA cache setting only then. A profile's
    # capture goes straight into the run's folder.
    prepare_process(",".join(workloads.devices_of(cfg)), store.home, threads=workloads.threads_of(cfg),
                    profile_dir=store.run_dir(run_id) / PROFILE_DIR)
    execute(store, run_id, workload, cfg)
    return 0


def execute(store: Store, run_id: int, workload: workloads.Workload, cfg: Any) -> None:
    """Train a run in this process and record its end: done (summary and artifacts), cancelled, diverged or
    failed with the message; a storage fault on the way is its one sentence."""
    from rlcore.environment import card_for  # imports the run's framework, under the pinned device

    if not store.mark_running(run_id, os.getpid(), card_for(cfg)):
        return
    reserve = SpaceReserve(store.run_dir(run_id) / ".space-reserve")
    reporter = StoreReporter(store, run_id)
    try:
        with Heartbeat(store, run_id, reporter), system_metrics.sampler(reporter.add_rows,
                                                                        lambda: reporter.last_step) as sampling:
            outcome = workload.train(cfg, reporter)
            store.save_artifacts(run_id, outcome.artifacts)
        reporter.flush()  # the machine's last reading
        status = "cancelled" if outcome.stopped and reporter.cancelled else "done"
        summary = outcome.summary | {"system": sampling.summary()}
        _record(store, reserve, lambda: store.finish(run_id, status, summary=summary))
    except report.DivergedError as e:
        _end(store, reserve, run_id, reporter, "diverged", str(e))
    except StoreError as e:
        traceback.print_exc()
        _end(store, reserve, run_id, reporter, "failed", str(e))
    except Exception as e:
        traceback.print_exc()  # the traceback goes to the run's log file only
        _end(store, reserve, run_id, reporter, "failed", str(e) or type(e).__name__)
    finally:
        reserve.release()


WORKER_MODULE = "rlcore.runs"  # `python -m rlcore.runs`: the worker process's own entry, not the CLI


def main(argv: list[str] | None = None) -> int:
    """The worker process's entry, started by the queue runner: ``--drain`` (the runner itself) or ``--run ID``
    (one run). TensorFlow's C++ log lines stay out of the run's log unless RLCORE_VERBOSE=1."""
    import argparse

    from rlcore.config import parse_id
    from rlcore.execution import quiet_native_logs

    parser = argparse.ArgumentParser(prog=f"python -m {WORKER_MODULE}",
                                     description="Execute stored runs (the dashboard and --detach start this).")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--run", help="execute this run's id")
    what.add_argument("--drain", action="store_true", help="run the local queue, oldest first, until it is empty")
    args = parser.parse_args(argv)
    if os.environ.get("RLCORE_VERBOSE") != "1":
        quiet_native_logs()
    try:
        return drain() if args.drain else run_worker(parse_id(args.run))
    except (ConfigError, StoreError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


class SpaceReserve:
    """A little disk space held back while a run trains, so that on a full disk the run can still record why it
    ended (SQLite needs room in its write-ahead log even for that one row)."""

    SIZE = 1 << 20

    def __init__(self, path: Path) -> None:
        self.path = path
        self.held = False
        try:
            path.write_bytes(bytes(self.SIZE))
            self.held = True
        except OSError:
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def release(self) -> None:
        self.held = False
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)


def _record(store: Store, reserve: SpaceReserve, write: Any, patience: float = RECORD_PATIENCE_SECONDS) -> None:
    """Write a run's end; on a full disk, give back the reserve and write it again; while the store refuses writes
    (made read-only, still full), keep trying for a while: the run's process lives meanwhile, so the run is never
    left "running" without one."""
    deadline = time.monotonic() + patience
    while True:
        try:
            write()
            return
        except StoreError as e:
            if e.kind == "full" and reserve.held:
                reserve.release()
                continue
            if e.kind not in WAITABLE or time.monotonic() > deadline:
                raise
            time.sleep(2.0)


def _end(store: Store, reserve: SpaceReserve, run_id: int, reporter: StoreReporter, status: str,
         error: str) -> None:
    with contextlib.suppress(StoreError):
        reporter.flush()
    try:
        _record(store, reserve, lambda: store.finish(run_id, status, error=error))
    except StoreError as e:  # the store itself fails: the log keeps the reason
        print(f"could not record the end of run {run_id} ({status}: {error}): {e}", file=sys.stderr)


executor.register(executor.Executor(
    "local", "this machine: a queue runner starts one worker process per run, oldest first (the default)",
    submit=lambda store, runs: launch(store, runs[0].id), cancel=cancel))
