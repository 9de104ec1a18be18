"""Why a step is slow, in the words of the code that ran it: a ranked list of causes, each with the time it costs
per step, the change to make and the guide that explains it; and what the same step would at least pay on a GPU.

The findings read a profile's per-step numbers (``profiling.StepNumbers``): the lab's spans around user-level calls
(``model.predict``, fetches of a tensor to Python, Keras's per-batch logs and callbacks), eager ops by type outside
them, waits on a tf.data iterator, tf.function calls and retraces, conversions, the ops' arithmetic, and on a GPU
its kernels and copies. One engine for every run: the lab's own styles and a person's script read alike.

A cause is named only when it costs a share of the step worth a change (``MIN_SHARE``) and a time a person can
notice (``MIN_SECONDS``): a 0.5 ms CPU step that waits 32 µs for its input is not "input-bound", as xprof's 5%
threshold would call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlcore.contract.text import percent_text, seconds_text
from rlcore.tracking.hooks import CALLBACK, INDEX, LOGS, PREDICT, SYNC

MIN_SHARE = 0.10  # of the step
ARITHMETIC = "the arithmetic itself"
MIN_SECONDS = 50e-6  # per step
LAUNCHED = 20  # eager ops per step from which launching them one by one is a cause
INDEXED = 8  # eager tensor[i] per step from which indexing in a Python loop is a cause
# The ops a Python list of indexed values brings after it: the list made one tensor, and the slices' gradients.
INDEX_FOLLOWERS = ("Pack", "StridedSliceGrad", "Unpack")
# Named whatever they cost: the user asked for each (a cheap one on this CPU is not cheap on a GPU).
ALWAYS_NAMED = ("model.predict", "retracing", "compiling", "fetching tensors")
OWN_CALLBACK = "LabCallback"  # the lab's Keras callback is not one of the user's slow callbacks

GUIDES = {
    "predict": "Keras: Model.predict is not meant for loops; call the model (keras.io/api/models/model_training_apis)",
    "function": "TensorFlow guide: Better performance with tf.function (tensorflow.org/guide/function)",
    "retracing": "TensorFlow guide: tf.function, Controlling retracing (tensorflow.org/guide/function)",
    "gather": "TensorFlow API: tf.gather with batch_dims (tensorflow.org/api_docs/python/tf/gather)",
    "data": "TensorFlow guide: Better performance with the tf.data API (tensorflow.org/guide/data_performance)",
    "gpu": "TensorFlow guide: Optimize TensorFlow GPU performance, gaps between steps "
           "(tensorflow.org/guide/gpu_performance_analysis)",
    "steps_per_execution": "Keras: Model.compile(steps_per_execution=...) (keras.io/api/models/model_training_apis)",
    "compile": "TensorFlow guide: XLA, and the persistent compilation cache (tensorflow.org/xla)",
    "profiler": "TensorFlow guide: Optimize TensorFlow performance using the Profiler (tensorflow.org/guide/profiler)",
}


def _t(seconds: float) -> str:
    return seconds_text(seconds)


# A cause's verdict (profiling.CATEGORIES), by the start of its name.
CATEGORY = (("model.predict", "predict-bound"), ("indexing", "indexing"), ("ops launched", "launch-bound"),
            ("fetching", "sync-bound"), ("Keras's work", "keras-overhead"), ("the callback", "callback-bound"),
            ("waiting for the input", "input-bound"), ("retracing", "retracing"), ("numpy arrays", "conversion"),
            ("Python between", "python-bound"), ("setting up", "dispatch-bound"), ("compiling", "compile-bound"),
            ("the arithmetic", "compute-bound"))


def finding(cause: str, seconds: float, step: float, fix: str, guide: str, evidence: str) -> dict[str, Any]:
    category = next(c for start, c in CATEGORY if cause.startswith(start))
    return {"cause": cause, "category": category, "seconds_per_step": seconds,
            "share": seconds / step if step else 0.0, "fix": fix, "guide": GUIDES[guide], "evidence": evidence}


def explain(n: Any, *, steps_per_marker: int = 1, context: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The causes of a step's time, costliest first (per training step: K steps per call divided out). The parts
    do not overlap: the spans hold what ran inside them, the eager ops and the Python between them are what is left
    outside the spans, the functions and the input waits; the arithmetic is what no other cause holds."""
    context = context or {}
    k = max(1, steps_per_marker)
    step = n.step_seconds / k
    found: list[dict[str, Any]] = []
    spans = {name: (count / k, seconds / k) for name, (count, seconds) in n.spans.items()}
    by_type = {name: tuple(x / k for x in v) + (0.0,) * (3 - len(v)) for name, v in n.eager_by_type.items()}
    functions_seconds = sum(seconds for _, seconds in n.functions.values()) / k

    calls, seconds = spans.get(PREDICT, (0.0, 0.0))
    if calls:
        found.append(finding(
            "model.predict in a loop", seconds, step,
            "call the model instead: model(x, training=False), inside a tf.function for speed; predict builds a "
            "data pipeline, runs callbacks and converts to numpy on every call", "predict",
            f"{calls:,.1f} model.predict call{'s' if calls != 1 else ''} per step, {_t(seconds / calls)} each"))

    indexed, index_seconds = spans.get(INDEX, (0.0, 0.0))
    followers = [(op, *by_type[op]) for op in INDEX_FOLLOWERS if op in by_type]
    follower_count = sum(c for _, c, _, _ in followers)
    follower_seconds = sum(s for _, _, s, _ in followers)
    if indexed >= INDEXED:
        also = ", ".join(f"{c:,.0f} {op}" for op, c, _, _ in sorted(followers, key=lambda x: -x[1]))
        found.append(finding(
            "indexing a tensor in a Python loop", index_seconds + follower_seconds, step,
            "take the values in one op: tf.gather(q, actions, batch_dims=1) instead of [q[i][a[i]] for i in ...]",
            "gather", f"{indexed:,.0f} tensor[i] per step, each a StridedSlice and its constants launched from "
                      f"Python ({_t(index_seconds / indexed)} each)" + (f"; then {also}" if also else "")))
    else:
        follower_count = follower_seconds = 0.0

    syncs, sync_seconds = spans.get(SYNC, (0.0, 0.0))
    if syncs:
        found.append(finding(
            "fetching tensors to Python every step", sync_seconds, step,
            "keep values as tensors and fetch them every N steps (.numpy(), float() and print wait for the "
            "work before them, and on a GPU copy to the host)", "gpu",
            f"{syncs:,.1f} fetch{'es' if syncs != 1 else ''} per step (.numpy(), float(), int(), a list of tensors "
            f"made a tensor); {_t(sync_seconds / syncs)} each on this machine, and each one a wait on a GPU"))

    logs = spans.get(LOGS, (0.0, 0.0))
    spe = context.get("steps_per_execution")
    callbacks = [(name.removeprefix(CALLBACK), c, s) for name, (c, s) in spans.items()
                 if name.startswith(CALLBACK) and name.removeprefix(CALLBACK) != OWN_CALLBACK]
    if logs[0]:
        per_batch = logs[1] + n.dispatch_seconds / k
        found.append(finding(
            "Keras's work around every batch (steps_per_execution=1)" if spe == 1 else "Keras's work per batch",
            per_batch, step,
            "model.compile(..., steps_per_execution=32): Keras then runs 32 batches per call, converts the logs "
            "and calls the callbacks once for them", "steps_per_execution",
            f"each batch's logs fetched to Python ({_t(logs[1])}) and a function call set up "
            f"({_t(n.dispatch_seconds / k)}) for {_t(n.compute_seconds / k)} of arithmetic"))
    for name, _, seconds in sorted(callbacks, key=lambda x: -x[2]):
        found.append(finding(f"the callback {name}", seconds, step,
                             f"make {name}.on_train_batch_end cheaper, or run it every N batches", "profiler",
                             f"{_t(seconds)} per batch in {name}.on_train_batch_end"))

    waiting = n.input_seconds / k
    if waiting >= MIN_SECONDS:
        found.append(finding(
            "waiting for the input pipeline", waiting, step,
            "dataset.prefetch(tf.data.AUTOTUNE), map(..., num_parallel_calls=tf.data.AUTOTUNE), cache() a small "
            "dataset", "data", "IteratorGetNext waits inside the step"))

    retraced = context.get("retraces") or {}
    if n.retraces:
        why = "; ".join(f"{name}: {note}" for name, note in retraced.items() if note) or \
            "a Python number or a new shape among its arguments"
        names = ", ".join(sorted(n.retraced))[:120]
        cost = sum(s for name, (_, s) in n.functions.items() if name in n.retraced) / k
        found.append(finding(
            f"retracing {names}", cost, step,
            "pass tensors (tf.constant) instead of Python numbers, or give the function an input_signature; "
            "define it once, outside the loop", "retracing",
            f"traced again {n.retraces:,} times in {n.steps:,} steps ({why})"))

    converting = n.conversion_seconds / k
    if converting >= MIN_SECONDS:
        found.append(finding(
            "numpy arrays turned into tensors every step", converting, step,
            "make the data tensors once (tf.data, or tf.constant outside the loop) and keep it on the device",
            "data", f"{n.conversions / k:,.0f} convert_to_tensor per step on the Python thread"))

    # Outside every span, function and wait: the eager ops and the Python between them.
    eager = [(op, c, s, kernel) for op, (c, s, kernel) in by_type.items() if op not in INDEX_FOLLOWERS
             or not follower_count]
    eager_count = sum(c for _, c, _, _ in eager)
    eager_kernels = sum(kernel for *_, kernel in eager)
    eager_launching = sum(s for _, _, s, _ in eager)
    rest = max(0.0, step - sum(s for name, (_, s) in spans.items()) - functions_seconds - waiting - converting
               - follower_seconds)
    if eager_count >= LAUNCHED:
        found.append(finding(
            "ops launched one by one (no tf.function)", max(0.0, rest - eager_kernels), step,
            "decorate the training step with @tf.function: its ops then run as one graph, launched once",
            "function", f"{eager_count:,.0f} ops per step run eagerly: launching them took "
                        f"{_t(eager_launching - eager_kernels)} in TensorFlow, and the Python between them "
                        f"{_t(max(0.0, rest - eager_launching))}"))
    else:
        python = max(0.0, rest - eager_launching)
        if python >= MIN_SECONDS and python > 0.3 * step:
            found.append(finding(
                "Python between TensorFlow calls", python, step,
                "move the per-step Python (data preparation, bookkeeping) into the tf.function or a tf.data pipeline",
                "function", "time on the Python thread outside TensorFlow's calls"))

    setting_up = n.dispatch_seconds / k
    if (not logs[0] and n.function_calls / k > 0 and eager_count < LAUNCHED
            and (n.dispatch_seconds > n.compute_seconds or setting_up >= max(MIN_SECONDS, 0.3 * step))):
        calls = n.function_calls / k
        found.append(finding(
            "setting up a function call every step", n.dispatch_seconds / k, step,
            "run several steps per call: a tf.range loop inside the tf.function (K steps, the loss fetched once)",
            "function", f"{calls:,.2g} tf.function call{'s' if calls != 1 else ''} per step cost "
                        f"{_t(n.dispatch_seconds / k)} to set up for {_t(n.compute_seconds / k)} of arithmetic"))

    compile_seconds, train_seconds = context.get("compile_seconds", 0.0), context.get("train_seconds", 0.0)
    if compile_seconds and train_seconds and compile_seconds > train_seconds:
        once = finding(
            "compiling", compile_seconds / max(1, context.get("steps", 1)), step,
            "a longer run pays it back; XLA's persistent cache keeps a compile for the next run", "compile",
            f"tracing and compiling took {_t(compile_seconds)} once, more than the {_t(train_seconds)} of training "
            "it served (per step: spread over the run's steps)")
        once["share"] = compile_seconds / (compile_seconds + train_seconds)  # of the run, not of a step
        found.append(once)

    found = [f for f in found if (f["seconds_per_step"] >= MIN_SECONDS and f["share"] >= MIN_SHARE)
             or f["cause"].startswith(ALWAYS_NAMED)]
    # The arithmetic is what the causes above leave of the step, at most the kernels' own time.
    compute = min(n.compute_seconds / k, max(0.0, step - sum(f["seconds_per_step"] for f in found
                                                             if not f["cause"].startswith("compiling"))))
    # Named too when every cause found is small (one always named, such as a fetch of 1%): a cause of 1% must not
    # read as the change to make first.
    if not any(f["share"] >= MIN_SHARE for f in found) or compute > 0.5 * step:
        found.append(finding(
            ARITHMETIC, compute, step,
            "only less arithmetic (a smaller model or batch) or faster hardware makes it faster; the overhead "
            "around it is small", "profiler", f"{n.ops / k:,.0f} ops per step"))
    # Costliest first per step; a compile is paid once per run (its share is of the run), so it follows them.
    found.sort(key=lambda f: (f["category"] == "compile-bound", -f["seconds_per_step"]))
    return found


def headline(found: list[dict[str, Any]], step_seconds: float) -> str:
    """The findings in one sentence, costliest first: "model.predict in a loop: 64 ms of each 183 ms step (35%);
    ..."."""
    if not found:
        return ""
    parts = [f"{f['cause']}: {_t(f['seconds_per_step'])} of each {_t(step_seconds)} step "
             f"({percent_text(f['share'])})" if f["category"] != "compile-bound" else
             f"compiling: {percent_text(f['share'])} of the run's time" for f in found[:3]]
    # The first change is the costliest cause a change removes (the arithmetic is what remains after them).
    first = next((f for f in found if f["cause"] != ARITHMETIC and f["share"] >= MIN_SHARE), found[0])
    return "; ".join(parts) + f". The change to make first: {first['fix']}."


# ---------------------------------------------------------------- the GPU question, on a machine without one

# What a GPU step pays that a CPU step does not, per kernel and per copy between host and device. Not measured here
# (no GPU): each constant is a published figure, and the estimate is a range from the low to the high one.
LAUNCH_SECONDS = (5e-6, 20e-6)
LAUNCH_SOURCES = ("Holistic Trace Analysis (Meta), CUDA kernel launch statistics: \"the launch time on the CPU side "
                  "is between 5-20 microseconds\"",
                  "TensorFlow guide, Optimize TensorFlow GPU performance, Small GPU kernels and host kernel launch "
                  "delays: a latency \"around 20-40 μs\" before a kernel runs; \"each kernel is about 21.9 μs\"")
COPY_SECONDS = (5e-6, 7e-6)
COPY_SOURCE = ("Wu et al., DualPath (arXiv 2602.21548), §5.2: \"submitting a single copy operation via "
               "cudaMemcpyAsync incurs a latency overhead of approximately 5-7 μs\"")


def gpu_estimate(n: Any, *, steps_per_marker: int = 1) -> dict[str, Any]:
    """What a step would at least pay on a GPU and does not pay on this CPU: a launch per op, and a copy between
    host and device per conversion of host data and per fetch to Python (model.predict copies its input over and
    its output back). On a GPU run, the measured step stands beside it."""
    k = max(1, steps_per_marker)
    launches = n.ops / k
    spans = {name: count / k for name, (count, _) in n.spans.items()}
    copies = spans.get(SYNC, 0.0) + 2 * spans.get(PREDICT, 0.0) + n.conversions / k
    copies = max(copies, spans.get(LOGS, 0.0))
    low = launches * LAUNCH_SECONDS[0] + copies * COPY_SECONDS[0]
    high = launches * LAUNCH_SECONDS[1] + copies * COPY_SECONDS[1]
    step = n.step_seconds / k
    measured = bool(n.gpu)
    if measured:
        sentence = (f"Measured on this GPU: {_t(step)} per step, of which copies take {_t(n.copy_seconds / k)}; "
                    f"the estimate for its {launches:,.0f} launches and {copies:,.1f} copies is {_t(low)} to "
                    f"{_t(high)}.")
    else:
        slower = low > step
        sentence = (f"Not measured here (no GPU): on a GPU this step would pay at least {_t(low)} (up to "
                    f"{_t(high)}) for its {launches:,.0f} kernel launches and {copies:,.1f} copies between host and "
                    f"device, against {_t(step)} for the whole step on this CPU"
                    + (", so a GPU would run it slower: the ops are too small to pay for their launches; fewer, "
                       "larger ops (a bigger batch, XLA's fused kernels, K steps per call) change that."
                       if slower else "; the arithmetic, not the launches, decides here."))
    return {"seconds_per_step": low, "range_seconds_per_step": [low, high], "launches_per_step": launches,
            "copies_per_step": copies, "cpu_step_seconds": step, "measured": measured,
            "sources": [*LAUNCH_SOURCES, COPY_SOURCE], "sentence": sentence}
