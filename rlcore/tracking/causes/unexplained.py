"""What no rule explains: the part of the step left once every cause, and the kernels' own arithmetic, took theirs.
It is said as such, with the ops the capture ranks first and the step's measured parts, never relabelled as
arithmetic or given a habit's name (xprof's "All others" is said the same way)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, MIN_SHARE, Part, Rule, Step, register

MOST_OPS = 3  # the capture's top ops named


def decide(step: Step) -> Part | None:
    taken = sum(f.seconds_per_step for f in step.found if not f.once_per_run)
    if not any(f.cause == Cause.COMPUTE for f in step.found):  # the kernels are known, named as a cause or not
        taken += step.per(step.numbers.compute_seconds)
    # Held against the quicker steps: the time a loaded machine keeps the process waiting for a core falls in no
    # op, so against the mean step it would read as a part no rule explains (seen with busy processes beside). What
    # is measured in an op no rule reads (Python run as an op in the step: a tf.py_function) is this part whatever
    # the load: the parts taken are means, and on a loaded CI machine a call's set-up (8 ms of a 23 ms step, 0.6 ms
    # quiet) came to more than the quickest step, leaving the py_function's 15 ms unsaid.
    measured = min(step.per(getattr(step.numbers, "python_op_seconds", 0.0)), step.seconds - taken)
    rest = max(step.quiet_seconds - taken, measured)
    if rest < max(MIN_SECONDS, MIN_SHARE * step.seconds):
        return None
    n = step.numbers
    ops = ", ".join(f"{op['name']} ({op['share']:.0%})" for op in n.top_ops[:MOST_OPS] if op["share"] >= 0.01)
    parts = [(what, step.per(seconds)) for what, seconds in (
        ("TensorFlow's dispatch", n.dispatch_seconds), ("Python between TensorFlow's calls", n.python_seconds),
        ("waiting for input", n.input_seconds)) if seconds]
    measured = ", ".join(f"{what} {seconds_text(seconds)}" for what, seconds in parts if seconds >= MIN_SECONDS)
    evidence = "; ".join(x for x in (f"in the ops {ops}" if ops else "", f"of each step: {measured}"
                                     if measured else "") if x)
    return Part("not explained by a habit this lab knows", rest, evidence or "no rule read this part of the step",
                try_fix="", fix="no rule of this lab explains this part: its ops and measured parts are named "
                                "beside it; xprof's trace viewer on the capture shows what ran")


register(Rule("unexplained", Cause.UNEXPLAINED, decide, order=1010, measures=("the step less every cause",),
              threshold=f"{MIN_SHARE:.0%} of the step left when every rule has spoken", guide=GUIDES["profiler"]))
