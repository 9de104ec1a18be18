"""Ops launched one by one from Python (no tf.function): what lies outside every span, function and wait, less the
ops' own kernels, is their launching and the Python between them; the lines of the person's code that launched
most of them are named (counted in the steps after the capture)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, register, where_of
from rlcore.tracking.hooks import LAUNCHES

LAUNCHED = 20  # eager ops per step from which launching them one by one is a cause (a few are ordinary code)


def decide(step: Step) -> Part | None:
    if step.overhead_taken:
        return None
    eager = step.eager_unclaimed()
    count = sum(c for _, c, _, _ in eager)
    if count < LAUNCHED:
        return None
    kernels = sum(k for *_, k in eager)
    launching = sum(s for _, _, s, _ in eager)
    rest = step.outside_seconds
    seconds = max(0.0, rest - kernels)
    return Part("ops launched one by one (no tf.function)", seconds,
                f"{count:,.0f} ops per step run eagerly: launching them took {seconds_text(launching - kernels)} in "
                f"TensorFlow, and the Python between them {seconds_text(max(0.0, rest - launching))}",
                where=where_of(step, LAUNCHES, seconds, most=3))


register(Rule("launch", Cause.LAUNCH, decide, order=80, measures=("EagerExecute is_func=0",),
              threshold=f"{LAUNCHED} or more eager ops a step",
              fix="decorate the training step with @tf.function: its ops then run as one graph, launched once",
              guide=GUIDES["function"]))
