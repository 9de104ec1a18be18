"""The step waits for its input: time inside ``IteratorGetNext`` within the step (the tf.data guide's first check).
The pipeline itself is read (``tracking.datasets``): a map that runs Python (``tf.py_function``) is named with its
function and line, and a prefetch or a parallel map already in effect is never advised again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Fix, Part, Rule, Step, line_at, register

ADVICE = {"prefetch": "dataset.prefetch(tf.data.AUTOTUNE)", "parallel": "map(..., num_parallel_calls=tf.data.AUTOTUNE)"}


def decide(step: Step) -> Part | None:
    waiting = step.per(step.numbers.input_seconds)
    ran = step.per(step.numbers.pipeline_python_seconds)
    if max(waiting, ran) < MIN_SECONDS:
        return None
    pipelines: list[dict[str, Any]] = [dict(p) for p in step.facts.datasets]
    maps = [m for p in pipelines for m in p.get("maps", [])]
    python = [(m, f) for m in maps for f in m.get("python", [])]
    generators = [g for p in pipelines for g in p.get("generators", [])]
    in_effect = [what for what, on in (("prefetch", pipelines and all(p.get("prefetch") for p in pipelines)),
                                       ("parallel", maps and all(m.get("parallel") for m in maps))) if on]
    said = ", ".join(ADVICE[w] for w in in_effect)
    # Python run by tf.data's own threads, as measured (a generator, a py_function map): the step waits on it, and
    # while it runs beside the step it holds the GIL the step's own Python needs (Keras's set-up, its logs): that time
    # is measured on the timeline (``input_held_seconds``, taken out of the set-up and the Python it stretched), so
    # the pipeline's part is what it cost the step, on a quiet machine as on a busy one.
    held = step.per(step.numbers.input_held_seconds)
    python_cost = min(waiting + held, max(waiting, step.seconds - step.per(step.numbers.compute_seconds)))
    ran_text = (f"; tf.data's threads ran {seconds_text(ran)} of Python (PyFunc) a step, holding the GIL the step's "
                f"own Python needs ({seconds_text(held)} of the step's own work ran beside it)" if ran else "")
    evidence = f"the step waits {seconds_text(waiting)} for its next batch (IteratorGetNext){ran_text}"
    if generators:
        return _generator(generators[0], python_cost, evidence)
    if python:
        mapped, func = python[0]
        where = [line_at(func["file"], func["line"], func["function"])] if func.get("file") else []
        if mapped.get("site"):
            where.append(line_at(*mapped["site"]))
        fix = (f"write {func['function']} in TensorFlow ops, so the map runs as a graph: your map runs Python "
               f"({func['op']} at {where[0].file}:{where[0].line})" if where else
               f"write the map's function in TensorFlow ops instead of {func['op']}")
        fix += (f"; {said} already in effect cannot lift it far" if in_effect else
                ", then map(..., num_parallel_calls=tf.data.AUTOTUNE) and prefetch(tf.data.AUTOTUNE)")
        return Part(f"waiting for the input pipeline: its map runs Python ({func['op']})", python_cost, evidence,
                    fix=fix, where=tuple(where), in_effect=said, try_fix="" if len(in_effect) == 2 else None)
    if ran >= MIN_SECONDS:  # Python in the pipeline, though the lab did not see the pipeline built (a capture)
        return Part("waiting for the input pipeline: it runs Python (PyFunc)", python_cost, evidence, try_fix="",
                    fix="find the Python the pipeline runs (Dataset.from_generator, tf.py_function or "
                        "tf.numpy_function in a map) and write it in TensorFlow ops over tensors (from_tensor_slices, "
                        "map(..., num_parallel_calls=tf.data.AUTOTUNE), prefetch(tf.data.AUTOTUNE))")
    if waiting < MIN_SECONDS:
        return None
    missing = [w for w in ADVICE if w not in in_effect]
    where = tuple(line_at(*m["site"]) for m in maps if m.get("site") and not m.get("parallel"))
    if not missing and pipelines:
        return Part("waiting for the input pipeline", waiting, evidence, in_effect=said,
                    try_fix="", fix=f"{said} already in effect: what remains is the map's own work: cache() what "
                                    "does not change, batch before map (one vectorized call per batch), lighter work "
                                    "per element")
    return Part("waiting for the input pipeline", waiting, evidence, where=where,
                in_effect=said, fix=", ".join(ADVICE[w] for w in (missing if pipelines else ADVICE))
                + ", cache() a small dataset" + (f" ({said} already in effect)" if said else ""))


def _generator(generator: dict[str, Any], waiting: float, evidence: str) -> Part:
    """A ``Dataset.from_generator`` source: its generator runs Python one element at a time on one thread, under the
    GIL; prefetch and a parallel map cannot make it faster. The fix leaves Python: the data as tensors."""
    name = generator.get("function") or "the generator"
    where = [line_at(generator["file"], generator["line"], name)] if generator.get("file") else []
    if generator.get("site"):
        where.append(line_at(*generator["site"]))
    return Part(f"waiting for the input pipeline: Dataset.from_generator runs {name} in Python", waiting,
                f"{evidence}, one element at a time", where=tuple(where), try_fix="",
                fix=f"build the dataset from tensors, not {name}: tf.data.Dataset.from_tensor_slices(arrays), its "
                    "per-element work as TensorFlow ops in .map(..., num_parallel_calls=tf.data.AUTOTUNE), then "
                    ".prefetch(tf.data.AUTOTUNE) (a generator runs Python one element at a time; prefetch cannot "
                    "make it faster)")


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
