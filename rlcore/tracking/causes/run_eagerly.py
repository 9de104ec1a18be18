"""Keras told to run eagerly (``model.compile(..., run_eagerly=True)``): every batch's ops, the model's, the loss's
and the optimizer's, are launched one by one from Python, as a debugging aid should. A Keras user has no training
step to decorate: the line to change is the compile call, and the fix is to drop the flag."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Fix, Part, Rule, Step, compile_option, line_at, register
from rlcore.tracking.causes.launch import LAUNCHED


def decide(step: Step) -> Part | None:
    if not step.facts.run_eagerly:
        return None
    eager = step.eager_unclaimed()
    count = sum(c for _, c, _, _ in eager)
    if count < LAUNCHED:
        return None
    kernels = sum(k for *_, k in eager)
    seconds = max(0.0, step.outside_seconds - kernels)
    step.claim_eager(op for op, *_ in eager)  # the launch rule would say the same, with a fix a Keras user cannot make
    step.overhead_taken = True  # Keras's per-batch work is eager here too: steps_per_execution cannot spread it
    where = (line_at(*step.facts.compile_site),) if step.facts.compile_site else ()
    return Part("run_eagerly=True: Keras launches every op of each batch one by one", seconds,
                f"{count:,.0f} ops per batch run eagerly ({seconds_text(seconds)} launching them and the Python "
                f"between them, for {seconds_text(kernels)} of their kernels)", where=where)


register(Rule("run_eagerly", Cause.LAUNCH, decide, order=35, measures=("EagerExecute is_func=0", "run_eagerly"),
              threshold=f"Keras's run_eagerly=True and {LAUNCHED} or more eager ops a batch",
              try_fix=Fix("no_run_eagerly", "run_eagerly=False",
                          lambda patches: compile_option(patches, "run_eagerly", lambda _: False)),
              fix="drop run_eagerly=True from model.compile(...): Keras then runs each batch as one compiled "
                  "tf.function (keep it for debugging only)", guide=GUIDES["function"]))
