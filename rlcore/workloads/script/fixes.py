"""The fixes the lab can try on a person's script without editing it (``rlcore profile --try-fixes``, "Try the
fixes"): each is a small patch put on TensorFlow or Keras before the script runs, in that run's process only, so the
same script, the same steps, run again with one change, and the two speeds stand side by side.

A cause's rule names the fix that answers it (``Rule.try_fix``); this module is where each name is carried out.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from rlcore.tracking.hooks import Patches, called_by_person
from rlcore.workloads.script.config import FIXES as SCRIPT_FIXES

STEPS_PER_EXECUTION = 32


def _steps_per_execution(patches: Patches) -> None:
    import keras

    def make(original: Callable) -> Callable:
        def compile(model: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs["steps_per_execution"] = max(STEPS_PER_EXECUTION, int(kwargs.get("steps_per_execution") or 1))
            return original(model, *args, **kwargs)
        return compile

    patches.wrap(keras.Model, "compile", make)


def _function_option(patches: Patches, option: str) -> None:
    """Every tf.function the script itself defines from now on (not a library's: Keras's own loop over batches
    does not compile with XLA), and Keras's compiled training step, with ``option`` on."""
    import tensorflow as tf

    def make(original: Callable) -> Callable:
        def function(func: Any = None, *args: Any, **kwargs: Any) -> Any:
            if called_by_person():
                kwargs.setdefault(option, True)
            return original(func, *args, **kwargs)
        return function

    patches.wrap(tf, "function", make)
    if option == "jit_compile":
        with contextlib.suppress(ImportError):
            import keras

            def compiled(original: Callable) -> Callable:
                def compile(model: Any, *args: Any, **kwargs: Any) -> Any:
                    kwargs["jit_compile"] = True
                    return original(model, *args, **kwargs)
                return compile

            patches.wrap(keras.Model, "compile", compiled)


def _predict(patches: Patches) -> None:
    """model.predict on a small batch answered by the model called in a compiled function (what Keras's docstring
    advises for loops), the result as numpy as predict gives it."""
    import keras
    import tensorflow as tf

    called: dict[int, Any] = {}

    def make(original: Callable) -> Callable:
        def predict(model: Any, x: Any = None, *args: Any, **kwargs: Any) -> Any:
            rows = getattr(x, "shape", (None,))[0] if x is not None else None
            if args or set(kwargs) - {"verbose", "batch_size"} or rows is None or rows > 1024:
                return original(model, x, *args, **kwargs)
            forward = called.get(id(model))
            if forward is None:
                forward = called[id(model)] = tf.function(lambda inputs: model(inputs, training=False))
            # A model of several outputs answers a list or dict of them, each as numpy, as predict does.
            return tf.nest.map_structure(lambda out: out.numpy(), forward(tf.convert_to_tensor(x)))
        return predict

    patches.wrap(keras.Model, "predict", make)


def _parallel_input(patches: Patches) -> None:
    """Every dataset's map runs in parallel, and what the script iterates is prefetched."""
    import tensorflow as tf
    from tensorflow.python.data.ops import dataset_ops

    def mapped(original: Callable) -> Callable:
        def map(dataset: Any, *args: Any, **kwargs: Any) -> Any:
            if len(args) < 2:
                kwargs.setdefault("num_parallel_calls", tf.data.AUTOTUNE)
            return original(dataset, *args, **kwargs)
        return map

    def iterated(original: Callable) -> Callable:
        def __iter__(dataset: Any) -> Any:
            if type(dataset).__name__ == "_PrefetchDataset":
                return original(dataset)
            return original(dataset.prefetch(tf.data.AUTOTUNE))
        return __iter__

    patches.wrap(dataset_ops.DatasetV2, "map", mapped)
    patches.wrap(dataset_ops.DatasetV2, "__iter__", iterated)


FIXES: dict[str, tuple[str, Callable[[Patches], None]]] = {
    "steps_per_execution": (f"steps_per_execution={STEPS_PER_EXECUTION}", _steps_per_execution),
    "jit_compile": ("jit_compile=True", lambda patches: _function_option(patches, "jit_compile")),
    "reduce_retracing": ("reduce_retracing=True", lambda patches: _function_option(patches, "reduce_retracing")),
    "predict": ("the model called in a tf.function instead of model.predict", _predict),
    "parallel_input": ("map(num_parallel_calls=AUTOTUNE) and prefetch(AUTOTUNE)", _parallel_input),
}


assert tuple(FIXES) == SCRIPT_FIXES, "the config's list of fixes and this module's disagree"


def describe(name: str) -> str:
    """A fix's change in words ("steps_per_execution=32")."""
    return FIXES[name][0]


def apply(name: str) -> Patches:
    """Put a fix's patches on (taken off by ``remove`` on what it returns)."""
    patches = Patches()
    FIXES[name][1](patches)
    return patches
