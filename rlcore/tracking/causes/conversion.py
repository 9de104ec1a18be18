"""numpy arrays (or Python values) turned into tensors every step, on the Python thread (``convert_to_tensor``)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Part, Rule, Step, line_at, register

LARGE = 1 << 20  # bytes of a numpy array handed to a tf.function from which its conversion is the call's set-up


def decide(step: Step) -> Part | None:
    handed = _numpy_handed(step)
    if handed is not None:
        return handed
    seconds = step.per(step.numbers.conversion_seconds)
    if seconds < MIN_SECONDS:
        return None
    # The capture counts conversions, not what was converted: a numpy array and a Python number (a learning rate,
    # an exponent) read the same, so the title names both.
    return Part("numpy arrays or Python numbers turned into tensors every step", seconds,
                f"{step.per(step.numbers.conversions):,.0f} convert_to_tensor per step on the Python thread")


def _numpy_handed(step: Step) -> Part | None:
    """A large numpy array passed to a tf.function: the call converts (copies) it to a tensor every time, inside the
    call's set-up (no conversion event of its own on the Python thread): that set-up, measured, is its cost."""
    large = {name: v for name, v in step.facts.numpy_args.items() if v and v[1] >= LARGE}
    if not large:
        return None
    name, (calls, largest, called_at) = max(large.items(), key=lambda kv: kv[1][1])
    set_up = step.per(step.numbers.dispatch_seconds) + step.per(step.numbers.conversion_seconds)
    if set_up < MIN_SECONDS:
        return None
    step.overhead_taken = True  # the call's set-up is this conversion: not a function call's set-up to spread
    where = (line_at(*called_at),) if called_at else ()
    return Part(f"numpy arrays of {largest / 2**20:,.1f} MB converted to tensors at every call of {name}", set_up,
                f"{name} was handed numpy arrays ({largest / 2**20:,.1f} MB the largest) in {calls:,} calls; its "
                f"calls' set-up took {seconds_text(set_up)} a step for "
                f"{seconds_text(step.per(step.numbers.compute_seconds))} of arithmetic", where=where,
                fix=f"make the arrays tensors once, before the loop (tf.constant(array), or a tf.data.Dataset of "
                    f"them), and hand {name} those: a numpy array is copied into a new tensor at every call")


register(Rule("conversion", Cause.CONVERSION, decide, order=70, measures=("convert_to_tensor", "tf.constant"),
              threshold="50 µs a step and 10% of it",
              fix="make the data tensors once (tf.data, or tf.constant outside the loop) and keep it on the device",
              guide=GUIDES["data"]))
