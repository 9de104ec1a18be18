"""Setting up a tf.function call every step costs more than the arithmetic it launches: K steps per call (a loop
inside the function) spread that cost. With K steps per call already in effect, what remains is said."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Part, Rule, Step, register, where_of
from rlcore.tracking.causes.launch import LAUNCHED
from rlcore.tracking.hooks import CALLS, LOGS
from rlcore.tracking.xplane import KERAS_STEPS

SHARE = 0.3  # of the step: a set-up this large is a cause even when the kernels take longer


def decide(step: Step) -> Part | None:
    if step.overhead_taken:
        return None
    n = step.numbers
    calls = step.per(n.function_calls)
    setting_up = step.per(n.dispatch_seconds)
    keras_says_it = step.span(LOGS)[0] > 0 or step.numbers.steps_from == KERAS_STEPS  # model.fit's
    # batches (the lab's callback, or Keras's own markers in a capture made elsewhere): the Keras rule holds it
    retracing = any(f.cause == Cause.RETRACING for f in step.found)  # a trace's cost is set-up too: retracing's
    if (keras_says_it or n.retraces or retracing or calls <= 0
            or sum(c for _, c, _, _ in step.eager_unclaimed()) >= LAUNCHED
            or not (n.dispatch_seconds > n.compute_seconds or setting_up >= max(MIN_SECONDS, SHARE * step.seconds))):
        return None  # a retrace's cost is set-up too: the retracing rule holds it
    evidence = (f"{calls:,.2g} tf.function call{'s' if calls != 1 else ''} per step cost {seconds_text(setting_up)} "
                f"to set up for {seconds_text(step.per(n.compute_seconds))} of arithmetic")
    where = where_of(step, CALLS, setting_up, most=3)  # the person's lines that call the function
    if step.k > 1:
        return Part("setting up a function call", setting_up, evidence, in_effect=f"{step.k:,} steps per call",
                    fix=f"{step.k:,} steps per call are in effect: more of them (or a bigger batch) spread the set-up "
                        "further", where=where)
    return Part("setting up a function call every step", setting_up, evidence, where=where)


register(Rule("dispatch", Cause.DISPATCH, decide, order=90, measures=("EagerExecute is_func=1", "dispatch"),
              threshold=f"set-up above the arithmetic, or {SHARE:.0%} of the step",
              fix="run several steps per call: a tf.range loop inside the tf.function (K steps, the loss fetched once)",
              guide=GUIDES["function"]))
