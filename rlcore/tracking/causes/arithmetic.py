"""The arithmetic itself: what the causes before leave of the step, at most the kernels' own time. Named when it is
most of the step, or when every cause found is small (a 1% fetch must not read as the change to make first). XLA
(jit_compile) fuses the ops where it is not in effect yet."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, MIN_SHARE, Fix, Part, Rule, Step, function_option, register

MOST = 0.5  # of the step


def decide(step: Step) -> Part | None:
    per_step = sum(f.seconds_per_step for f in step.found if not f.once_per_run)
    # The kernels of eager ops a rule took are its cause's (a fit call's MakeIterator and dataset ops are Keras's
    # set-up, a tensor indexed in a loop is the indexing's), not the arithmetic.
    kernels = max(0.0, step.per(step.numbers.compute_seconds) - step.claimed_kernel_seconds)
    looped = step.k > 1 or step.facts.steps_per_execution > 1
    if looped:  # a call that loops over steps: the profiler records a loop's costly ops only, the rest is its work
        kernels += step.per(step.numbers.dispatch_seconds)
    compute = min(kernels, max(0.0, step.seconds - per_step))
    if any(f.share >= MIN_SHARE for f in step.found) and compute <= MOST * step.seconds:
        return None
    functions = step.facts.functions
    compiled = step.numbers.xla_ops > 0 or step.facts.jit_compile or any(
        f.get("jit_compile") for f in functions.values())
    evidence = f"{step.per(step.numbers.ops):,.0f} ops per step"
    if compiled or not (functions or step.facts.steps_per_execution > 1):
        return Part("the arithmetic itself", compute, evidence, in_effect="XLA" if compiled else "", try_fix="")
    return Part("the arithmetic itself", compute, evidence,
                fix="only less arithmetic (a smaller model or batch), fused kernels (jit_compile=True on the training "
                    "function) or faster hardware make it faster; the overhead around it is small")


register(Rule("arithmetic", Cause.COMPUTE, decide, order=1000, always_named=True, measures=("kernels",),
              threshold=f"more than {MOST:.0%} of the step, or no other cause of {MIN_SHARE:.0%}",
              try_fix=Fix("jit_compile", "jit_compile=True", lambda patches: function_option(patches, "jit_compile")),
              fix="only less arithmetic (a smaller model or batch) or faster hardware makes it faster; the overhead "
                  "around it is small", guide=GUIDES["profiler"]))
