"""The harness every training shares: the lab's own loops, a user's ``rlcore.init()`` run, the Keras callback and a
script's hooks all keep their books through one ``TrainingRun``.

A loop keeps only its algorithm (as SB3's ``DQN.train`` does on ``OffPolicyAlgorithm``); the run owns the rest:

- the clock: training seconds are the wall time since ``start`` less what is not training (``off_clock``: a test,
  an evaluation; making records), the profiled window, and steps that compile (``step(compiles=True)``: a first
  call that traces);
- steps (``with run.step(units=n):``, or ``begin_step``/``end_step`` where a callback sees a step's two ends), and
  the speed: the timed steps over the training seconds;
- phases (``with run.phase("act"):``): where the time of a step goes, charted as ``time/<phase>``;
- the profile window: TensorFlow's profiler started and stopped around N steps after warm-up, each inside a step
  marker xprof reads (``Trace("train", step_num=i, _r=1)``), those steps and seconds left out of the speed;
- records: the mean loss of the window (``add_loss``; tensors are fetched only when a record is made), the window's
  speed, the phases and what the loop logs (``log``, ``emit``), at most every ``report_every`` seconds; a NaN or
  infinite loss is divergence;
- cancel: ``step``/``log``/``emit`` answer whether to go on (``run.stopped``), as the reporter says;
- the machine: a sampler thread beside the training (``system/...`` rows), its summary in the run's;
- the summary, handed to the reporter at ``finish``.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from rlcore.contract import profile_text
from rlcore.contract.reporting import (
    LOSS,
    NO_NUMBER,
    PHASE_PREFIX,
    READING_PROFILE,
    STEPS_PER_S,
    TRAINING,
    DivergedError,
    LossWindow,
    NullReporter,
    Record,
    Reporter,
    RunInfo,
    TakesRows,
    kind_of,
    number,
)
from rlcore.contract.summary import RunSummary
from rlcore.tracking import capture, system_metrics

Clock = Callable[[], float]


class _Phase:
    """One named phase's timer (reused: a phase is entered every step, so it costs two clock reads)."""

    __slots__ = ("name", "run", "started")

    def __init__(self, run: TrainingRun, name: str) -> None:
        self.run, self.name, self.started = run, name, 0.0

    def __enter__(self) -> None:
        self.started = self.run.clock()

    def __exit__(self, *exc: object) -> None:
        if not self.run.capture.excluding:  # a profiled step is no part of the run's phases
            elapsed = self.run.clock() - self.started
            self.run.phase_seconds[self.name] += elapsed
            in_step = self.run.step_phase_seconds  # this step's, taken back if it turns out to have compiled
            in_step[self.name] = in_step.get(self.name, 0.0) + elapsed


class _Step:
    """``with run.step(units=n):`` around one step."""

    __slots__ = ("compiles", "report", "run", "units")

    def __init__(self, run: TrainingRun, units: int, compiles: bool, report: bool) -> None:
        self.run, self.units, self.compiles, self.report = run, units, compiles, report

    def __enter__(self) -> TrainingRun:
        self.run.begin_step()
        return self.run

    def __exit__(self, kind: object, *exc: object) -> None:
        self.run.end_step(self.units, compiles=self.compiles, report=self.report and kind is None)


class TrainingRun:
    """One run's bookkeeping. ``kind``/``unit``/``total``/``config`` tell the reporter what runs; ``rate_key`` names
    the speed metric; ``profile`` steps are recorded with TensorFlow's profiler from the ``profile_after``-th step
    on (kept in ``profile_dir``, by default the folder this process was given); ``progress`` says how far the run
    is (by default steps of ``total``); ``every_record`` gives metrics every record carries (games played);
    ``profile_counts_calls``: the profile's size counts steps taken (calls), not the units they hold."""

    def __init__(self, reporter: Reporter | None = None, *, kind: str, unit: str = "steps", total: int = 0,
                 config: Mapping[str, Any] | None = None, rate_key: str | None = STEPS_PER_S,
                 report_every: float = 0.5,
                 profile: int = 0, profile_after: int = 1, profile_dir: str | Path | None = None,
                 progress: Callable[[TrainingRun], float] | None = None,
                 every_record: Callable[[], Mapping[str, Any]] | None = None, profile_counts_calls: bool = False,
                 sample_system: bool = True, clock: Clock = time.perf_counter) -> None:
        self.reporter = reporter if reporter is not None else NullReporter()
        self.info = RunInfo(kind, total, unit, dict(config or {}))
        self.clock = clock
        self.report_every = report_every
        self.window = LossWindow(rate_key)
        self.capture = capture.window(profile, start=profile_after, logdir=profile_dir)
        self.phase_seconds: dict[str, float] = {}
        self.step_phase_seconds: dict[str, float] = {}  # the phases of the step under way
        self._phases: dict[str, _Phase] = {}
        self.steps = 0  # units of work done
        self.compile_steps = 0  # of them, done inside steps that compiled (not timed)
        self.compile_seconds = 0.0
        self.off_clock_seconds = 0.0
        self.reporting_seconds = 0.0  # time spent making records (the reporter's writes included)
        self.stopped = False
        self._progress = progress
        self._every_record = every_record
        self._profile_counts_calls = profile_counts_calls
        self._logged: dict[str, Any] = {}
        self._each: list[tuple[int, float, dict[str, Any]]] = []  # every logged value, with its step (log_each)
        self.not_charted: dict[str, str] = {}  # logged keys whose values were no numbers, and what they were
        self.raise_divergence = True  # False: a NaN loss stops the run (``diverged``) instead of raising
        self.diverged = ""
        self._t0: float | None = None
        self._frozen: float | None = None
        self._last_report = 0.0
        self._step_started = 0.0
        self._step_open = False
        self._paused_at: float | None = None
        self._last_step_end: float | None = None
        self._compiled_before_start = 0.0  # compile time spent before the clock (re)started
        self._sampler: Any = (system_metrics.sampler(self._sampled, lambda: self.steps)
                              if sample_system and isinstance(self.reporter, TakesRows) else system_metrics.NoSampler())

    # ------------------------------------------------------------ the clock

    @property
    def train_seconds(self) -> float:
        """Wall seconds of training so far: since ``start``, less the off-clock time, the profiled window and the
        steps that compiled (frozen by ``stop_clock``)."""
        if self._frozen is not None:
            return self._frozen
        if self._t0 is None:
            return 0.0
        now = self.clock()
        paused = now - self._paused_at if self._paused_at is not None else 0.0
        # Never below zero: a run of one step that compiled has no training time left, not less than none.
        return max(0.0, now - self._t0 - self.off_clock_seconds - self.reporting_seconds - paused
                   - self.capture.excluded_seconds - (self.compile_seconds - self._compiled_before_start))

    @property
    def timed_steps(self) -> int:
        """The steps the speed counts: all but the profiled ones and those that compiled."""
        return self.steps - self.capture.excluded_steps - self.compile_steps

    @property
    def steps_per_second(self) -> float:
        seconds = self.train_seconds
        return self.timed_steps / seconds if seconds > 0 else 0.0

    @property
    def progress(self) -> float:
        if self._progress is not None:
            return self._progress(self)
        return min(1.0, self.steps / self.info.total) if self.info.total else 0.0

    def restart_clock(self) -> None:
        """Training starts now (code that does not say where its training begins: its first step): what came
        before, the script's set-up and a first call that compiled, is no part of the training seconds."""
        self._t0 = self.clock()
        self.off_clock_seconds = self.reporting_seconds = 0.0
        self._compiled_before_start = self.compile_seconds
        self.window.restart(self.timed_steps)

    def add_compiled_step(self, seconds: float, units: int = 1) -> None:
        """A step that is known to have been one only after it ran (a first call that traced and compiled)."""
        self.steps += units
        self.compile_steps += units
        self.compile_seconds += seconds

    def stop_clock(self, *, at_last_step: bool = False) -> float:
        """Training is over: the profiler stops if it still records, and the training seconds stay as they are
        (``at_last_step``: as they were when the last step ended: what a script does after training is not)."""
        self.capture.finish()
        self.resume()
        if self._frozen is None:
            if at_last_step and self._last_step_end is not None and self._t0 is not None:
                self._frozen = max(0.0, self._last_step_end - self._t0 - self.off_clock_seconds
                                   - self.reporting_seconds - self.capture.excluded_seconds
                                   - (self.compile_seconds - self._compiled_before_start))
            else:
                self._frozen = self.train_seconds
        return self._frozen

    @contextlib.contextmanager
    def off_clock(self) -> Iterator[None]:
        """Time that is not training (a test, an evaluation): left out of the training seconds."""
        self.pause()
        try:
            yield
        finally:
            self.resume()

    def pause(self) -> None:
        """Time from now on is not training (``resume`` ends it): what a callback sees as two events (Keras's
        validation at an epoch's end)."""
        if self._paused_at is None:
            self._paused_at = self.clock()

    def resume(self) -> None:
        if self._paused_at is not None:
            self.off_clock_seconds += self.clock() - self._paused_at
            self._paused_at = None

    # ------------------------------------------------------------ lifecycle

    def start(self, phase: str | None = TRAINING) -> bool:
        """Tell the reporter the run begins, start the clock and the machine's sampler, and make a first record
        naming ``phase`` (None: no record yet); False if asked to stop."""
        self.reporter.on_start(self.info)
        self._sampler.__enter__()
        self._t0 = self._last_report = self.clock()
        return self.emit(phase=phase) if phase is not None else True

    def finish(self, summary: Mapping[str, Any] | None = None) -> RunSummary:
        """The run ends: the clock stops, the sampler takes its last reading, the reporter gets the summary (with
        what the machine did). Returns that summary, typed (``RunSummary``: made here, where the run ends)."""
        self.stop_clock()
        self._sampler.__exit__(None, None, None)
        full = RunSummary(summary or {})
        if self.not_charted:
            full["not_charted"] = dict(self.not_charted)
        system = self._sampler.summary()
        if system:
            full["system"] = system
        self.reporter.on_end(full)
        return full

    # ------------------------------------------------------------ steps and phases

    def begin_step(self) -> None:
        """A step begins (the profile window may open here, and its step marker)."""
        self.capture.begin()
        self._step_open = True
        if self.step_phase_seconds:  # (a new dict only when the step before had phases: this runs every step)
            self.step_phase_seconds = {}
        self._step_started = self.clock()

    @property
    def step_open(self) -> bool:
        return self._step_open

    def end_step(self, units: int = 1, *, compiles: bool = False, report: bool = True) -> bool:
        """The step begun last ends, having done ``units`` of work; ``compiles``: it traced or compiled, so its time
        is compile time, not training. Reports when a record is due; False when the run is asked to stop."""
        now = self.clock()
        elapsed = now - self._step_started
        profiled = self.capture.end(units, 1 if self._profile_counts_calls else None)
        self._step_open = False
        self._last_step_end = now
        self.steps += units
        if compiles and not profiled:
            self.compile_seconds += elapsed
            self.compile_steps += units
            for name, seconds in self.step_phase_seconds.items():  # a compiling step is no part of the phases
                self.phase_seconds[name] -= seconds
        if report and self._due_at(now):  # ``tick`` with the clock already read (this runs every step)
            return self.emit()
        return not self.stopped

    def next_step(self, units: int = 1, *, report: bool = True) -> bool:
        """``end_step()`` then ``begin_step()`` in one clock read, for steps that follow each other with nothing
        between (AutoSteps's boundaries, the Keras callback's batches), once the profile window has nothing more
        to do and the step had no phases (``steady``). This runs every step of a person's script, between two
        calls of their training function, where each frame and attribute costs several times what it costs warm
        (issue 52), so it does only what such a step needs (``units``, ``report`` as ``end_step``'s). False when
        the run is asked to stop."""
        now = self.clock()
        self.steps += units
        self._last_step_end = self._step_started = now
        if report and now - self._last_report >= self.report_every and self._t0 is not None:
            return self.emit()
        return not self.stopped

    @property
    def steady(self) -> bool:
        """Whether ``next_step`` may stand for ``end_step`` and ``begin_step``: a step is open, the profile window
        is settled and the step under way had no phases."""
        return self._step_open and self.capture.settled and not self.step_phase_seconds

    def step(self, units: int = 1, *, compiles: bool = False, report: bool = True) -> _Step:
        """``with run.step():`` around one step (``units``: the steps it holds, such as K per compiled call);
        ``report=False``: the loop makes its records itself (``tick``) where they fit its algorithm."""
        return _Step(self, units, compiles, report)

    def advance(self, units: int = 1) -> None:
        """Count work done elsewhere (a child process measured a cell): no step marker, no timing."""
        self.steps += units

    def phase(self, name: str) -> _Phase:
        """``with run.phase("act"):``: the time inside adds to the phase (not while the profiler records)."""
        timer = self._phases.get(name)
        if timer is None:
            timer = self._phases[name] = _Phase(self, name)
            self.phase_seconds.setdefault(name, 0.0)
        return timer

    def declare_phases(self, *names: str) -> None:
        """Name the phases up front, so every record carries all of them in this order (0 until they run)."""
        for name in names:
            self.phase(name)

    # ------------------------------------------------------------ records

    def add_loss(self, loss: Any) -> None:
        """A step's loss (a tensor is fetched only when the next record is made); one that can be no number (text,
        a dict) is said once and left out."""
        if loss is None or isinstance(loss, NO_NUMBER):
            self._numbers({"loss": loss})
            return
        self.window.add_loss(loss)

    def log(self, **metrics: Any) -> bool:
        """Metrics of the current step, by name (``loss`` is the run's loss; others keep their names). They leave
        with the next record; False when the run is asked to stop."""
        if "loss" in metrics:
            self.add_loss(metrics.pop("loss"))
        self._logged.update(metrics)
        return self.tick()

    def log_each(self, **metrics: Any) -> bool:
        """As ``log``, and every value is kept at its own step (W&B and MLflow keep every logged value; a record
        alone would keep one per window), where the reporter takes rows."""
        if isinstance(self.reporter, TakesRows):
            self._each.append((self.steps, self.train_seconds, dict(metrics)))
        return self.log(**metrics)

    def _each_rows(self) -> list[tuple[int, float, str, float]]:
        rows = []
        for step, seconds, metrics in self._each:
            for key, value in metrics.items():
                x = number(value)
                if x is not None:
                    rows.append((step, seconds, LOSS if key == "loss" else key, x))
        self._each = []
        return rows

    @property
    def record_due(self) -> bool:
        """Whether ``report_every`` seconds passed since the last record (never while the profiler records: its
        steps are no part of the speed)."""
        return self._due_at(self.clock())

    def _due_at(self, now: float) -> bool:
        return (not self.capture.excluding and self._t0 is not None
                and now - self._last_report >= self.report_every)

    def tick(self) -> bool:
        """Make a record if one is due; False when the run is asked to stop."""
        return self.emit() if self.record_due else not self.stopped

    def emit(self, metrics: Mapping[str, Any] | None = None, *, phase: str = "", step: int | None = None,
             last: bool = False) -> bool:
        """A record now: the window's loss and speed, what was logged, ``metrics``, the phases; False when the
        reporter asks the run to stop. ``last``: the loop's final record (a short tail gives no speed)."""
        started = self.clock()
        seconds = self.train_seconds
        values = dict(self._every_record()) if self._every_record else {}
        try:
            values.update(self.window.close(self.timed_steps, seconds, last=last))
        except DivergedError as e:
            if self.raise_divergence:
                raise
            self.diverged, self.stopped = str(e), True  # a person's own loop hears it as a stop, not an exception
            return False
        values.update(self._numbers(self._logged))
        self._logged = {}
        kept = self._each_rows()
        if kept:  # every logged value went as a row of its own: the record does not repeat them as one
            self.reporter.add_rows(kept)
            for _, _, key, _ in kept:
                values.pop(key, None)
        if metrics:
            values.update(self._numbers(metrics))
        values.update({PHASE_PREFIX + name: s for name, s in self.phase_seconds.items()})
        record = Record(self.steps if step is None else step, seconds, values, self.progress, phase)
        if not self.reporter.on_record(record):
            self.stopped = True
        self._last_report = self.clock()
        if self._paused_at is None and self._frozen is None:
            self.reporting_seconds += self._last_report - started  # making a record is bookkeeping, not training
        return not self.stopped

    def _numbers(self, logged: Mapping[str, Any]) -> dict[str, float]:
        """The logged values that are numbers (NaN and infinity kept: charted as gaps); each key whose value is no
        number is said once, in one sentence, and left out (the run goes on)."""
        out = {}
        for key, value in logged.items():
            x = number(value)
            if x is not None:
                out[key] = x
            elif key not in self.not_charted:
                self.not_charted[key] = kind_of(value)
                print(f"rlcore: {key!s:.80} is {self.not_charted[key]}, not a number, so it is not charted (the run "
                      "goes on).", file=sys.stderr)
        return out

    def read_profile(self, *, compile_seconds: float = 0.0, train_seconds: float = 0.0, steps_per_marker: int = 1,
                     facts: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """What the profile window recorded, read and explained, as the run's summary stores it (None when no
        profile was asked for); the run shows it is reading meanwhile. ``facts``: what the run knows that the capture
        does not (Keras's steps_per_execution, the run's steps)."""
        captured = self.capture.result()
        if captured is None:
            return None
        from rlcore.tracking import why  # reads with xprof: only a run that profiled pays its import

        self.emit(phase=READING_PROFILE)
        return profile_text.as_json(why.profile(captured, compile_seconds=compile_seconds, train_seconds=train_seconds,
                                                steps_per_marker=steps_per_marker, facts=facts))

    def _sampled(self, rows: list[tuple[int, float, str, float]]) -> None:
        if isinstance(self.reporter, TakesRows):
            self.reporter.add_rows(rows)
