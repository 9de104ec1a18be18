"""model.predict called in a loop: every call builds a data pipeline, runs callbacks and converts to numpy around a
small batch (Keras's own docstring: "not intended for use inside of loops")."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import count_text, seconds_text
from rlcore.tracking.causes import GUIDES, Rule, Seen, Step, register, where_of
from rlcore.tracking.hooks import PREDICT


def decide(step: Step) -> Seen | None:
    calls, seconds = step.span(PREDICT)
    if not calls:
        return None
    return Seen("model.predict in a loop", seconds,
                f"{count_text(calls, 'model.predict call')} per step, {seconds_text(seconds / calls)} "
                "each", where=where_of(step, PREDICT, seconds))


register(Rule("predict", Cause.PREDICT, decide, order=10, always_named=True, measures=(PREDICT,), try_fix="predict",
              threshold="any call inside a step: the person asked for each one",
              fix="call the model instead: model(x, training=False), inside a tf.function for speed; predict builds "
                  "a data pipeline, runs callbacks and converts to numpy on every call", guide=GUIDES["predict"]))
