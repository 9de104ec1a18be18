"""How the lab sees a person's own TensorFlow code without the code changing.

Two kinds of hooks, each a small wrapper put on one method of TensorFlow or Keras and taken off again:

- **Instruments**, while a profile window records (any run, the lab's own styles included): user-level calls are put
  on TensorFlow's timeline as spans named ``rlcore:<what>`` (``model.predict``, a tensor indexed eagerly
  (``q[i]``), a tensor fetched to Python: its ``.numpy()``, ``float()``, ``int()``; Keras's per-batch log
  conversion and each callback), so the capture's reader
  can say how much of a step each one took, in the code's own words. A ``tf.function`` call keeps the signature of
  its arguments, so a retrace can be told apart: a Python number that took a new value, or a new shape.
- **Steps**, for code that does not say where its steps are (a script run by ``rlcore profile``): an optimizer
  update is a step (Keras 3's ``apply``/``apply_gradients`` called eagerly), and so is each call of a
  ``tf.function`` whose trace applied gradients (the seed's ``training_step``); ``model.fit`` gets the lab's
  callback. Steps run from one update (or call) to the next, so a step's time includes the Python around it.

Nothing here imports TensorFlow until a hook is installed, which happens in a run's own process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

SPAN = "rlcore:"  # the prefix of every span the instruments put on the timeline
PREDICT, SYNC, CALLBACK, LOGS = SPAN + "predict", SPAN + "sync", SPAN + "callback:", SPAN + "logs"
INDEX = SPAN + "index"  # tensor[i] run eagerly: a slice launched from Python
LAUNCHES = SPAN + "ops"  # ops launched eagerly outside the spans (counted at the person's lines, never traced)


@dataclass
class _Patch:
    owner: Any
    name: str
    original: Any


class Patches:
    """Wrappers put on methods of TensorFlow's and Keras's classes, each taken off by ``remove`` (in reverse)."""

    def __init__(self) -> None:
        self._patches: list[_Patch] = []

    def wrap(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        original = owner.__dict__[name] if name in owner.__dict__ else getattr(owner, name)
        self._patches.append(_Patch(owner, name, original))
        setattr(owner, name, make(original))

    def remove(self) -> None:
        for patch in reversed(self._patches):
            setattr(patch.owner, patch.name, patch.original)
        self._patches = []

    def __bool__(self) -> bool:
        return bool(self._patches)


def _tf_function_class() -> type:
    from tensorflow.python.eager.polymorphic_function import polymorphic_function

    return polymorphic_function.Function


def _tensor_class() -> type:
    from tensorflow.python.framework import tensor

    return tensor.Tensor  # its __getitem__ is every tensor's slicing, eager or symbolic


def _eager_tensor_class() -> type:
    from tensorflow.python.framework import ops

    return ops._EagerTensorBase  # every fetch of an eager tensor's value goes through its _numpy


# ---------------------------------------------------------------- instruments (a profile window)


@dataclass
class Signature:
    """What a tf.function was called with, as its retrace cares: each argument a Python value, or a shape."""

    parts: tuple[tuple[str, str], ...]  # (argument name, "python 3" or "shape (100, 1) float32")


def signature(function: Any, args: tuple, kwargs: dict) -> Signature:
    """Each argument of a call as tf.function tells its calls apart: a tensor by dtype and shape, a Python value by
    its value (any new value traces again)."""
    import inspect

    try:
        names = list(inspect.signature(function._python_function).parameters)
    except (TypeError, ValueError, AttributeError):
        names = []
    bound = [(names[i] if i < len(names) else f"argument {i + 1}", a) for i, a in enumerate(args)]
    bound += sorted(kwargs.items())
    parts = []
    for name, value in bound:
        shape = getattr(value, "shape", None)
        if shape is not None and hasattr(value, "dtype"):
            parts.append((name, f"shape {tuple(shape)} {getattr(value.dtype, 'name', value.dtype)}"))
        elif isinstance(value, bool | int | float | str) or value is None:
            parts.append((name, f"python {value!r}"))
        else:
            parts.append((name, f"object {type(value).__name__}"))
    return Signature(tuple(parts))


def what_varied(before: Signature, after: Signature) -> str | None:
    """Why a call traced again, in the code's words: "a Python number `epoch` (3, then 4)", "the shape of `x`
    ((100, 1), then (101, 1))", or None when nothing visible changed."""
    old = dict(before.parts)
    for name, now in after.parts:
        then = old.get(name)
        if then is None or then == now:
            continue
        if now.startswith("python") and then.startswith("python"):
            return (f"a Python value `{name}` ({then.removeprefix('python ')}, then {now.removeprefix('python ')}):"
                    " every new value is a new graph")
        if now.startswith("shape") and then.startswith("shape"):
            return (f"the shape of `{name}` ({then.removeprefix('shape ')}, then {now.removeprefix('shape ')}): "
                    "every new shape is a new graph")
        return f"`{name}` ({then}, then {now})"
    if len(after.parts) != len(before.parts):
        return "the number of arguments"
    return None


@dataclass
class CallSite:
    """A line of the person's code that made a call the lab watches (a model.predict, a fetch, a slice): where it
    is, and how often and how long it ran while the lab looked."""

    file: str
    line: int
    function: str = ""
    code: str = ""
    calls: int = 0
    seconds: float = 0.0


@dataclass
class Retrace:
    function: str
    count: int = 0
    why: str | None = None
    called_at: tuple[str, int, str] | None = None  # the person's line that called it when it traced again
    defined_at: tuple[str, int, str] | None = None  # where the function is defined


class Instruments:
    """The spans and notes a profile window records. ``install`` once TensorFlow's profiler runs: the code's calls
    become spans on the timeline. ``locate`` for a few steps after the capture (no profiler then, so a stack walk
    costs the capture nothing): each call, and each op launched eagerly outside them, is counted at the line of the
    person's code that made it. ``retraces`` names each function traced again and what varied; ``functions`` what
    each tf.function called was made with (jit_compile, reduce_retracing)."""

    def __init__(self) -> None:
        self.patches = Patches()
        self.retraces: dict[str, Retrace] = {}
        self.functions: dict[str, dict[str, Any]] = {}
        self.locating = False
        self._sites: dict[str, dict[tuple[str, int, str], int]] = {}
        self._depth = 0  # spans open now: a fetch inside model.predict is predict's
        self._op_callback: Callable | None = None
        self._last: dict[int, Signature] = {}

    def install(self) -> None:
        if self.patches:
            return
        import tensorflow as tf

        instruments = self

        def span(name: str, original: Callable, *, eager_only: bool = False, direct: bool = False) -> Callable:
            def wrapped(*args: Any, **kwargs: Any) -> Any:
                if eager_only and not tf.executing_eagerly():  # a function's trace: its slices run in the graph
                    return original(*args, **kwargs)
                if direct and not called_by_person():  # TensorFlow's own fetches (inside tape.gradient) are not
                    return original(*args, **kwargs)  # the code's: their time stays with what holds them
                if instruments.locating:
                    if not instruments._depth:
                        instruments.note(name)
                    instruments._depth += 1
                    try:
                        return original(*args, **kwargs)
                    finally:
                        instruments._depth -= 1
                with tf.profiler.experimental.Trace(name):
                    return original(*args, **kwargs)
            wrapped.__wrapped__ = original  # type: ignore[attr-defined]
            return wrapped

        with contextlib.suppress(ImportError):
            import keras

            self.patches.wrap(keras.Model, "predict", lambda original: span(PREDICT, original))
            self._instrument_callbacks(tf)
        self.patches.wrap(_eager_tensor_class(), "_numpy", lambda original: span(SYNC, original, direct=True))
        self.patches.wrap(_tensor_class(), "__getitem__", lambda original: span(INDEX, original, eager_only=True))
        self.patches.wrap(_tf_function_class(), "__call__", self._noting_retraces)

    def locate(self) -> None:
        """From now on count calls at the person's lines instead of tracing them (the profiler has stopped), and
        each op launched eagerly outside the spans."""
        from tensorflow.python.framework import op_callbacks

        self.install()
        self.locating = True

        def launched(op_type: str, inputs: Any, attrs: Any, outputs: Any, op_name: Any = None,
                     graph: Any = None) -> None:
            if graph is None and not self._depth:
                self.note(LAUNCHES)

        self._op_callback = launched
        op_callbacks.add_op_callback(launched)

    def note(self, key: str) -> None:
        site = person_frame()
        if site is not None:
            counts = self._sites.setdefault(key, {})
            counts[site] = counts.get(site, 0) + 1

    def call_sites(self) -> dict[str, list[CallSite]]:
        """The person's lines behind each span (and the eager launches), most called first."""
        import linecache

        return {key: [CallSite(file, line, function, linecache.getline(file, line).strip(), calls)
                      for (file, line, function), calls in sorted(counts.items(), key=lambda kv: -kv[1])]
                for key, counts in self._sites.items()}

    def _instrument_callbacks(self, tf: Any) -> None:
        from keras.src.callbacks.callback_list import CallbackList
        from keras.src.utils import python_utils

        instruments = self

        def make(original: Callable) -> Callable:
            def on_train_batch_end(self: Any, batch: Any, logs: Any = None) -> None:
                if instruments.locating:
                    return original(self, batch, logs)
                with tf.profiler.experimental.Trace(LOGS):  # Keras fetches every batch's logs to Python
                    logs = python_utils.pythonify_logs(logs)
                for callback in self.callbacks:
                    with tf.profiler.experimental.Trace(CALLBACK + type(callback).__name__):
                        callback.on_train_batch_end(batch, logs=logs)
            return on_train_batch_end

        self.patches.wrap(CallbackList, "_on_train_batch_end", make)

    def _noting_retraces(self, original: Callable) -> Callable:
        instruments = self

        def __call__(function: Any, *args: Any, **kwargs: Any) -> Any:
            before = function.experimental_get_tracing_count()
            result = original(function, *args, **kwargs)
            now = signature(function, args, kwargs)
            name = getattr(function, "_name", None) or getattr(function, "__name__", "a tf.function")
            if name not in instruments.functions:
                instruments.functions[name] = {"jit_compile": bool(getattr(function, "_jit_compile", False)),
                                               "reduce_retracing": bool(getattr(function, "_reduce_retracing",
                                                                                False))}
            if function.experimental_get_tracing_count() > before and before > 0:
                note = instruments.retraces.setdefault(name, Retrace(name))
                note.count += 1
                previous = instruments._last.get(id(function))
                note.why = note.why or (what_varied(previous, now) if previous else None)
                note.called_at = note.called_at or person_frame()
                note.defined_at = note.defined_at or _defined_at(function)
            instruments._last[id(function)] = now
            return result
        return __call__

    def remove(self) -> None:
        if self._op_callback is not None:
            from tensorflow.python.framework import op_callbacks

            with contextlib.suppress(Exception):
                op_callbacks.remove_op_callback(self._op_callback)
            self._op_callback = None
        self.locating = False
        self.patches.remove()


# ---------------------------------------------------------------- where, in the person's code

def _lab_and_library_roots() -> tuple[str, ...]:
    """Folders whose code is not the person's: Python's own and installed packages, and the lab's harness (the
    lab's own workloads are code like a person's: their lines are named)."""
    import sysconfig
    from pathlib import Path

    lab = Path(__file__).resolve().parents[1]
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {str(lab / part) for part in ("contract", "tracking", "runs", "cli", "workloads/script")}
    roots |= {str(lab / "__init__.py"), str(lab / "keras.py")}
    return tuple(os.path.realpath(r) for r in roots)


_NOT_THEIRS = _lab_and_library_roots()


@functools.lru_cache(maxsize=4096)
def _persons(filename: str) -> bool:
    if not filename or filename.startswith("<"):
        return False
    return not os.path.realpath(filename).startswith(_NOT_THEIRS)


def person_frame(skip: int = 2) -> tuple[str, int, str] | None:
    """(file, line, function) of the innermost frame of the person's own code that led here, or None."""
    frame = sys._getframe(skip)
    while frame is not None:
        if _persons(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name
        frame = frame.f_back
    return None


NEAR = 4  # frames from a hook to the person's call: .numpy() -> _numpy, float() -> __float__ -> _numpy


def called_by_person(near: int = NEAR) -> bool:
    """Whether the person's own code made this call itself (within a few frames of the hook), not a library on its
    behalf (Keras's logs, a gradient's shape checks)."""
    frame = sys._getframe(2)
    for _ in range(near):
        if frame is None:
            return False
        if _persons(frame.f_code.co_filename):
            return True
        frame = frame.f_back
    return False


def _defined_at(function: Any) -> tuple[str, int, str] | None:
    """The ``def`` line of a tf.function's Python function (past its decorators)."""
    import linecache

    code = getattr(getattr(function, "_python_function", None), "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    while linecache.getline(code.co_filename, line).lstrip().startswith("@"):
        line += 1
    return code.co_filename, line, code.co_name


# ---------------------------------------------------------------- steps of code that does not mark them


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
        self._marked: set[int] = set()  # tf.functions whose trace applied gradients
        self._calls: list[Any] = []  # the tf.functions this thread is inside, outermost first
        self._thread = threading.get_ident()
        self._first = True
        self._active = True
        self._on_cancel = on_cancel
        self._names: dict[int, str] = {}  # each training function's name, by id
        self._scalars: dict[tuple[int, type, int], list[str]] = {}  # which results are float scalars, per trace

    # ------------------------------------------------------------ installing

    def install(self) -> None:
        import os

        import tensorflow as tf

        self._tf = tf
        self.patches.wrap(_tf_function_class(), "__call__", self._function_call)
        with contextlib.suppress(ImportError):
            from keras.src.optimizers.base_optimizer import BaseOptimizer

            self.patches.wrap(BaseOptimizer, "apply", self._optimizer_apply)
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
        return self._active and not self.standing_aside and threading.get_ident() == self._thread

    # ------------------------------------------------------------ the boundaries

    def boundary(self, kind: str) -> None:
        """A step ends here and the next begins (an update, or a training function's call)."""
        if self.run.step_open:
            self.run.end_step(compiles=self._first)
            self._first = False
            if self.run.stopped and self._on_cancel is not None:
                self._on_cancel()
        elif self.run.timed_steps == 0:
            self.run.restart_clock()  # the code's training begins here: its set-up is no part of the speed
        if not self.source.kind:
            self.source.kind = kind
        self.run.begin_step()

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
                        steps._marked.add(id(steps._calls[0]))
                else:
                    steps.boundary("optimizer updates")
            return original(optimizer, *args, **kwargs)
        return apply

    def _function_call(self, original: Callable) -> Callable:
        steps = self

        def __call__(function: Any, *args: Any, **kwargs: Any) -> Any:
            if not steps._counting() or steps._calls:  # nested calls belong to the outer one
                steps._calls.append(function)
                try:
                    return original(function, *args, **kwargs)
                finally:
                    steps._calls.pop()
            key = id(function)
            marked = key in steps._marked
            if marked:
                if key not in steps._names:  # marked while the lab stood aside (a trace inside model.fit)
                    steps._named(function)
                steps.boundary("calls of a training function")
            steps._calls.append(function)
            started = time.perf_counter()
            try:
                result = original(function, *args, **kwargs)
            finally:
                steps._calls.pop()
            if not marked and key in steps._marked:
                # This very call traced the function and found it applies gradients: it was the first step,
                # known only now; its time is compiling, not training.
                steps.run.add_compiled_step(time.perf_counter() - started)
                steps._first = False
                steps.source.kind = steps.source.kind or "calls of a training function"
                steps._named(function)
            if key in steps._marked:
                steps._take_loss(function, result)
            return result
        return __call__

    def _named(self, function: Any) -> None:
        name = self._names[id(function)] = _name(function)
        if name not in self.source.functions:
            self.source.functions.append(name)

    def _take_loss(self, function: Any, result: Any) -> None:
        """A scalar the training function returns is its loss (a dict's scalars are logged by name). Which of its
        results are float scalars is decided once per function and trace (this runs on every step)."""
        key = (id(function), type(result), function.experimental_get_tracing_count())
        scalars = self._scalars.get(key)
        if scalars is None:
            values = result.items() if isinstance(result, dict) else [("loss", result)]
            scalars = self._scalars[key] = [name for name, value in values if _float_scalar(value)]
            if "loss" in scalars:
                self.source.loss_from = self.source.loss_from or f"the value {self._names[id(function)]}() returns"
        if not scalars:
            return
        if not isinstance(result, dict):
            self.run.add_loss(result)
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


def _name(function: Any) -> str:
    return str(getattr(function, "_name", None) or getattr(function, "__name__", "a tf.function"))

