"""Instruments, while a profile window records: user-level calls as spans on TensorFlow's timeline, the person's
call sites behind them, and each tf.function call's signature, so a retrace is told apart (a Python value, a
shape)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rlcore.tracking.hooks.patches import (
    CALLBACK,
    CALLS,
    INDEX,
    LAUNCHES,
    LOGS,
    PREDICT,
    SYNC,
    Patches,
    eager_tensor_class,
    tensor_class,
    tf_function_class,
)
from rlcore.tracking.hooks.where import called_by_person, defined_at, person_frame


@dataclass
class Signature:
    """What a tf.function was called with, as its retrace cares: each argument a Python value, or a shape."""

    parts: tuple[tuple[str, str], ...]  # (argument name, "python 3" or "shape (100, 1) float32")


@functools.lru_cache(maxsize=256)
def _parameter_names(python_function: Any) -> tuple[str, ...]:
    """A function's parameter names, read once (``inspect.signature`` costs tens of µs: every call of a tf.function
    in the profiled window asks)."""
    import inspect

    try:
        return tuple(inspect.signature(python_function).parameters)
    except (TypeError, ValueError):
        return ()


def signature(function: Any, args: tuple, kwargs: dict) -> Signature:
    """Each argument of a call as tf.function tells its calls apart: a tensor by dtype and shape, a Python value by
    its value (any new value traces again)."""
    names = _parameter_names(getattr(function, "_python_function", None))
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


MADE_AT = "_rlcore_made_at"  # the person's line that made a tf.function during the window, kept on it
# Frames from Function.__init__ to the person's tf.function(...) call: TensorFlow's decorated, function and three
# deprecation wrappers (TF 2.21), and a fix's wrapper; Keras's own functions are made further from the person's fit.
MADE_NEAR = 8


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
        # tf.functions made while the window records (a new object each step traces each step, and its
        # tracing_count never grows): by name, how many were first traced here, where made and where called
        self.made: dict[str, Retrace] = {}
        # numpy arrays handed to a tf.function (converted to tensors at every call): by name, (calls, the largest
        # array's bytes, the person's line that called it)
        self.numpy_args: dict[str, tuple[int, int, tuple[str, int, str] | None]] = {}
        self.callbacks: dict[str, tuple[str, int, str] | None] = {}  # Keras callbacks by class: their batch hook's def

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
        self.patches.wrap(eager_tensor_class(), "_numpy", lambda original: span(SYNC, original, direct=True))
        self.patches.wrap(tensor_class(), "__getitem__", lambda original: span(INDEX, original, eager_only=True))
        self.patches.wrap(tf_function_class(), "__call__", self._noting_retraces)
        self.patches.wrap(tf_function_class(), "__init__", self._noting_where_made)

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
                    name = type(callback).__name__
                    if name not in instruments.callbacks:  # its on_train_batch_end, where the person wrote it
                        instruments.callbacks[name] = defined_at(type(callback).on_train_batch_end,
                                                                 persons_only=True)
                    with tf.profiler.experimental.Trace(CALLBACK + name):
                        callback.on_train_batch_end(batch, logs=logs)
            return on_train_batch_end

        self.patches.wrap(CallbackList, "_on_train_batch_end", make)

    def _noting_retraces(self, original: Callable) -> Callable:
        instruments = self

        def __call__(function: Any, *args: Any, **kwargs: Any) -> Any:
            if instruments.locating and not instruments._depth:  # the person's line that calls it, after the capture
                instruments.note(CALLS)
            before = function.experimental_get_tracing_count()
            arrays = [a.nbytes for a in (*args, *kwargs.values()) if type(a).__module__ == "numpy"
                      and hasattr(a, "nbytes")]
            result = original(function, *args, **kwargs)
            after = function.experimental_get_tracing_count()
            now = signature(function, args, kwargs)
            name = getattr(function, "_name", None) or getattr(function, "__name__", "a tf.function")
            if name not in instruments.functions:
                instruments.functions[name] = {"jit_compile": bool(getattr(function, "_jit_compile", False)),
                                               "reduce_retracing": bool(getattr(function, "_reduce_retracing",
                                                                                False))}
            if before == 0 and after > 0 and hasattr(function, MADE_AT):
                note = instruments.made.setdefault(name, Retrace(name, why="a new tf.function made while training"))
                note.count += 1
                note.called_at = note.called_at or person_frame()
                note.defined_at = note.defined_at or getattr(function, MADE_AT)
            if after > before > 0:
                note = instruments.retraces.setdefault(name, Retrace(name))
                note.count += 1
                previous = instruments._last.get(id(function))
                note.why = note.why or (what_varied(previous, now) if previous else None)
                note.called_at = note.called_at or person_frame()
                note.defined_at = note.defined_at or defined_at(function)
            instruments._last[id(function)] = now
            if arrays:
                calls, largest, site = instruments.numpy_args.get(name, (0, 0, None))
                instruments.numpy_args[name] = (calls + 1, max(largest, *arrays), site or person_frame())
            return result
        return __call__

    def _noting_where_made(self, original: Callable) -> Callable:
        def __init__(function: Any, *args: Any, **kwargs: Any) -> None:
            original(function, *args, **kwargs)
            site = person_frame() if called_by_person(near=MADE_NEAR) else None
            if site is not None:  # made by the person's code while the window records (not by Keras or the lab)
                with contextlib.suppress(AttributeError):
                    setattr(function, MADE_AT, site)
        return __init__

    def remove(self) -> None:
        if self._op_callback is not None:
            from tensorflow.python.framework import op_callbacks

            with contextlib.suppress(Exception):
                op_callbacks.remove_op_callback(self._op_callback)
            self._op_callback = None
        self.locating = False
        self.patches.remove()
