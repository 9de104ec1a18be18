"""Tracing and compiling took longer than the training it served: paid once per run, so its share is of the run."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, register


def decide(step: Step) -> Part | None:
    compile_seconds, train_seconds = step.facts.compile_seconds, step.facts.train_seconds
    if not (compile_seconds > 0 and train_seconds > 0 and compile_seconds > train_seconds):  # never a negative share
        return None
    return Part("compiling", compile_seconds / max(1, step.facts.steps),
                f"tracing and compiling took {seconds_text(compile_seconds)} once, more than the "
                f"{seconds_text(train_seconds)} of training it served (per step: spread over the run's steps)",
                share=compile_seconds / (compile_seconds + train_seconds))


register(Rule("compiling", Cause.COMPILE, decide, order=95, always_named=True, measures=("compile seconds",),
              threshold="compiling longer than the training it served",
              fix="a longer run pays it back; XLA's persistent cache keeps a compile for the next run",
              guide=GUIDES["compile"]))
