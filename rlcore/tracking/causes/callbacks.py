"""A Keras callback of the person's that costs a share of every batch (the lab times each callback's
``on_train_batch_end`` in its own span; tf_keras warned of slow callbacks, Keras 3 does not)."""

from __future__ import annotations

from rlcore.contract.profile import Cause, Where
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, line_at, register
from rlcore.tracking.hooks import CALLBACK

OWN_CALLBACK = "LabCallback"  # the lab's Keras callback is not one of the person's slow callbacks


def decide(step: Step) -> list[Part]:
    callbacks = [(name.removeprefix(CALLBACK), seconds) for name, (_, seconds) in step.spans(CALLBACK).items()
                 if name.removeprefix(CALLBACK) != OWN_CALLBACK]
    return [Part(f"the callback {name}", seconds, f"{seconds_text(seconds)} per batch in {name}.on_train_batch_end",
                 fix=f"make {name}.on_train_batch_end cheaper, or run it every N batches (or in on_epoch_end)",
                 where=_defined(step, name))
            for name, seconds in sorted(callbacks, key=lambda x: -x[1])]


def _defined(step: Step, name: str) -> tuple[Where, ...]:
    site = step.facts.callbacks.get(name)
    return (line_at(*site),) if site else ()


register(Rule("callbacks", Cause.CALLBACK, decide, order=45, measures=(CALLBACK + "*",),
              threshold="a share of at least 10% of the step", guide=GUIDES["profiler"]))
