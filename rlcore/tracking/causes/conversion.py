"""numpy arrays (or Python values) turned into tensors every step, on the Python thread (``convert_to_tensor``)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Rule, Seen, Step, register


def decide(step: Step) -> Seen | None:
    seconds = step.per(step.numbers.conversion_seconds)
    if seconds < MIN_SECONDS:
        return None
    return Seen("numpy arrays turned into tensors every step", seconds,
                f"{step.per(step.numbers.conversions):,.0f} convert_to_tensor per step on the Python thread")


register(Rule("conversion", Cause.CONVERSION, decide, order=70, measures=("convert_to_tensor", "tf.constant"),
              threshold="50 µs a step and 10% of it",
              fix="make the data tensors once (tf.data, or tf.constant outside the loop) and keep it on the device",
              guide=GUIDES["data"]))
