"""Keras's own work around every batch of ``model.fit``: the batch's logs fetched to Python and a function call set
up, for a small batch's arithmetic; ``steps_per_execution`` runs N batches per call."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Rule, Seen, Step, register
from rlcore.tracking.hooks import LOGS


def decide(step: Step) -> Seen | None:
    calls, logs = step.span(LOGS)
    if not calls:
        return None
    dispatch = step.per(step.numbers.dispatch_seconds)
    spe = step.facts.get("steps_per_execution")
    return Seen("Keras's work around every batch (steps_per_execution=1)" if spe == 1 else "Keras's work per batch",
                logs + dispatch, f"each batch's logs fetched to Python ({seconds_text(logs)}) and a function call set "
                f"up ({seconds_text(dispatch)}) for {seconds_text(step.per(step.numbers.compute_seconds))} of "
                "arithmetic")


register(Rule("keras_batch", Cause.KERAS, decide, order=40, measures=(LOGS, "dispatch"),
              threshold="a share of at least 10% of the step",
              fix="model.compile(..., steps_per_execution=32): Keras then runs 32 batches per call, converts the logs "
                  "and calls the callbacks once for them", guide=GUIDES["steps_per_execution"]))
