"""The arithmetic itself: what the causes before leave of the step, at most the kernels' own time. Named when it is
most of the step, or when every cause found is small (a 1% fetch must not read as the change to make first)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, MIN_SHARE, Rule, Seen, Step, register

MOST = 0.5  # of the step


def decide(step: Step) -> Seen | None:
    per_step = sum(f.seconds_per_step for f in step.found if not f.once_per_run)
    compute = min(step.per(step.numbers.compute_seconds), max(0.0, step.seconds - per_step))
    if any(f.share >= MIN_SHARE for f in step.found) and compute <= MOST * step.seconds:
        return None
    return Seen("the arithmetic itself", compute, f"{step.per(step.numbers.ops):,.0f} ops per step")


register(Rule("arithmetic", Cause.COMPUTE, decide, order=1000, always_named=True, measures=("kernels",),
              threshold=f"more than {MOST:.0%} of the step, or no other cause of {MIN_SHARE:.0%}",
              fix="only less arithmetic (a smaller model or batch) or faster hardware makes it faster; the overhead "
                  "around it is small", guide=GUIDES["profiler"]))
