"""Python between TensorFlow calls: a third of the step or more passes outside TensorFlow, with few eager ops (many
would make it the launch cause)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Part, Rule, Step, register

SHARE = 0.3  # of the step


def decide(step: Step) -> Part | None:
    if step.overhead_taken:
        return None
    python = step.python_seconds()
    if python is None or step.facts.run_eagerly:
        return None  # the launch cause (or Keras's run_eagerly) holds the Python between its ops
    if python < MIN_SECONDS or python <= SHARE * step.seconds:
        return None
    return Part("Python between TensorFlow calls", python, "time on the Python thread outside TensorFlow's calls")


register(Rule("python_time", Cause.PYTHON, decide, order=85, measures=("time outside TensorFlow's events",),
              threshold=f"more than {SHARE:.0%} of the step",
              fix="move the per-step Python (data preparation, bookkeeping) into the tf.function or a tf.data pipeline",
              guide=GUIDES["function"]))
