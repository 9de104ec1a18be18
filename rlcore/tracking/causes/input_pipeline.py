"""The step waits for its input: time inside ``IteratorGetNext`` within the step (the tf.data guide's first check).
The pipeline itself is read (``tracking.datasets``): a map that runs Python (``tf.py_function``) is named with its
function and line, and a prefetch or a parallel map already in effect is never advised again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Fix, Rule, Seen, Step, line_at, register

PY_OPS = ("EagerPyFunc", "PyFunc", "PyFuncStateless")
ADVICE = {"prefetch": "dataset.prefetch(tf.data.AUTOTUNE)", "parallel": "map(..., num_parallel_calls=tf.data.AUTOTUNE)"}


def decide(step: Step) -> Seen | None:
    waiting = step.per(step.numbers.input_seconds)
    if waiting < MIN_SECONDS:
        return None
    pipelines: list[dict[str, Any]] = [dict(p) for p in step.facts.datasets]
    maps = [m for p in pipelines for m in p.get("maps", [])]
    python = [(m, f) for m in maps for f in m.get("python", [])]
    in_effect = [what for what, on in (("prefetch", pipelines and all(p.get("prefetch") for p in pipelines)),
                                       ("parallel", maps and all(m.get("parallel") for m in maps))) if on]
    said = ", ".join(ADVICE[w] for w in in_effect)
    if python:
        mapped, func = python[0]
        py_seconds = sum(op["self_seconds_per_step"] for op in step.numbers.top_ops if op["name"] in PY_OPS)
        cost = f", {seconds_text(step.per(py_seconds))} a step" if py_seconds else ""
        where = [line_at(func["file"], func["line"], func["function"])] if func.get("file") else []
        if mapped.get("site"):
            where.append(line_at(*mapped["site"]))
        fix = (f"write {func['function']} in TensorFlow ops, so the map runs as a graph: your map runs Python "
               f"({func['op']} at {where[0].file}:{where[0].line}{cost})" if where else
               f"write the map's function in TensorFlow ops instead of {func['op']}")
        if in_effect:
            fix += f"; {said} already in effect cannot lift it far"
        return Seen(f"waiting for the input pipeline: its map runs Python ({func['op']})", waiting,
                    f"IteratorGetNext waits inside the step; the map calls {func['function']} through {func['op']}"
                    + (f" ({seconds_text(step.per(py_seconds))} of EagerPyFunc a step)" if py_seconds else ""),
                    fix=fix, where=tuple(where), in_effect=said, try_fix="" if len(in_effect) == 2 else None)
    missing = [w for w in ADVICE if w not in in_effect]
    where = tuple(line_at(*m["site"]) for m in maps if m.get("site") and not m.get("parallel"))
    if not missing and pipelines:
        return Seen("waiting for the input pipeline", waiting, "IteratorGetNext waits inside the step", in_effect=said,
                    try_fix="", fix=f"{said} already in effect: what remains is the map's own work: cache() what "
                                    "does not change, batch before map (one vectorized call per batch), lighter work "
                                    "per element")
    return Seen("waiting for the input pipeline", waiting, "IteratorGetNext waits inside the step", where=where,
                in_effect=said, fix=", ".join(ADVICE[w] for w in (missing if pipelines else ADVICE))
                + ", cache() a small dataset" + (f" ({said} already in effect)" if said else ""))


def _parallel_input(patches: Any) -> None:
    """Every dataset's map runs in parallel, and what the script iterates is prefetched."""
    import tensorflow as tf
    from tensorflow.python.data.ops import dataset_ops

    def mapped(original: Callable) -> Callable:
        def map(dataset: Any, *args: Any, **kwargs: Any) -> Any:
            if len(args) < 2:
                kwargs.setdefault("num_parallel_calls", tf.data.AUTOTUNE)
            return original(dataset, *args, **kwargs)
        return map

    def iterated(original: Callable) -> Callable:
        def __iter__(dataset: Any) -> Any:
            if type(dataset).__name__ == "_PrefetchDataset":
                return original(dataset)
            return original(dataset.prefetch(tf.data.AUTOTUNE))
        return __iter__

    patches.wrap(dataset_ops.DatasetV2, "map", mapped)
    patches.wrap(dataset_ops.DatasetV2, "__iter__", iterated)


register(Rule("input_pipeline", Cause.INPUT, decide, order=50, measures=("IteratorGetNext", "the dataset's stages"),
              threshold="50 µs a step and 10% of it: a 0.5 ms CPU step waiting 32 µs is not input-bound, as xprof's "
                        "5% would call it",
              try_fix=Fix("parallel_input", "map(num_parallel_calls=AUTOTUNE) and prefetch(AUTOTUNE)", _parallel_input),
              fix="dataset.prefetch(tf.data.AUTOTUNE), map(..., num_parallel_calls=tf.data.AUTOTUNE), cache() a "
                  "small dataset", guide=GUIDES["data"]))
