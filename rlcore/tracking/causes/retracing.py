"""A tf.function traced again inside the window: its ``tracing_count`` grew, and the lab's hook says what varied
among its arguments (a Python number that took a new value, a new shape)."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, Rule, Seen, Step, register


def decide(step: Step) -> Seen | None:
    n = step.numbers
    if not n.retraces:
        return None
    notes = step.facts.get("retraces") or {}
    why = "; ".join(f"{name}: {note}" for name, note in notes.items() if note) or \
        "a Python number or a new shape among its arguments"
    cost = step.per(sum(v[1] for name, v in n.functions.items() if name in n.retraced))
    return Seen(f"retracing {', '.join(sorted(n.retraced))[:120]}", cost,
                f"traced again {n.retraces:,} times in {n.steps:,} steps ({why})")


register(Rule("retracing", Cause.RETRACING, decide, order=60, always_named=True, measures=("tracing_count",),
              threshold="any retrace inside the window",
              fix="pass tensors (tf.constant) instead of Python numbers, or give the function an input_signature; "
                  "define it once, outside the loop", guide=GUIDES["retracing"]))
