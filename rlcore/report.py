"""The Reporter protocol: training code emits records and never knows where they go.

A loop calls ``on_start`` once, ``on_record`` a few times a second (returning False asks the loop
to stop cleanly, which is how cancel works), and ``on_end`` with the summary. The CLI reports to
tqdm, the worker to the store, tests to a list.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

# Metric keys, namespaced so a chart is a filter on the prefix.
LOSS = "train/loss"
ENV_STEPS_PER_S = "throughput/env_steps_per_s"
STEPS_PER_S = "throughput/steps_per_s"
EPSILON = "rollout/epsilon"
GAMES = "progress/games"
WIN_RATE = "eval/win_rate"
PHASE_PREFIX = "time/"  # time/env, time/act, ...: cumulative seconds per phase
HJB_MAX_REL_ERR_V = "hjb/max_rel_err_V"
HJB_MAX_REL_ERR_C = "hjb/max_rel_err_c"
HJB_MAX_ABS_RESIDUAL = "hjb/max_abs_residual"


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


# The phases a run view names while a run lives.
COMPILING, TRAINING, TESTING = "compiling", "training", "testing"


class Window:
    """What every training loop reports between two records: the mean loss over the window (NaN or infinity
    stops the run as diverged) and the throughput over the window's own training time.

    Losses may be tensors; they are fetched only when the window closes, so a loop does not wait for each step.
    """

    def __init__(self, rate_key: str) -> None:
        self.rate_key = rate_key
        self.losses: list[Any] = []
        self._steps, self._seconds = 0, 0.0

    def add_loss(self, loss: Any) -> None:
        self.losses.append(loss)

    def close(self, steps: int, seconds: float) -> dict[str, float]:
        """The window's metrics, given the loop's total steps and training seconds so far; opens the next."""
        metrics: dict[str, float] = {}
        if self.losses:
            loss = sum(float(x) for x in self.losses) / len(self.losses)  # not fsum: inf - inf is nan here
            if not math.isfinite(loss):
                raise DivergedError(f"the training loss became {loss} after {steps:,} steps.")
            metrics[LOSS] = loss
        if seconds > self._seconds and steps > self._steps:
            metrics[self.rate_key] = (steps - self._steps) / (seconds - self._seconds)
        self.losses, self._steps, self._seconds = [], steps, seconds
        return metrics


@dataclass(frozen=True)
class RunInfo:
    """What a loop tells its reporter before the first step."""

    kind: str
    total: int  # planned units of work (games, steps)
    unit: str
    config: dict[str, Any] = field(default_factory=dict)


class Reporter(Protocol):
    def on_start(self, info: RunInfo) -> None: ...

    def on_record(self, record: Record) -> bool:
        """Take a record; return False to ask the loop to stop."""
        ...

    def on_end(self, summary: dict[str, Any]) -> None: ...


class BufferedReporter:
    """Buffers records as metric rows (step, wall seconds, name, value) and sends them with the progress and phase
    at most every ``flush_seconds`` (at once when the phase changes); what a send answers, whether a cancel was
    asked for, becomes a stop. Subclasses say where the rows go (``send``)."""

    def __init__(self, flush_seconds: float = 0.5) -> None:
        self.flush_seconds = flush_seconds
        self.rows: list[tuple[int, float, str, float]] = []
        self.progress: float | None = None
        self.phase: str | None = None
        self.last_flush = 0.0
        self.last_step = 0
        self.cancelled = False
        self._lock = threading.Lock()  # rows also come from the system-metrics thread

    def add_rows(self, rows: list[tuple[int, float, str, float]]) -> None:
        """Rows from beside the training loop (system metrics); they go out with the next flush."""
        with self._lock:
            self.rows.extend(rows)

    def send(self, rows: list[tuple[int, float, str, float]], progress: float | None, phase: str | None) -> bool:
        """Deliver the rows; True when the run was asked to stop."""
        raise NotImplementedError

    def on_start(self, info: RunInfo) -> None:
        pass

    def on_record(self, record: Record) -> bool:
        with self._lock:
            self.rows.extend((record.step, record.wall_seconds, k, float(v)) for k, v in record.metrics.items())
        self.last_step = record.step
        self.progress = record.progress
        if record.phase:
            self.phase = record.phase
        if record.phase or time.monotonic() - self.last_flush >= self.flush_seconds:
            self.flush()
        return not self.cancelled

    def on_end(self, summary: dict[str, Any]) -> None:
        self.flush()

    def flush(self) -> None:
        with self._lock:
            rows, self.rows = self.rows, []
        self.cancelled = self.send(rows, self.progress, self.phase) or self.cancelled
        self.last_flush = time.monotonic()


class NullReporter:
    """Discards everything and never stops a run."""

    def on_start(self, info: RunInfo) -> None:
        pass

    def on_record(self, record: Record) -> bool:
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        pass


class ListReporter:
    """Keeps every record in memory; optionally asks to stop after ``stop_after`` records."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.info: RunInfo | None = None
        self.records: list[Record] = []
        self.summary: dict[str, Any] | None = None
        self.stop_after = stop_after

    def on_start(self, info: RunInfo) -> None:
        self.info = info

    def on_record(self, record: Record) -> bool:
        self.records.append(record)
        return self.stop_after is None or len(self.records) < self.stop_after

    def on_end(self, summary: dict[str, Any]) -> None:
        self.summary = summary


class PhaseClock:
    """Splits wall time into named phases: each ``lap`` adds the time since the previous one (nothing while
    ``paused``: a profiled step is no part of the run's phases)."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.seconds = dict.fromkeys(names, 0.0)
        self.paused = False
        self._t = time.perf_counter()

    def restart(self) -> None:
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if not self.paused:
            self.seconds[name] += now - self._t
        self._t = now
