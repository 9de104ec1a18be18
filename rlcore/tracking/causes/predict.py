"""model.predict called in a loop: every call builds a data pipeline, runs callbacks and converts to numpy around a
small batch (Keras's own docstring: "not intended for use inside of loops")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlcore.contract.profile import Cause
from rlcore.contract.text import count_text, seconds_text
from rlcore.tracking.causes import GUIDES, Fix, Part, Rule, Step, register, where_of
from rlcore.tracking.hooks import PREDICT


def decide(step: Step) -> Part | None:
    calls, seconds = step.span(PREDICT)
    if not calls:
        return None
    return Part("model.predict in a loop", seconds,
                f"{count_text(calls, 'model.predict call')} per step, {seconds_text(seconds / calls)} "
                "each", where=where_of(step, PREDICT, seconds))


def _called_in_a_function(patches: Any) -> None:
    """model.predict on a small batch answered by the model called in a compiled function (what Keras's docstring
    advises for loops), the result as numpy as predict gives it (a list or dict of them for several outputs)."""
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
            return tf.nest.map_structure(lambda out: out.numpy(), forward(tf.convert_to_tensor(x)))
        return predict

    patches.wrap(keras.Model, "predict", make)


register(Rule("predict", Cause.PREDICT, decide, order=10, always_named=True, measures=(PREDICT,),
              try_fix=Fix("predict", "the model called in a tf.function instead of model.predict",
                          _called_in_a_function),
              threshold="any call inside a step: the person asked for each one",
              fix="call the model instead: model(x, training=False), inside a tf.function for speed; predict builds "
                  "a data pipeline, runs callbacks and converts to numpy on every call", guide=GUIDES["predict"]))
