"""A cause of the lab's why engine written as a person would add one: one module, one rule, nothing else touched.
It names the step's tf.function calls whenever there is one (a toy: real rules decide from a share of the step)."""

import os

from rlcore.tracking.causes import Fix, Rule, Seen, Step, register


def decide(step: Step) -> Seen | None:
    calls = step.per(step.numbers.function_calls)
    if not calls:
        return None
    return Seen("a toy cause: tf.function calls", 0.25 * step.seconds, f"{calls:,.2g} calls per step, counted by a toy")


def mark(patches) -> None:
    """The toy's fix: no patch on TensorFlow, a file that says it was put on before the script ran."""
    with open(os.environ["TOY_FIX_MARK"], "w") as f:
        f.write("applied")


register(Rule("toy", "toy-bound", decide, order=5, always_named=True, fix="nothing: it is a toy",
              guide="tests/plugins/toy_cause", try_fix=Fix("toy_fix", "a toy's change", mark)))
