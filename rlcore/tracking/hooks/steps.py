"""Steps of code that does not mark them (a script run by ``rlcore profile``): an optimizer update, a call of a
tf.function whose trace applied gradients; and Ctrl-C deferred while a run's end is written."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from threading import get_ident
from typing import Any

from rlcore.tracking.hooks.patches import Patches, tf_function_class


@contextlib.contextmanager
def interrupts_deferred(*, swallow: bool = False) -> Iterator[None]:
    """Ctrl-C while a run's end is being written (its profile read, its summary stored) is held until it is
    written, then raised (``swallow``: dropped, the run ends cancelled anyway): a second Ctrl-C never leaves a
    traceback and an unrecorded run (main thread only)."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    heard: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: heard.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if heard and not swallow:
        raise KeyboardInterrupt


class Cancelled(BaseException):
    """Raised into a script at its next step when its run was cancelled: it ends the script as Ctrl-C would, and no
    ``except Exception`` in the script catches it."""


@dataclass
class StepSource:
    """What made the steps a run counted, for its summary: "optimizer updates", "calls of training_step",
    "model.fit's batches", "run.step()"."""

    kind: str = ""
    functions: list[str] = field(default_factory=list)
    batch_size: int | None = None
    steps_per_execution: int | None = None
    loss_from: str = ""  # where the charted loss came from ("what training_step returns", "Keras's logs")


class AutoSteps:
    """Finds the steps of code that does not mark them, and tells the run (a ``TrainingRun``): each optimizer update
    run eagerly, or each call of a tf.function whose trace applied gradients, is a step boundary (a step runs from
    one to the next); a scalar such a function returns is the step's loss. While ``model.fit`` runs, or once the
    code marks its own steps (``run.step()``), it stands aside. Only the thread that installed it counts (a
    data-loading thread's calls are not steps), and a forked child counts nothing."""

    def __init__(self, run: Any, *, on_cancel: Callable[[], None] | None = None) -> None:
        self.run = run
        self.source = StepSource()
        self.patches = Patches()
        self.standing_aside = 0  # > 0 while model.fit runs or the code marks steps itself
        self._marked: set[int] = set()  # tf.functions whose trace applied gradients (by ``_key``)
        self._calls: list[Any] = []  # the tf.functions this thread is inside, outermost first
        self._thread = get_ident()
        self._first = True
        self._active = True
        self._on_cancel = on_cancel
        self._names: dict[int, str] = {}  # each training function's name, by ``_key``
        self._scalars: dict[tuple[int, type, int], list[str]] = {}  # which results are float scalars, per trace

    # ------------------------------------------------------------ installing

    def install(self) -> None:

        import tensorflow as tf

        self._tf = tf
        self.patches.wrap(tf_function_class(), "__call__", self._function_call)
        with contextlib.suppress(ImportError):
            from keras.src.optimizers.base_optimizer import BaseOptimizer

            self.patches.wrap(BaseOptimizer, "apply", self._optimizer_apply)
        self.patches.wrap(tf.GradientTape, "gradient", self._gradient)
        os.register_at_fork(after_in_child=self._forked)

    def remove(self) -> None:
        self.patches.remove()

    def _forked(self) -> None:
        self._active = False  # a child process (a data loader) is no part of the run

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Count nothing meanwhile (model.fit's callback counts its batches)."""
        self.standing_aside += 1
        try:
            yield
        finally:
            self.standing_aside -= 1

    def _counting(self) -> bool:
        return self._active and not self.standing_aside and get_ident() == self._thread

    # ------------------------------------------------------------ the boundaries

    def boundary(self, kind: str) -> None:
        """A step ends here and the next begins (an update, or a training function's call)."""
        run = self.run
        if run.step_open:
            if not run.end_step(compiles=self._first) and self._on_cancel is not None:
                self._on_cancel()  # asked to stop (end_step answers whether to go on)
            self._first = False
        elif run.timed_steps == 0:
            run.restart_clock()  # the code's training begins here: its set-up is no part of the speed
        if not self.source.kind:
            self.source.kind = kind
        run.begin_step()

    def close(self) -> None:
        """The code ended: the step begun at its last update ends where the last update or call ended."""
        if self.run.step_open:
            self.run.end_step(compiles=self._first, report=False)

    def _optimizer_apply(self, original: Callable) -> Callable:
        steps = self

        def apply(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            if steps._counting():
                if steps._tf.inside_function():
                    if steps._calls:  # traced inside a tf.function: that function is a training step
                        steps._marked.add(_key(steps._calls[0]))
                else:
                    steps.boundary("optimizer updates")
            return original(optimizer, *args, **kwargs)
        return apply

    def _gradient(self, original: Callable) -> Callable:
        """A gradient taken inside a tf.function's trace makes it a training step too (an update written by hand,
        ``w.assign_sub(lr * grad)``, applies no optimizer). Eagerly, the optimizer's update stays the boundary."""
        steps = self

        def gradient(tape: Any, *args: Any, **kwargs: Any) -> Any:
            if steps._counting() and steps._calls and steps._tf.inside_function():
                steps._marked.add(_key(steps._calls[0]))
            return original(tape, *args, **kwargs)
        return gradient

    def _function_call(self, original: Callable) -> Callable:
        steps = self

        def __call__(function: Any, *args: Any, **kwargs: Any) -> Any:
            # ``_counting()`` written out (a frame fewer on every call); nested calls belong to the outer one
            if not steps._active or steps.standing_aside or get_ident() != steps._thread or steps._calls:
                steps._calls.append(function)
                try:
                    return original(function, *args, **kwargs)
                finally:
                    steps._calls.pop()
            key = _key(function)
            calls = steps._calls
            if key in steps._marked:  # a training step's call: the common case, kept short
                if key not in steps._names:  # marked while the lab stood aside (a trace inside model.fit)
                    steps._named(function)
                run = steps.run
                if steps._first or not run.steady:
                    steps.boundary("calls of a training function")
                elif not run.next_step() and steps._on_cancel is not None:  # the steady state: one call
                    steps._on_cancel()
                calls.append(function)
                try:
                    result = original(function, *args, **kwargs)
                finally:
                    calls.pop()
                steps._take_loss(function, result)
                return result
            calls.append(function)
            started = time.perf_counter()
            try:
                result = original(function, *args, **kwargs)
            finally:
                calls.pop()
            if key in steps._marked:
                # This very call traced the function and found it applies gradients: it was the first step,
                # known only now; its time is compiling, not training.
                steps.run.add_compiled_step(time.perf_counter() - started)
                steps._first = False
                steps.source.kind = steps.source.kind or "calls of a training function"
                steps._named(function)
                steps._take_loss(function, result)
            return result
        return __call__

    def _named(self, function: Any) -> None:
        name = self._names[_key(function)] = _name(function)
        if name not in self.source.functions:
            self.source.functions.append(name)

    def _take_loss(self, function: Any, result: Any) -> None:
        """A scalar the training function returns is its loss (a dict's scalars are logged by name). Which of its
        results are float scalars is decided once per function and trace (this runs on every step)."""
        key = (id(function), type(result), function.experimental_get_tracing_count())
        scalars = self._scalars.get(key)
        if scalars is None:  # a new function, result type or trace: decided once
            values = result.items() if isinstance(result, dict) else [("loss", result)]
            scalars = self._scalars[key] = [name for name, value in values if _float_scalar(value)]
            if "loss" in scalars:
                self.source.loss_from = self.source.loss_from or f"the value {self._names[_key(function)]}() returns"
        if not scalars:
            return
        if not isinstance(result, dict):
            self.run.window.add_loss(result)  # a float scalar (decided above): no need of add_loss's checks
            return
        for name in scalars:
            if name in result:
                if name == "loss":
                    self.run.add_loss(result[name])
                else:
                    self.run.log(**{name: result[name]})


def _float_scalar(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    return shape is not None and len(shape) == 0 and getattr(getattr(value, "dtype", None), "is_floating", False)


def _key(function: Any) -> int:
    """A training function by the Python function it wraps: a tf.function made anew every step (a habit the lab
    names) is still the same training step."""
    return id(getattr(function, "_python_function", None) or function)


def _name(function: Any) -> str:
    return str(getattr(function, "_name", None) or getattr(function, "__name__", "a tf.function"))
