"""Every sentence a profile says, made from its typed fields in one place: the dashboard's Why panel, the CLI, a
script run's verdict and ``--json`` read these and never spell a profile's keys again.

- ``sentence``: the run's one reading (the leading causes in the code's words, or TensorFlow's op-level reading
  where that is the verdict);
- ``headline``: the findings, costliest first, and the change to make first;
- ``reading``: TensorFlow's op-level reading, from the counts and the step's time split;
- ``gpu_sentence``: what a GPU step would at least pay;
- ``finding_line`` and ``where_line``: a finding, and a line of the person's code, as a terminal prints them.
"""

from __future__ import annotations

from typing import Any

from rlcore.contract.profile import Cause, Finding, GpuEstimate, Profile, Where
from rlcore.contract.text import percent_text, seconds_text

UNTESTED_GPU = ("(read from the GPU's timeline as TensorFlow's profiler documents it; this reading has not been "
                "checked against a real GPU)")


def _t(seconds: float) -> str:
    return seconds_text(seconds)


def as_json(p: Profile) -> dict[str, Any]:
    """The profile as a run's summary and ``--json`` keep it: its typed fields, and the sentences made from them
    (``sentence``, ``reading``, ``headline``, the GPU estimate's), for readers of the JSON."""
    out = p.to_json()
    if p.ok:
        out |= {"sentence": sentence(p), "reading": reading(p), "headline": headline(p)}
        if p.gpu_estimate is not None:
            out["gpu_estimate"]["sentence"] = gpu_sentence(p.gpu_estimate)
    return out


def sentence(p: Profile) -> str:
    """The run's reading in one sentence (a stored one, for a store made before the typed profile)."""
    if p.error:
        return p.error
    if p.stored_sentence:
        return p.stored_sentence
    if p.findings and p.verdict != p.op_verdict:
        return headline(p)
    return reading(p)


def headline(p: Profile) -> str:
    """The findings in one sentence, costliest first: "model.predict in a loop: 64 ms of each 183 ms step (35%);
    ...". The change to make first is the costliest cause a change removes."""
    if not p.findings:
        return ""
    parts = [f"{f.title}: {_t(f.seconds_per_step)} of each {_t(p.step_seconds)} step ({percent_text(f.share)})"
             if not f.once_per_run else f"{f.title}: {percent_text(f.share)} of the run's time"
             for f in p.findings[:3]]
    first = p.leading
    return "; ".join(parts) + (f". The change to make first: {first.fix}." if first is not None else ".")


def share_text(f: Finding) -> str:
    return percent_text(f.share) + (" of the run" if f.once_per_run else "")


def where_line(w: Where) -> str:
    """``train.py:42  q = model.predict(state)  ·  1 call a step · 78 ms``"""
    calls = f"{w.calls_per_step:,.3g} call{'s' if w.calls_per_step != 1 else ''} a step"
    cost = f" · {_t(w.seconds_per_step)}" if w.seconds_per_step else ""
    return f"{w.file}:{w.line}  {w.code.strip()}  ·  {calls}{cost}"


def finding_line(i: int, f: Finding) -> str:
    of = " of the run" if f.once_per_run else " of the step"
    text = (f"{i}. {f.title}: {_t(f.seconds_per_step)} per step ({percent_text(f.share)}{of}); {f.fix}."
            + (f" [{f.evidence}]" if f.evidence else ""))
    if f.in_effect:
        text += f" (already in effect: {f.in_effect})"
    return "\n".join([text, *(f"     {where_line(w)}" for w in f.where)])


def reading(p: Profile) -> str:
    """TensorFlow's own op-level reading of the step, with the numbers under it."""
    if p.stored_reading:
        return p.stored_reading
    k = max(1, p.steps_per_marker)
    step, compute, dispatch, python = (p.step_seconds * k, p.compute_seconds * k, p.dispatch_seconds * k,
                                       p.python_seconds * k)
    eager, ops, calls, conversion = (p.eager_ops_per_step * k, p.ops_per_step * k, p.function_calls_per_step * k,
                                     p.conversion_seconds * k)
    per = f" per call of {k:,} steps" if k > 1 else " per step"
    verdict = p.op_verdict
    if verdict == Cause.RETRACING:
        names = ", ".join(sorted(p.retraced))[:120]
        return (f"Retracing: {names} was traced again {p.retraces:,} times in {p.steps // k:,} steps (each step "
                f"{_t(step)}): a Python number or a new shape among its arguments makes every call a new graph; "
                "pass tensors, or fix an input_signature.")
    if verdict == Cause.COMPILE:
        return (f"Compile-bound: tracing and compiling took {_t(p.compile_seconds)}, more than the "
                f"{_t(p.train_seconds)} of training it served; a longer run, or a kept compile (XLA's cache), pays "
                "it back.")
    if verdict == Cause.COPY:
        return (f"Copy-bound: copies between host and GPU take {_t(p.copy_seconds * k)} of each step's {_t(step)}; "
                f"keep the data on the device {UNTESTED_GPU}.")
    if verdict == Cause.KERNEL_LAUNCH:
        return (f"Kernel-launch-bound: the GPU runs {p.device_kernels_per_step * k:,.0f} kernels{per} but is busy "
                f"only {_t(p.device_busy_seconds * k)} of {_t(step)}: each kernel is too small to pay for its "
                f"launch; larger batches or XLA's fused kernels help {UNTESTED_GPU}.")
    if verdict == Cause.LAUNCH:
        each = (dispatch + python) / eager if eager else 0.0
        return (f"Launch-bound: each step runs {eager:,.0f} ops one at a time from Python (≈ {_t(each)} each, "
                f"{_t(step)} in all); the arithmetic itself takes {_t(compute)}; a tf.function would make it one "
                "call.")
    if verdict == Cause.CONVERSION:
        return (f"Conversion: turning numpy arrays or Python values into tensors takes {_t(conversion)} of each "
                f"step's {_t(step)}; keep the data as tensors (or in the graph).")
    if verdict == Cause.PYTHON:
        return (f"Python-bound: {_t(python)} of each step's {_t(step)} passes in Python between TensorFlow calls; "
                f"TensorFlow itself takes {_t(compute + dispatch)} ({ops:,.0f} ops in {calls:,.1f} function "
                "calls).")
    if verdict == Cause.DISPATCH:
        said = f"{calls:,.1f} function call{'s' if calls != 1 else ''}"
        return (f"Dispatch-bound: {said}{per} cost {_t(dispatch)} to set up and launch, more than the "
                f"{_t(compute)} its {ops:,.0f} ops compute; more steps per call (a loop inside the function) spread "
                "that cost.")
    share = (compute + dispatch) / step if step else 0.0
    return (f"Compute-bound: the ops' arithmetic takes {_t(compute)} of each {'call' if k > 1 else 'step'}'s "
            f"{_t(step)} ({ops:,.0f} ops, {share:.0%} of it in TensorFlow); the overhead around them is small, so "
            "only less arithmetic, or faster hardware, makes it faster.")


def gpu_sentence(g: GpuEstimate) -> str:
    """What a GPU step would at least pay, against this CPU's step; on a GPU, the measured step beside it."""
    low, high = g.range_seconds_per_step
    if g.measured:
        return (f"Measured on this GPU: {_t(g.measured_step_seconds or g.cpu_step_seconds)} per step, of which "
                f"copies take {_t(g.copy_seconds)}; the estimate for its {g.launches_per_step:,.0f} launches and "
                f"{g.copies_per_step:,.1f} copies is {_t(low)} to {_t(high)}.")
    against = f"{_t(g.cpu_step_seconds)} for the whole step on this CPU" + (f" ({g.cpu_basis})" if g.cpu_basis
                                                                             else "")
    text = (f"Not measured here (no GPU): on a GPU this step would pay at least {_t(low)} (up to {_t(high)}) for "
            f"its {g.launches_per_step:,.0f} kernel launches and {g.copies_per_step:,.1f} copies between host and "
            f"device, against {against}")
    if g.slower:
        return text + (", so a GPU would run it slower: the ops are too small to pay for their launches; fewer, "
                       "larger ops (a bigger batch, XLA's fused kernels, K steps per call) change that.")
    return text + "; the arithmetic, not the launches, decides here."
