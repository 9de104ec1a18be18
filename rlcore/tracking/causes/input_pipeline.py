"""The step waits for its input: time inside ``IteratorGetNext`` within the step (the tf.data guide's first check)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Rule, Seen, Step, register


def decide(step: Step) -> Seen | None:
    waiting = step.per(step.numbers.input_seconds)
    if waiting < MIN_SECONDS:
        return None
    return Seen("waiting for the input pipeline", waiting, "IteratorGetNext waits inside the step")


register(Rule("input_pipeline", Cause.INPUT, decide, order=50, measures=("IteratorGetNext",),
              threshold="50 µs a step and 10% of it: a 0.5 ms CPU step waiting 32 µs is not input-bound, as xprof's "
                        "5% would call it",
              fix="dataset.prefetch(tf.data.AUTOTUNE), map(..., num_parallel_calls=tf.data.AUTOTUNE), cache() a "
                  "small dataset", guide=GUIDES["data"]))
