"""One run's life, written once: marked running with its environment card, its records sent through a Reporter,
a heartbeat beside it that hears a cancel, and its end recorded (done with its summary and files, cancelled,
diverged, or failed with the reason). Every way a run trains goes through it: the local worker
(``runs.worker.execute``), the CLI in the foreground, a Ray task, and ``rlcore.init``/the Keras callback.

Where the life is written is a ``Sink``: the store on this machine (``StoreSink``), or the Ray executor's service
actor on the head (its own sink, in ``runs.ray_executor``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rlcore.contract.reporting import BufferedReporter, DivergedError, Reporter, RunInfo
from rlcore.contract.status import RunStatus
from rlcore.contract.workloads import Outcome
from rlcore.runs.store import Store, StoreError
from rlcore.tracking.hooks import interrupts_deferred

FLUSH_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0
CANCEL_GRACE_SECONDS = 10.0  # a cancelled run whose loop has not stopped by then (inside a long compiled call) ends
WAITABLE = ("read-only", "full", "busy")  # storage faults that may pass (a remount, freed space): wait, then retry
MAX_BACKLOG = 200_000  # metric rows a run keeps while its sink refuses writes
RECORD_PATIENCE_SECONDS = 900.0  # how long a finished run waits for the store to take its end
Rows = list[tuple[int, float, str, float]]


class Sink(Protocol):
    """Where a run's life is written."""

    def started(self, environment: dict[str, Any], *, already_running: bool) -> bool:
        """The run is running here with this card (False: it is no longer queued: cancelled meanwhile)."""
        ...

    def report(self, rows: Rows, progress: float | None, phase: str | None) -> bool:
        """Metric rows and where the run is; True when a cancel was asked for."""
        ...

    def heartbeat(self) -> bool:
        """The run lives; True when a cancel was asked for."""
        ...

    def ended(self, ended: Ended) -> None:
        """The run's end, with its summary and files."""
        ...

    def notes(self) -> dict[str, Any]:
        """What the sink adds to a finished run's summary (the other runs that shared the machine)."""
        ...


@dataclass(frozen=True)
class Ended:
    """How a run ended: its status, the summary (done, cancelled), the reason (failed, diverged), its files."""

    status: str
    summary: dict[str, Any] | None = None
    error: str | None = None
    artifacts: dict[str, bytes] | None = None


class SinkReporter(BufferedReporter):
    """A run's Reporter: metric rows to its sink; a cancel there becomes a stop. While the sink refuses writes for a
    while (a read-only or full store, a busy one), the run trains on and its rows wait here, a bounded backlog."""

    def __init__(self, sink: Sink, flush_seconds: float = FLUSH_SECONDS) -> None:
        super().__init__(flush_seconds)
        self.sink = sink

    def on_start(self, info: RunInfo) -> None:
        self.cancelled = self.sink.heartbeat() or self.cancelled

    def send(self, rows: Rows, progress: float | None, phase: str | None) -> bool:
        try:
            return self.sink.report(rows, progress, phase)
        except StoreError as e:
            if e.kind not in WAITABLE:
                raise
            with self._lock:
                self.rows[:0] = rows[-MAX_BACKLOG:]
                del self.rows[MAX_BACKLOG:]
            return False


class RunLifecycle:
    """One run's life over a sink. ``grace``: after a cancel, how long the training may take to stop before the
    run is recorded cancelled and the process ends (None: the code decides how to stop, as ``rlcore.init``'s);
    ``log``: where a traceback goes (None: this process's stderr)."""

    def __init__(self, sink: Sink, *, grace: float | None = CANCEL_GRACE_SECONDS, log: Path | None = None,
                 heartbeat_every: float = HEARTBEAT_SECONDS) -> None:
        self.sink, self.grace, self.log, self.every = sink, grace, log, heartbeat_every
        self.reporter = SinkReporter(sink)
        self._beat: threading.Thread | None = None
        self._stop = threading.Event()
        self._cancel_heard: float | None = None

    # ------------------------------------------------------------ the life

    def start(self, environment: dict[str, Any], *, already_running: bool = False) -> bool:
        """Mark the run running here; False when it is no longer queued (cancelled meanwhile)."""
        return self.sink.started(environment, already_running=already_running)

    def run(self, train: Callable[[Reporter], Outcome]) -> Ended:
        """Train with the heartbeat beside it and record the end: done (summary and files), cancelled, diverged or
        failed with the reason (a traceback to the log, never to a page)."""
        try:
            with self.beating():
                outcome = train(self.reporter)
            return self.done(outcome)
        except DivergedError as e:
            return self.fail(RunStatus.DIVERGED, str(e))
        except KeyboardInterrupt:  # Ctrl-C on a run in the foreground: it ends as cancelled, its numbers kept
            with interrupts_deferred(swallow=True):  # another Ctrl-C meanwhile: the end is written all the same
                return self.fail(RunStatus.CANCELLED, "interrupted (Ctrl-C)")
        except Exception as e:
            self._traceback()
            return self.fail(RunStatus.FAILED, _last_line_of(e))

    def done(self, outcome: Outcome) -> Ended:
        """The training returned: done, or cancelled when it stopped for a cancel; the summary with the sink's
        notes."""
        self.reporter.flush()  # the machine's last reading
        status = RunStatus.CANCELLED if outcome.stopped and self.reporter.cancelled else RunStatus.DONE
        ended = Ended(status, dict(outcome.summary) | self.sink.notes(), artifacts=outcome.artifacts)
        self.sink.ended(ended)
        return ended

    @staticmethod
    def ended_elsewhere(store: Store, run_id: int, status: RunStatus, error: str | None) -> None:
        """The end of a run whose own life could not write it: its worker never started or died, it was killed after
        a cancel's grace, a cluster lost it, or it was interrupted before its life began. Written here too, so every
        end a run gets is written by this class; one the run already recorded stands (``Store.finish`` keeps it)."""
        store.finish(run_id, status, error=error)

    def fail(self, status: RunStatus, error: str) -> Ended:
        """The run ends without a summary (failed, diverged, cancelled by Ctrl-C), its rows so far kept."""
        with contextlib.suppress(Exception):
            self.reporter.flush()
        ended = Ended(status, error=error)
        try:
            self.sink.ended(ended)
        except StoreError as e:  # the store itself fails: the log keeps the reason
            print(f"could not record the end of the run ({status}: {error}): {e}", file=sys.stderr)
        return ended

    # ------------------------------------------------------------ the heartbeat

    @contextlib.contextmanager
    def beating(self) -> Iterator[None]:
        """A thread beats for the run every few seconds while the block runs, and hears a cancel."""
        self.begin_beating()
        try:
            yield
        finally:
            self.stop_beating()

    def begin_beating(self) -> None:
        self._stop.clear()
        self._beat = threading.Thread(target=self._beating, name="rlcore-heartbeat", daemon=True)
        self.reporter.flushed_beside = True  # the beat sends the rows: the training thread never waits on the store
        self._beat.start()

    def stop_beating(self) -> None:
        self._stop.set()
        if self._beat is not None and self._beat is not threading.current_thread():
            self._beat.join(timeout=self.every + 5)
        self.reporter.flushed_beside = False

    def _beating(self) -> None:
        """Every ``flush_seconds`` the rows the training buffered go to the sink (a store's write took 1.8 ms on
        the training thread, a record every 0.5 s); every ``every`` seconds a heartbeat, which hears a cancel."""
        next_beat = time.monotonic() + self.every
        while not self._stop.wait(min(self.reporter.flush_seconds, self.every)):
            self.reporter.flush_due()
            if time.monotonic() < next_beat:
                continue
            next_beat = time.monotonic() + self.every
            with contextlib.suppress(Exception):  # a busy store, a slow head: the next beat tries again
                if self.sink.heartbeat():
                    self.reporter.cancelled = True
                    self._cancel_heard = self._cancel_heard or time.monotonic()
            if (self.grace is not None and self._cancel_heard and time.monotonic() - self._cancel_heard > self.grace
                    and not self._stop.is_set()):
                with contextlib.suppress(Exception):
                    self.sink.ended(Ended(RunStatus.CANCELLED, error="stopped: the training did not reach a point "
                                          f"where it can stop within {self.grace:g} s of the cancel"))
                os._exit(0)  # the whole process, lock included: the queue goes on

    def _traceback(self) -> None:
        if self.log is None:
            traceback.print_exc()
            return
        with contextlib.suppress(OSError):
            self.log.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log, "a", encoding="utf-8", errors="backslashreplace") as out:
                traceback.print_exc(file=out)


# ---------------------------------------------------------------- the store on this machine


class StoreSink:
    """A run's life written straight into the store on this machine. A little disk is held back while it trains,
    so that even a full disk lets it record why it ended; a store that refuses writes for a while (made read-only,
    still full) is waited for before the end is recorded, so a run is never left "running" without a process."""

    def __init__(self, store: Store, run_id: int, *, patience: float = RECORD_PATIENCE_SECONDS) -> None:
        self.store, self.run_id, self.patience = store, run_id, patience
        self.reserve: SpaceReserve | None = None

    def started(self, environment: dict[str, Any], *, already_running: bool) -> bool:
        if already_running:
            self.store.set_environment(self.run_id, environment)
        elif not self.store.mark_running(self.run_id, os.getpid(), environment):
            return False
        self.reserve = SpaceReserve(self.store.run_dir(self.run_id) / ".space-reserve")
        return True

    def report(self, rows: Rows, progress: float | None, phase: str | None) -> bool:
        return self.store.report(self.run_id, rows, progress=progress, phase=phase)

    def heartbeat(self) -> bool:
        return self.store.heartbeat(self.run_id)

    def notes(self) -> dict[str, Any]:
        return shared_machine(self.store, self.run_id)

    def ended(self, ended: Ended) -> None:
        try:
            if ended.artifacts:
                try:  # the run's files first: a disk too full for them fails the run with that cause
                    self.store.save_artifacts(self.run_id, ended.artifacts)
                except StoreError as e:
                    ended = Ended(RunStatus.FAILED, error=str(e))
            self._patiently(lambda: self.store.finish(self.run_id, ended.status, summary=ended.summary,
                                                       error=ended.error))
        finally:
            if self.reserve is not None:
                self.reserve.release()

    def _patiently(self, write: Callable[[], Any]) -> None:
        """On a full disk, give back the reserve and write again; while the store refuses writes, keep trying for a
        while (the run's process lives meanwhile)."""
        deadline = time.monotonic() + self.patience
        while True:
            try:
                write()
                return
            except StoreError as e:
                if e.kind == "full" and self.reserve is not None and self.reserve.held:
                    self.reserve.release()
                    continue
                if e.kind not in WAITABLE or time.monotonic() > deadline:
                    raise
                time.sleep(2.0)


class SpaceReserve:
    """A little disk space held back while a run trains (SQLite needs room in its write-ahead log even to record
    why a run ended)."""

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


def _last_line_of(error: BaseException) -> str:
    """An exception's message as a run's reason: undecodable bytes escaped, one line's worth."""
    text = str(error) or type(error).__name__
    return text.encode("utf-8", "backslashreplace").decode("utf-8")[:1000]


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
