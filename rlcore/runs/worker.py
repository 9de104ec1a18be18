"""One subprocess per run: launch it, queue behind a file lock, train, report to the store, end cleanly.

``launch`` never forks: it starts ``python -m rlcore worker --run ID`` with the run's device fixed in
the child's environment before TensorFlow is imported there. Workers take turns through an exclusive
lock on ``$RLCORE_HOME/worker.lock`` and each waits until its run is the oldest queued one, so runs
start in creation order and never two train at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from rlcore import report
from rlcore.config import BenchConfig, DQNConfig, HJBConfig, from_dict
from rlcore.execution import enable_xla_cache, pin_device
from rlcore.runs.store import ACTIVE, Store

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FLUSH_SECONDS = 0.5
REPLAY_SEEDS = (0, 1, 2)


class StoreReporter:
    """Buffers records as metric rows, flushes them at most every ``flush_seconds`` with a heartbeat,
    and turns a cancel flag in the store into a stop."""

    def __init__(self, store: Store, run_id: int, flush_seconds: float = FLUSH_SECONDS) -> None:
        self.store, self.run_id, self.flush_seconds = store, run_id, flush_seconds
        self.rows: list[tuple[int, float, str, float]] = []
        self.last_flush = 0.0
        self.cancelled = False

    def on_start(self, info: report.RunInfo) -> None:
        self.cancelled = self.store.heartbeat(self.run_id)

    def on_record(self, record: report.Record) -> bool:
        self.rows.extend((record.step, record.wall_seconds, k, float(v)) for k, v in record.metrics.items())
        if time.monotonic() - self.last_flush >= self.flush_seconds:
            self.flush()
        return not self.cancelled

    def on_end(self, summary: dict[str, Any]) -> None:
        self.flush()

    def flush(self) -> None:
        if self.rows:
            self.store.append_metrics(self.run_id, self.rows)
            self.rows = []
        self.cancelled = self.store.heartbeat(self.run_id) or self.cancelled
        self.last_flush = time.monotonic()


def launch(store: Store, run_id: int) -> subprocess.Popen:
    """Start the worker of a stored run and return at once; its output goes to the run's log file."""
    run = store.get_run(run_id)
    if run is None:
        raise ValueError(f"run {run_id} does not exist.")
    env = dict(os.environ)
    env["RLCORE_HOME"] = str(store.home.resolve())
    pin_device(run.config["device"], env)
    run_dir = store.run_dir(run_id)
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / "worker.log", "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "rlcore", "worker", "--run", str(run_id)], cwd=PROJECT_ROOT,
                                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    store.set_pid(run_id, proc.pid)
    return proc


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
    """The worker process: wait for our turn, then execute the run. Returns the exit code."""
    store = store or Store()
    run = store.get_run(run_id)
    if run is None:
        print(f"run {run_id} does not exist.", file=sys.stderr)
        return 2
    pin_device(run.config["device"])
    with open(store.home / "worker.lock", "a") as lock:
        while True:
            fcntl.flock(lock, fcntl.LOCK_EX)
            run = store.get_run(run_id)
            if run is None or run.status != "queued":
                return 0  # cancelled or failed while waiting
            if store.oldest_queued() == run_id:
                break
            fcntl.flock(lock, fcntl.LOCK_UN)
            time.sleep(0.2)
        _execute(store, run_id, run.kind, run.config)  # the lock is held until the file closes
    return 0


def _execute(store: Store, run_id: int, kind: str, config: dict[str, Any]) -> None:
    from rlcore.environment import environment_card  # imports TensorFlow, under the pinned device

    if not store.mark_running(run_id, os.getpid(), environment_card()):
        return
    reporter = StoreReporter(store, run_id)
    try:
        summary, stopped = _train(store, run_id, kind, config, reporter)
        store.finish(run_id, "cancelled" if stopped and reporter.cancelled else "done", summary=summary)
    except report.DivergedError as e:
        reporter.flush()
        store.finish(run_id, "diverged", error=str(e))
    except Exception as e:
        traceback.print_exc()  # the traceback goes to the run's log file only
        reporter.flush()
        store.finish(run_id, "failed", error=str(e) or type(e).__name__)


def _train(store: Store, run_id: int, kind: str, config: dict[str, Any],
           reporter: StoreReporter) -> tuple[dict[str, Any], bool]:
    run_dir = store.run_dir(run_id)
    run_dir.mkdir(parents=True, exist_ok=True)
    if kind == "dqn":
        cfg = from_dict(DQNConfig, config)
        if cfg.exec_mode == "turbo":
            enable_xla_cache(store.home / "xla_cache")  # before the first XLA compile of this process
        from rlcore import dqn

        result = dqn.train(cfg, reporter)
        dqn.save_model(result.agent, run_dir / "model.keras")
        replays = [dqn.play_game(result.agent.q_values, seed, mode=cfg.mode, noise=cfg.test_noise,
                                 max_moves=cfg.test_max_moves).to_dict() for seed in REPLAY_SEEDS]
        (run_dir / "replays.json").write_text(json.dumps(replays))
        return result.summary(), result.stopped_early
    if kind == "bench":
        from rlcore import bench

        summary = bench.run(from_dict(BenchConfig, config), reporter)
        return summary, summary["stopped_early"]
    from rlcore import hjb

    result = hjb.train(from_dict(HJBConfig, config), reporter)
    return result.summary(), result.stopped_early
