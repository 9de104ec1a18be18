"""Keras's own work around every batch of ``model.fit``: the batch's logs fetched to Python and a function call set
up, for a small batch's arithmetic; ``steps_per_execution`` runs N batches per call. When it is set already, what
remains is said, never the same fix again."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Fix, Part, Rule, Step, compile_option, line_at, register
from rlcore.tracking.hooks import LOGS
from rlcore.tracking.xplane import KERAS_STEPS

SUGGESTED = 32  # batches per call the fix names (Keras's docstring: "small models with a large Python overhead")


def decide(step: Step) -> Part | None:
    if step.overhead_taken:
        return None
    calls, logs = step.span(LOGS)
    if not calls and step.numbers.steps_from != KERAS_STEPS:  # a Keras capture made elsewhere too
        return None
    dispatch = step.per(step.numbers.dispatch_seconds)
    spe = step.facts.steps_per_execution
    evidence = (f"each call's logs fetched to Python ({seconds_text(logs)}) and a function call set up "
                f"({seconds_text(dispatch)}) for {seconds_text(step.per(step.numbers.compute_seconds))} of arithmetic")
    if spe > 1:  # one call runs a loop of batches: its set-up is mostly the loop's own work (see arithmetic.py)
        return Part(f"Keras's work per call of {spe:,} batches (steps_per_execution={spe:,})", logs,
                    f"each call's logs fetched to Python ({seconds_text(logs)})",
                    in_effect=f"steps_per_execution={spe:,}", try_fix="",
                    fix=f"steps_per_execution={spe:,} is set: what remains is one call and one fetch of the logs per "
                        f"{spe:,} batches; a larger batch, or a larger steps_per_execution, spreads it further")
    # The Python between the batch calls is Keras's own loop (its iterator, its callbacks' dispatch, the progress
    # bar), which steps_per_execution spreads as it does the set-up: read here with it, as the one cost they are (a
    # busy machine stretches both; read apart, the part taken for the person's Python changed with the load). A
    # callback of the person's has its own span (callbacks.py); many eager ops a batch are launches (no part here).
    python = step.python_seconds()
    if python is None:
        python = 0.0
    else:
        step.overhead_taken = True  # the Python rule would read the same seconds again
    if python:
        evidence += f"; Keras's loop in Python between the batches ({seconds_text(python)})"
    fit = next((c for c in step.facts.keras_calls if c.get("method") == "model.fit" and c.get("site")), None)
    where = tuple(line_at(*site) for site in (step.facts.compile_site, fit["site"] if fit else None) if site)
    return Part("Keras's work around every batch (steps_per_execution=1)", logs + dispatch + python, evidence,
                where=where)


register(Rule("keras_batch", Cause.KERAS, decide, order=40, measures=(LOGS, "dispatch", "Python between batches"),
              threshold="a share of at least 10% of the step",
              try_fix=Fix("steps_per_execution", f"steps_per_execution={SUGGESTED}", lambda patches: compile_option(
                  patches, "steps_per_execution", lambda given: max(SUGGESTED, int(given or 1)))),
              fix=f"model.compile(..., steps_per_execution={SUGGESTED}): Keras then runs {SUGGESTED} batches per call, "
                  "converts the logs and calls the callbacks once for them", guide=GUIDES["steps_per_execution"]))
