"""The Reporter protocol: training emits records and never knows where they go.

A run (``rlcore.tracking.run.TrainingRun``) calls ``on_start`` once, ``on_record`` a few times a second (returning
False asks the training to stop cleanly, which is how cancel works), ``add_rows`` for what is sampled beside the
training (the machine), and ``on_end`` with the summary. The CLI reports to a progress bar and the store, a worker
to the store, a Ray task to the head's service, tests to a list.

The metric keys every run may log live here; a workload's own keys live in its package.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

# Metric keys, namespaced so a chart is a filter on the prefix.
LOSS = "train/loss"
STEPS_PER_S = "throughput/steps_per_s"
SAMPLES_PER_S = "throughput/samples_per_s"
PHASE_PREFIX = "time/"  # time/env, time/act, ...: cumulative seconds per phase

# The phases a run view names while a run lives.
COMPILING, TRAINING, TESTING, READING_PROFILE = "compiling", "training", "testing", "reading the profile"

Row = tuple[int, float, str, float]  # (step, wall seconds, name, value)


class DivergedError(RuntimeError):
    """The training loss became NaN or infinite."""


@dataclass(frozen=True)
class Record:
    """One report from a training loop: where it is and the metrics of the last window."""

    step: int
    wall_seconds: float
    metrics: dict[str, float]
    progress: float = 0.0  # fraction of the planned work done, 0..1
    phase: str = ""  # what the loop does now ("compiling", "training", "testing"); "" = as before


@dataclass(frozen=True)
class RunInfo:
    """What a run tells its reporter before the first step."""

    kind: str
    total: int  # planned units of work (games, steps); 0 = not known
    unit: str
    config: dict[str, Any] = field(default_factory=dict)


class Reporter(Protocol):
    def on_start(self, info: RunInfo) -> None: ...

    def on_record(self, record: Record) -> bool:
        """Take a record; return False to ask the loop to stop."""
        ...

    def on_end(self, summary: dict[str, Any]) -> None: ...


# What is never a number (a loss or metric of these is said once and left out); a tuple: isinstance on a union is
# ~4x slower, and this is asked of every step's loss.
NO_NUMBER = (str, bytes, dict, list, tuple, set, complex)


def number(value: Any) -> float | None:
    """A logged value as the metric it is charted as: any real number (a Python or numpy number, a bool, a tensor
    or array of one element), past float's range as infinity, NaN and infinity kept; None for what is no number (a
    string, a dict, None, a complex number, an array of several values)."""
    if type(value).__name__ == "EagerTensor":  # first: a record reads every step's loss, most of them tensors
        return _tensor_number(value)
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # 10**400
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, NO_NUMBER) or value is None:
        return None
    return _any_number(value)


def _tensor_number(value: Any) -> float | None:
    # A record reads every step's loss (a thousand a record in a fast loop): a scalar's value is fetched and read
    # first (1.2 ms for 1,000, against 3.9 ms asking each its shape, size and dtype before it). One tf.stack of
    # them all was tried: each new count of inputs is a new kernel, 20 ms a record.
    try:
        fetched = value.numpy()
    except Exception:  # a tensor whose value cannot be fetched is read below, as any value
        fetched = None
    if getattr(fetched, "ndim", None) == 0 and fetched.dtype.kind in "fiub":
        return float(fetched)
    return _any_number(value)


def _any_number(value: Any) -> float | None:
    # Every step's loss passes here when a record is made (a thousand tensors a record in a fast loop), so a
    # scalar's size is never asked for: a tensor answers an attribute it lacks with a long error message (4 µs).
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) > 0:
        size = getattr(value, "size", None)
        if size is None or int(size) != 1:
            return None
    dtype = getattr(value, "dtype", None)
    try:
        result = complex(value) if "complex" in (getattr(dtype, "name", None) or str(dtype)) else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return result if isinstance(result, float) else None


def kind_of(value: Any) -> str:
    """What a value that is no number is, for its one sentence: "text", "a dict", "an array of shape (3,)"."""
    if isinstance(value, str):
        return "text"
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"an array of shape {tuple(shape)}"
    return "None" if value is None else f"a {type(value).__name__}"


@runtime_checkable
class TakesRows(Protocol):
    """A reporter that also takes rows sampled beside the training (the machine's cores, memory, GPU)."""

    def add_rows(self, rows: list[Row]) -> None: ...


class LossWindow:
    """The mean loss between two records (NaN or infinity stops the run as diverged) and the throughput over the
    window's own training time.

    Losses may be tensors; they are fetched only when the window closes, so a loop does not wait for each step.
    """

    def __init__(self, rate_key: str | None) -> None:
        self.rate_key = rate_key  # None: no speed (a bench's cells are not training steps)
        self.losses: list[Any] = []
        self._steps, self._seconds = 0, 0.0
        self._span = 0.0  # the previous window's training seconds

    def add_loss(self, loss: Any) -> None:
        self.losses.append(loss)

    def restart(self, steps: int) -> None:
        """The training clock starts again at zero with ``steps`` already counted (a script's set-up is no part
        of its training): the next window's rate is measured from here, never across the restart."""
        self._steps, self._seconds, self._span = steps, 0.0, 0.0

    def close(self, steps: int, seconds: float, *, last: bool = False) -> dict[str, float]:
        """The window's metrics, given the loop's total steps and training seconds so far; opens the next.
        ``last``: the loop's final record, whose window is whatever was left (a step cut short by the end of the
        code): it gives no speed when it is shorter than half the window before it (one step in 16 ms read as
        63 steps/s beside a steady 6)."""
        metrics: dict[str, float] = {}
        losses, self.losses = [number(x) for x in self.losses], []
        losses = [x for x in losses if x is not None]  # a loss that is no number was said once where it was logged
        if losses:
            loss = sum(losses) / len(losses)  # not fsum: inf - inf is nan here
            if not math.isfinite(loss):
                raise DivergedError(f"the training loss became {loss} after {steps:,} steps.")
            metrics[LOSS] = loss
        span = seconds - self._seconds
        tail = last and self._span > 0 and span < 0.5 * self._span
        if span < MIN_RATE_SECONDS and not last:  # a record right after another (a phase, an epoch's validation):
            return metrics  # no rate from a sliver of time (36 steps/s read as 27,000); its steps count in the next
        if self.rate_key and span > 0 and steps > self._steps and not tail:
            metrics[self.rate_key] = (steps - self._steps) / span
        self._steps, self._seconds, self._span = steps, seconds, max(span, 0.0)
        return metrics


MIN_RATE_SECONDS = 0.05  # a window shorter than this gives no rate: a step's jitter would read as the speed


class BufferedReporter:
    """Buffers records as metric rows (step, wall seconds, name, value) and sends them with the progress and phase
    at most every ``flush_seconds`` (at once when the phase changes); what a send answers, whether a cancel was
    asked for, becomes a stop. Subclasses say where the rows go (``send``)."""

    def __init__(self, flush_seconds: float = 0.5) -> None:
        self.flush_seconds = flush_seconds
        self.rows: list[Row] = []
        self.progress: float | None = None
        self.phase: str | None = None
        self.last_flush = 0.0
        self.last_step = 0
        self.cancelled = False
        self._lock = threading.Lock()  # rows also come from the system-metrics thread
        self._sending = threading.Lock()  # one send at a time, in order (a phase's from the loop, the rest beside it)
        # A thread beside the training sends the rows every ``flush_seconds`` (``flush_due``, a run's heartbeat):
        # then a record only buffers its rows, and the training thread never waits for the store's write.
        self.flushed_beside = False
        self._failed_beside: Exception | None = None

    def add_rows(self, rows: list[Row]) -> None:
        """Rows from beside the training loop (system metrics); they go out with the next flush."""
        with self._lock:
            self.rows.extend(rows)

    def send(self, rows: list[Row], progress: float | None, phase: str | None) -> bool:
        """Deliver the rows; True when the run was asked to stop."""
        raise NotImplementedError

    def on_start(self, info: RunInfo) -> None:
        pass

    def on_record(self, record: Record) -> bool:
        failed, self._failed_beside = self._failed_beside, None
        if failed is not None:  # the send beside the loop failed: the run hears it here, as it would have
            raise failed
        with self._lock:
            self.rows.extend((record.step, record.wall_seconds, k, v) for k, v in record.metrics.items())
        self.last_step = record.step
        self.progress = record.progress
        if record.phase:
            self.phase = record.phase
        if record.phase or (not self.flushed_beside and time.monotonic() - self.last_flush >= self.flush_seconds):
            self.flush()
        return not self.cancelled

    def on_end(self, summary: dict[str, Any]) -> None:
        self.flush()

    def flush(self) -> None:
        with self._sending:
            with self._lock:
                rows, self.rows = self.rows, []
            self.cancelled = self.send(rows, self.progress, self.phase) or self.cancelled
            self.last_flush = time.monotonic()

    def flush_due(self) -> None:
        """From the thread beside the training: send the rows if ``flush_seconds`` passed since the last send; a
        failure is kept for the training thread's next record (a run never loses it to a thread)."""
        if not self.rows or time.monotonic() - self.last_flush < self.flush_seconds:
            return
        try:
            self.flush()
        except Exception as e:
            self._failed_beside = e


class NullReporter:
    """Discards everything and never stops a run."""

    def on_start(self, info: RunInfo) -> None:
        pass

    def on_record(self, record: Record) -> bool:
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        pass


class ListReporter:
    """Keeps every record (and sampled row) in memory; optionally asks to stop after ``stop_after`` records."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.info: RunInfo | None = None
        self.records: list[Record] = []
        self.rows: list[Row] = []
        self.summary: dict[str, Any] | None = None
        self.stop_after = stop_after

    def on_start(self, info: RunInfo) -> None:
        self.info = info

    def on_record(self, record: Record) -> bool:
        self.records.append(record)
        return self.stop_after is None or len(self.records) < self.stop_after

    def add_rows(self, rows: list[Row]) -> None:
        self.rows.extend(rows)

    def on_end(self, summary: dict[str, Any]) -> None:
        self.summary = summary


class TeeReporter:
    """Several reporters as one (the CLI's progress bar and the store): each takes every record; the run stops when
    any of them asks."""

    def __init__(self, *reporters: Any) -> None:
        self.reporters = [r for r in reporters if r is not None]

    def on_start(self, info: RunInfo) -> None:
        for r in self.reporters:
            r.on_start(info)

    def on_record(self, record: Record) -> bool:
        return all([r.on_record(record) for r in self.reporters])  # a list: every reporter sees the record

    def add_rows(self, rows: list[Row]) -> None:
        for r in self.reporters:
            if isinstance(r, TakesRows):
                r.add_rows(rows)

    def on_end(self, summary: dict[str, Any]) -> None:
        for r in self.reporters:
            r.on_end(summary)
