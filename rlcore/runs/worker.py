"""One stored run trained in this process, whoever started the process: the local executor's worker (``python -m
rlcore.runs --run ID``), the CLI in the foreground, a user's script under ``rlcore profile``, an executor of a test.

``execute`` marks the run running with its environment card, reports through a ``StoreReporter`` (metric rows
straight into the store; a cancel flag there becomes a stop), beats a heartbeat meanwhile, keeps a little disk in
reserve so that even a full disk lets the run record why it ended, and records the end: done (summary and
artifacts), cancelled, diverged or failed with the reason.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlcore.contract.reporting import BufferedReporter, DivergedError, Reporter, RunInfo, TeeReporter
from rlcore.contract.workloads import Workload
from rlcore.runs.store import Store, StoreError

FLUSH_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0
CANCEL_GRACE_SECONDS = 10.0  # a cancelled run whose loop has not stopped by then (inside a long compiled call) ends
WAITABLE = ("read-only", "full", "busy")  # storage faults that may pass (a remount, freed space): wait, then retry
MAX_BACKLOG = 200_000  # metric rows a worker keeps while the store refuses writes
RECORD_PATIENCE_SECONDS = 900.0  # how long a finished run waits for the store to take its end
LOG_NAME = "worker.log"  # a run's log in its folder: tracebacks go there, never to a page or a terminal


class StoreReporter(BufferedReporter):
    """The worker's Reporter: metric rows straight into the store; a cancel flag there becomes a stop."""

    def __init__(self, store: Store, run_id: int, flush_seconds: float = FLUSH_SECONDS) -> None:
        super().__init__(flush_seconds)
        self.store, self.run_id = store, run_id

    def on_start(self, info: RunInfo) -> None:
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
                 grace: float | None = CANCEL_GRACE_SECONDS) -> None:
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
            if (self.grace is not None and self._cancel_heard and time.monotonic() - self._cancel_heard > self.grace
                    and not self._stop.is_set()):
                with contextlib.suppress(StoreError):
                    self.store.finish(self.run_id, "cancelled", error=f"stopped: the training did not reach a "
                                      f"point where it can stop within {self.grace:g} s of the cancel")
                os._exit(0)  # the whole process, lock included: the queue goes on


@dataclass(frozen=True)
class Ended:
    """How a run executed here ended: its status, the summary (done, cancelled), the reason (failed, diverged)."""

    status: str
    summary: dict[str, Any] | None = None
    error: str | None = None
    artifacts: dict[str, bytes] | None = None


def execute(store: Store, run_id: int, workload: Workload, cfg: Any, *, also: Reporter | None = None,
            started: bool = False, log: Path | None = None) -> Ended | None:
    """Train a run in this process and record its end: done (summary and artifacts), cancelled, diverged or
    failed with the message; a storage fault on the way is its one sentence. ``also`` hears every record too (the
    CLI's progress bar); ``started``: the run was stored running in this process already; ``log``: where a
    traceback goes (by default this process's stderr, which the queue runner sends to the run's log). None when the
    run was no longer queued (cancelled meanwhile)."""
    from rlcore.tracking.machine import card_for  # imports the run's framework, under the pinned device

    card = card_for(workload.framework(cfg)) | ({"code": workload.code(cfg)} if workload.code else {})
    if started:
        store.set_environment(run_id, card)
    elif not store.mark_running(run_id, os.getpid(), card):
        return None
    reserve = SpaceReserve(store.run_dir(run_id) / ".space-reserve")
    reporter = StoreReporter(store, run_id)
    try:
        with Heartbeat(store, run_id, reporter):
            outcome = workload.train(cfg, TeeReporter(reporter, also) if also is not None else reporter)
            store.save_artifacts(run_id, outcome.artifacts)
        reporter.flush()  # the machine's last reading
        status = "cancelled" if outcome.stopped and reporter.cancelled else "done"
        summary = outcome.summary | shared_machine(store, run_id)
        _record(store, reserve, lambda: store.finish(run_id, status, summary=summary))
        return Ended(status, summary, artifacts=outcome.artifacts)
    except DivergedError as e:
        return _end(store, reserve, run_id, reporter, "diverged", str(e))
    except KeyboardInterrupt:  # Ctrl-C on a run in the foreground: it ends as cancelled, its numbers kept
        return _end(store, reserve, run_id, reporter, "cancelled", "interrupted (Ctrl-C)")
    except StoreError as e:
        _traceback(log)
        return _end(store, reserve, run_id, reporter, "failed", str(e))
    except Exception as e:
        _traceback(log)  # to the run's log file only
        return _end(store, reserve, run_id, reporter, "failed", str(e) or type(e).__name__)
    finally:
        reserve.release()


def _traceback(log: Path | None) -> None:
    if log is None:
        traceback.print_exc()
        return
    with contextlib.suppress(OSError):
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a", encoding="utf-8") as out:
            traceback.print_exc(file=out)


def sharing_sentence(store: Store, run_id: int) -> str | None:
    """What to say when other runs train on this machine beside this one (None: it has the machine)."""
    others = store.overlapping(run_id)
    if not others:
        return None
    names = ", ".join(map(str, others[:5])) + (f" and {len(others) - 5:,} more" if len(others) > 5 else "")
    return (f"run {run_id} shared this machine with run{'s' if len(others) > 1 else ''} {names} while it trained, "
            "so its speed (and theirs) is not clean: runs that share cores slow each other down.")


def shared_machine(store: Store, run_id: int) -> dict[str, Any]:
    """A summary's note of the other runs that trained on this machine meanwhile, if any."""
    sentence = sharing_sentence(store, run_id)
    return {"shared_machine": {"runs": store.overlapping(run_id), "sentence": sentence[0].upper() + sentence[1:]}} \
        if sentence else {}


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
         error: str) -> Ended:
    with contextlib.suppress(StoreError):
        reporter.flush()
    try:
        _record(store, reserve, lambda: store.finish(run_id, status, error=error))
    except StoreError as e:  # the store itself fails: the log keeps the reason
        print(f"could not record the end of run {run_id} ({status}: {error}): {e}", file=sys.stderr)
    return Ended(status, error=error)
