"""The capture window: TensorFlow's profiler started and stopped around N training steps after warm-up, each step
inside a step marker xprof reads (``Trace("train", step_num=i, _r=1)``), the code's own calls named on the timeline
meanwhile (``hooks.Instruments``), and the window's time and steps left out of the run's throughput (the loop asks
``window.capturing``).

The capture is kept in the layout TensorBoard's profile plugin and xprof open
(``<logdir>/plugins/profile/<session>/<host>.xplane.pb``). What the window hands on is a ``Captured``: the file and
the instruments' notes; reading it is the next stage's (``tracking.xplane``), then the rules', then the profile's.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rlcore.tracking import waits
from rlcore.tracking.hooks import CallSite, Instruments, Patches
from rlcore.tracking.machine import PROFILE_DIR_ENV  # where this process keeps a capture (CLI, worker, Ray task)

STEP_MARKER = "train"  # the name of each captured step's marker on the timeline (TensorBoard's step markers)
PROFILE_DIR = "profile"  # a run's capture, under its folder: open it with `xprof --logdir <run folder>/profile`


@dataclass(frozen=True)
class Captured:
    """What a window recorded: the capture file and its folder, the steps asked for, or why there is none; the
    functions traced again with what varied, and the person's lines the instruments saw, per span."""

    wanted: int
    path: Path | None = None
    logdir: Path | None = None
    error: str = ""
    retraces: dict[str, str] = field(default_factory=dict)
    calls: dict[str, list[CallSite]] = field(default_factory=dict)
    where_steps: int = 0  # the steps the person's lines were counted in
    retrace_sites: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # function -> (called at, defined at)
    functions: dict[str, dict[str, Any]] = field(default_factory=dict)  # each tf.function's jit_compile, retracing
    made: dict[str, tuple[int, Any, Any]] = field(default_factory=dict)  # tf.functions made in the window: (count,
    # the line that made them, the line that called them)
    numpy_args: dict[str, tuple[int, int, Any]] = field(default_factory=dict)  # (calls, largest bytes, called at)
    callbacks: dict[str, Any] = field(default_factory=dict)  # Keras callbacks by class: their batch hook's def
    resized: str = ""  # how the window was sized to a run shorter than it
    # The process's CPU time inside each recorded step, on average: what the step costs the machine whatever else
    # runs beside it (a busy core stretches a step's wall time, not its CPU time); 0 when unknown.
    cpu_seconds_per_marker: float = 0.0


WHERE_STEPS = 3  # steps after the capture in which the person's lines are counted (a stack walk per call)


class ProfileWindow:
    """Captures ``steps`` training steps of a loop, starting at its ``start``-th step (after warm-up), then counts
    for ``where_steps`` more steps which lines of the person's code made the calls the capture timed (stack walks
    cost, so never while the profiler records). The loop wraps each step in ``window.step()`` and leaves out of its
    throughput the steps and seconds for which ``excluding`` was true (``excluded_steps``, ``excluded_seconds``,
    counted in the loop's own units)."""

    def __init__(self, steps: int, logdir: str | Path | None, start: int = 1, where_steps: int = WHERE_STEPS,
                 *, temporary: bool = False) -> None:
        # ``temporary``: no folder given; one is made when the profiler starts (a window that never opens, a run
        # shorter than its start, leaves no empty folder behind in /tmp)
        self.wanted, self.logdir, self.start = steps, Path(logdir) if logdir else None, start
        self._temporary = temporary and self.logdir is None
        self.where_steps = where_steps
        self.seen = self.captured = self.located = 0
        self.capturing = self.locating = False
        self._located_from = 0.0
        self.excluded_seconds = 0.0
        self.excluded_steps = 0
        self.error: str | None = None
        self.resized = ""  # said when the window was sized to a run shorter than it (``fit_to``)
        self._t0 = 0.0
        self._trace: Any = None
        self._cpu_from = 0.0
        self._waited_from: int | None = None
        self.cpu_seconds, self.markers = 0.0, 0
        self._yielding = Patches()
        self.instruments = Instruments()
        self._settle()  # ``settled``: nothing more to do at a step

    def fit_to(self, total_steps: int) -> None:
        """The run says how many steps it will have (model.fit knows its batches): a window that would begin or end
        past them is sized to the steps there are, before it begins, and the reading says so."""
        if self.seen or self.capturing or not self.wanted or not 2 <= total_steps < self.start + self.wanted:
            return
        # A quarter to warm up, then half of what is left profiled: the lines are counted after it and the rest
        # stays timed (the run's own speed needs steps outside the window too).
        start = max(1, min(self.start, total_steps // 4))
        left = total_steps - start - self.where_steps
        wanted = max(1, min(self.wanted, left // 2))
        self.resized = (f"The window was sized to the {total_steps:,} steps the run has: {wanted:,} profiled after "
                        f"{start:,} warm-up (asked: {self.wanted:,} after {self.start:,}).")
        self.start, self.wanted = start, wanted

    def _settle(self) -> None:
        """``settled``: the window has nothing more to do at any step (none asked, it could not start, or it has
        captured and counted its steps), so a loop may skip ``begin`` and ``end`` (AutoSteps's every-call path)."""
        self.settled = (not self.active or self.error is not None
                        or (not self.capturing and not self.locating and self.captured >= self.wanted))

    @property
    def excluding(self) -> bool:
        """Whether the steps now are no part of the run's speed (captured, or counted at the person's lines)."""
        return self.capturing or self.locating

    @property
    def active(self) -> bool:
        return self.wanted > 0 and (self.logdir is not None or self._temporary)

    @property
    def pending(self) -> bool:
        """Whether the window still wants steps: a loop bounded by time runs on until it has them (the profiled
        steps are no part of its time), so a profile never depends on how fast the machine is."""
        return self.active and not self.error and self.captured < self.wanted

    def begin(self) -> bool:
        """A step of the loop begins: the profiler starts when the window opens, and a step marker (xprof's
        ``_r=1`` root event) opens around the step. True when this step is recorded."""
        self._trace = None
        if not self.active or self.error or self.captured >= self.wanted:
            return False
        if self.seen >= self.start and not self.capturing:
            self._begin()
        if not self.capturing:
            return False
        import tensorflow as tf

        self._trace = tf.profiler.experimental.Trace(STEP_MARKER, step_num=self.captured, _r=1)
        self._trace.__enter__()
        self._cpu_from = time.process_time()
        self._waited_from = waits.waited()
        return True

    def end(self, units: int = 1, counted: int | None = None) -> bool:
        """The step ends (``units``: the loop's own steps it held, such as K per call, left out of its speed;
        ``counted``: what it counts toward the window's size, when that is not its units: turbo's window counts
        calls of its compiled loop); True when it was recorded."""
        self.seen += 1
        if self.locating:
            self.located += 1
            self.excluded_steps += units
            if self.located >= self.where_steps:
                self._stop_locating()
            return True
        trace, self._trace = self._trace, None
        if trace is None:
            return False
        self.cpu_seconds += time.process_time() - self._cpu_from
        self.markers += 1
        waited = waits.waited()
        if waited is not None and self._waited_from is not None:
            trace.set_metadata(**{waits.WAITED: waited - self._waited_from})
        trace.__exit__(None, None, None)
        self.captured += units if counted is None else counted
        self.excluded_steps += units
        if self.captured >= self.wanted:
            self._stop_capture()
            if self.where_steps and not self.error:
                self._start_locating()
        return True

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        """Around one step of the loop (``units``: the loop's own steps it holds, such as K per call)."""
        self.begin()
        try:
            yield
        finally:
            self.end(units)

    def _begin(self) -> None:
        import tensorflow as tf

        self._t0 = time.perf_counter()
        if self.logdir is None:
            self.logdir = Path(tempfile.mkdtemp(prefix="rlcore-profile-"))
        try:
            tf.profiler.experimental.start(str(self.logdir), options=tf.profiler.experimental.ProfilerOptions(
                host_tracer_level=3, python_tracer_level=0, device_tracer_level=1))
        except Exception as e:  # another capture runs in this process, or the profiler is unavailable
            self.error = (f"TensorFlow's profiler could not start ({type(e).__name__}: "
                          f"{str(e).strip().splitlines()[0][:200] if str(e).strip() else 'no reason given'}), "
                          "so this run has no profile; its numbers are unaffected.")
            self._settle()
            return
        self.capturing = True
        self.instruments.install()  # the code's own calls named on the timeline while it records
        self._give_way_to_the_code()

    def _give_way_to_the_code(self) -> None:
        """Code that starts TensorFlow's profiler itself while the window records (its own capture, a
        TensorBoard callback's) gets it: the window ends there and says so, the code's start goes ahead."""
        from tensorflow._api.v2.profiler import experimental as api
        from tensorflow.python.profiler import profiler_v2

        window = self

        def make(original: Any) -> Any:
            def start(*args: Any, **kwargs: Any) -> Any:
                if window.capturing:
                    window.error = ("Your code started TensorFlow's profiler itself while the lab's window "
                                    "recorded, so the lab's window gave way: this run has no profile of its own (the "
                                    "capture your code asked for is yours); its numbers are unaffected.")
                    window._stop_capture()
                return original(*args, **kwargs)
            return start

        self._yielding = Patches()
        for owner in (api, profiler_v2):
            self._yielding.wrap(owner, "start", make)

    def finish(self) -> None:
        """Stop the capture and the counting (when the loop ends before the window is full, too)."""
        self._stop_capture()
        self._stop_locating()

    def _stop_capture(self) -> None:
        if not self.capturing:
            return
        import tensorflow as tf

        self._yielding.remove()
        self.instruments.remove()
        with contextlib.suppress(Exception):
            tf.profiler.experimental.stop()
        self.capturing = False
        self.excluded_seconds += time.perf_counter() - self._t0
        self._settle()

    def _start_locating(self) -> None:
        self._located_from = time.perf_counter()
        self.locating = True
        self._settle()
        self.instruments.locate()

    def _stop_locating(self) -> None:
        if not self.locating:
            return
        self.instruments.remove()
        self.locating = False
        self.excluded_seconds += time.perf_counter() - self._located_from
        self._settle()

    def _too_short(self) -> str:
        """Why there is no profile when the run ended first, and the window that would fit the steps it had."""
        seen = self.seen
        text = (f"The run ended after {seen:,} training step{'s' if seen != 1 else ''}, before its profiled window "
                f"began (after {self.start:,} warm-up steps, {self.wanted:,} profiled), so it has no profile.")
        if seen >= 2:
            warmup = max(1, seen // 3)
            steps = max(1, min(self.wanted, seen - warmup))
            text += (f" To fit it: --warmup {warmup} --steps {steps} (rlcore.init: warmup={warmup}, profile={steps}; "
                     "fewer warm-up steps may leave the first trace in the profile).")
        else:
            text += " Too few steps to profile: let it run longer."
        return text

    def result(self) -> Captured | None:
        """What the window recorded, for the reading (None when no profile was asked for)."""
        if not self.wanted:
            return None
        self.finish()
        retraces = {name: note.why or "" for name, note in self.instruments.retraces.items()}
        if self.error:
            return Captured(self.wanted, error=self.error)
        captures = sorted(self.logdir.glob("plugins/profile/*/*.xplane.pb")) if self.logdir else []
        if not self.captured or not captures:
            return Captured(self.wanted, error=self._too_short())
        return Captured(self.wanted, captures[-1], self.logdir, retraces=retraces,
                        calls=self.instruments.call_sites(), where_steps=self.located,
                        retrace_sites={name: (note.called_at, note.defined_at)
                                       for name, note in self.instruments.retraces.items()},
                        functions=dict(self.instruments.functions),
                        made={name: (note.count, note.defined_at, note.called_at)
                              for name, note in self.instruments.made.items()},
                        numpy_args=dict(self.instruments.numpy_args), callbacks=dict(self.instruments.callbacks),
                        resized=self.resized,
                        cpu_seconds_per_marker=self.cpu_seconds / self.markers if self.markers else 0.0)


def capture_files(logdir: Path) -> dict[str, bytes]:
    """The capture's files as a run keeps them (paths under the run's folder), for executors that return bytes."""
    return {str(Path(PROFILE_DIR) / p.relative_to(logdir)): p.read_bytes()
            for p in sorted(logdir.rglob("*")) if p.is_file()}


class NoWindow:
    """The window of a run that profiles nothing: every step passes straight through."""

    capturing = locating = excluding = False
    excluded_seconds = 0.0
    excluded_steps = 0
    active = False
    pending = False
    settled = True
    error = None

    def begin(self) -> bool:
        return False

    def end(self, units: int = 1, counted: int | None = None) -> bool:
        return False

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        yield

    def finish(self) -> None:
        pass

    def fit_to(self, total_steps: int) -> None:
        pass

    def result(self) -> None:
        return None


def window(steps: int, start: int = 1, logdir: str | Path | None = None) -> ProfileWindow | NoWindow:
    """The profiling window of a loop: ``steps`` steps from its ``start``-th, kept in ``logdir`` (by default the
    folder this process was given in RLCORE_PROFILE_DIR, else a temporary one)."""
    if steps <= 0:
        return NoWindow()
    if logdir is None:
        logdir = os.environ.get(PROFILE_DIR_ENV) or None
    return ProfileWindow(steps, logdir, start, temporary=logdir is None)
