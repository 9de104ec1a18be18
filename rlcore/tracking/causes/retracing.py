"""A tf.function traced again inside the window: its ``tracing_count`` grew, and the lab's hook says what varied
among its arguments (a Python value that took a new value, a new shape), the line that called it and where it is
defined; or a new tf.function made while training (each new object traces once, so no count grows: the lab notes
where each was made). The fix follows what varied: a Python value is passed as a tensor (``reduce_retracing`` relaxes
shapes only and does nothing for it), a shape is opened in an ``input_signature`` (or ``reduce_retracing``), a
function is made once. With ``reduce_retracing`` already on, what remains is said."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.tracking.causes import GUIDES, Fix, Part, Rule, Step, function_option, line_at, register

PYTHON_VALUE = "a Python value"  # how the hook's note begins for a Python argument that took a new value
SHAPE = "the shape of"  # ... and for a tensor argument of a new shape
MADE_AGAIN = 2  # tf.functions of one name made in the window from which making them is the habit


def decide(step: Step) -> Part | None:
    made = _made_while_training(step)
    if made is not None:
        return made
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
            where.append(line_at(*called, calls=n.retraces / max(1, n.read_steps)))
        if defined:
            where.append(line_at(*defined))
    title = f"retracing {', '.join(sorted(n.retraced))[:120]}"
    evidence = f"traced again {n.retraces:,} times in {n.steps:,} steps ({why})"
    values = [note for note in notes.values() if note.startswith(PYTHON_VALUE)]
    if values:  # a Python value: only a tensor (or a variable) stops it; reduce_retracing never generalizes values
        argument = values[0].split("`")[1] if "`" in values[0] else "it"
        return Part(title, cost, evidence, where=tuple(where[:4]), try_fix="",
                    fix=f"pass {argument} as a tensor (tf.constant({argument})) or keep it in a tf.Variable and "
                        f"assign it: every new Python value is a new graph (reduce_retracing relaxes shapes, never "
                        f"Python values)")
    reducing = [name for name in n.retraced if step.facts.functions.get(name, {}).get("reduce_retracing")]
    if reducing:
        return Part(title, cost, evidence, where=tuple(where[:4]), in_effect="reduce_retracing=True", try_fix="",
                    fix="reduce_retracing is on and it still traces: fix an input_signature with None for the "
                        "dimensions that vary, or pad the inputs to a few fixed shapes")
    if any(note.startswith(SHAPE) for note in notes.values()):
        return Part(title, cost, evidence, where=tuple(where[:4]),
                    fix="give the function an input_signature with None for the dimension that varies "
                        "(tf.TensorSpec(shape=[None, None, 8])), or reduce_retracing=True, or pad the inputs to a few "
                        "fixed shapes")
    return Part(title, cost, evidence, where=tuple(where[:4]))


def _made_while_training(step: Step) -> Part | None:
    """tf.functions made again and again while training: each new one traces (and compiles) its graph anew."""
    made = {name: v for name, v in step.facts.made.items() if v and v[0] >= MADE_AGAIN}
    if not made:
        return None
    name, (count, made_at, called_at) = max(made.items(), key=lambda kv: kv[1][0])
    cost = step.per(sum(step.numbers.functions.get(n, (0.0, 0.0))[1] for n in made))
    where = tuple(line_at(*site) for site in (made_at, called_at) if site)
    return Part(f"a new tf.function {name} made every step", cost,
                f"{count:,} tf.function objects named {name} made and traced while the lab recorded "
                f"{step.numbers.steps:,} steps: each new one traces its graph again", where=where, try_fix="",
                fix=f"make the tf.function once, before the training loop, and call that one ({name} = "
                    f"tf.function(...) outside the loop): a new tf.function object traces its graph again")


register(Rule("retracing", Cause.RETRACING, decide, order=60, always_named=True,
              measures=("tracing_count", "tf.functions made in the window"),
              threshold="any retrace inside the window, or a tf.function made again in it",
              try_fix=Fix("reduce_retracing", "reduce_retracing=True",
                          lambda patches: function_option(patches, "reduce_retracing")),
              fix="pass tensors (tf.constant) instead of Python values, give the function an input_signature for "
                  "shapes that vary, and define it once, outside the loop", guide=GUIDES["retracing"]))
