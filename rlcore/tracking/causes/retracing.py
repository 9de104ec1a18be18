"""A tf.function traced again inside the window: its ``tracing_count`` grew, and the lab's hook says what varied
among its arguments (a Python number that took a new value, a new shape), the line that called it and where it is
defined. With ``reduce_retracing`` already on, what remains is said."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, Fix, Rule, Seen, Step, function_option, line_at, register


def decide(step: Step) -> Seen | None:
    n = step.numbers
    if not n.retraces:
        return None
    notes = step.facts.retraces
    why = "; ".join(f"{name}: {note}" for name, note in notes.items() if note) or \
        "a Python number or a new shape among its arguments"
    cost = step.per(sum(v[1] for name, v in n.functions.items() if name in n.retraced))
    sites = step.facts.retrace_sites
    where = []
    for name in sorted(n.retraced):
        called, defined = sites.get(name, (None, None))
        if called:
            where.append(line_at(*called, calls=n.retraces / max(1, n.steps)))
        if defined:
            where.append(line_at(*defined))
    reducing = [name for name in n.retraced if step.facts.functions.get(name, {}).get(
        "reduce_retracing")]
    found = Seen(f"retracing {', '.join(sorted(n.retraced))[:120]}", cost,
                 f"traced again {n.retraces:,} times in {n.steps:,} steps ({why})", where=tuple(where[:4]))
    if reducing:
        return Seen(found.title, cost, found.evidence, where=found.where, in_effect="reduce_retracing=True",
                    try_fix="", fix="reduce_retracing is on and it still traces: a Python value among the arguments "
                                    "cannot be generalized; pass it as a tensor (tf.constant), or fix an "
                                    "input_signature")
    return found


register(Rule("retracing", Cause.RETRACING, decide, order=60, always_named=True, measures=("tracing_count",),
              threshold="any retrace inside the window",
              try_fix=Fix("reduce_retracing", "reduce_retracing=True",
                          lambda patches: function_option(patches, "reduce_retracing")),
              fix="pass tensors (tf.constant) instead of Python numbers, or give the function an input_signature "
                  "(or reduce_retracing=True); define it once, outside the loop", guide=GUIDES["retracing"]))
