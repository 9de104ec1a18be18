"""Every sentence a profile says, made from its typed fields in one place: the dashboard's Why panel, the CLI, a
script run's verdict and ``--json`` read these and never spell a profile's keys again.

- ``sentence``: the run's one reading: the leading causes in the code's words;
- ``headline``: the findings, costliest first, and the change to make first;
- ``reading``: what TensorFlow recorded, as counts and the step's time split (numbers, never a second verdict);
- ``gpu_sentence``: what a GPU step would at least pay;
- ``finding_line`` and ``where_line``: a finding, and a line of the person's code, as a terminal prints them.
"""

from __future__ import annotations

from typing import Any

from rlcore.contract.profile import Finding, GpuEstimate, Profile, Where
from rlcore.contract.text import count_text, percent_text, seconds_text


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
    return headline(p) if p.findings else reading(p)


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
    said = [f"{count_text(w.calls_per_step, 'call')} a step"] if w.calls_per_step else []
    said += [_t(w.seconds_per_step)] if w.seconds_per_step else []
    place = f"{w.file}, line {w.line}: " if is_cell(w.file) else f"{w.file}:{w.line}  "
    return place + w.code.strip() + (f"  ·  {' · '.join(said)}" if said else "")


def is_cell(file: str) -> bool:
    """Whether a ``where``'s file is a notebook's cell ("In [5]", "walk.ipynb, cell 7 (In [7])", "a cell")."""
    return file == "a cell" or file.startswith("In [") or (".ipynb, cell " in file and file.endswith(")"))


def finding_line(i: int, f: Finding) -> str:
    of = " of the run" if f.once_per_run else " of the step"
    text = (f"{i}. {f.title}: {_t(f.seconds_per_step)} per step ({percent_text(f.share)}{of}); {f.fix}."
            + (f" [{f.evidence}]" if f.evidence else ""))
    if f.in_effect:
        text += f" (already in effect: {f.in_effect})"
    return "\n".join([text, *(f"     {where_line(w)}" for w in f.where)])


def reading(p: Profile) -> str:
    """What TensorFlow itself recorded per step, as counts and the step's time split: the numbers under the
    verdict, never a second verdict (a store made before this version keeps the reading it was given)."""
    if p.stored_reading:
        return p.stored_reading
    calls = p.function_calls_per_step
    counted = [f"{p.ops_per_step:,.0f} ops a step", f"{p.eager_ops_per_step:,.0f} of them launched one by one from "
               f"Python", f"{calls:,.2g} tf.function call{'s' if calls != 1 else ''}"]
    if p.xla_ops_per_step:
        counted.append(f"{p.xla_ops_per_step:,.0f} ops in XLA clusters")
    if p.retraces:
        counted.append(f"{p.retraces:,} retracings of {', '.join(sorted(p.retraced))[:80]}")
    per = f" (a step: one call of {p.steps_per_marker:,} steps, divided by them)" if p.steps_per_marker > 1 else ""
    return (f"{'; '.join(counted)}{per}. Of each {_t(p.step_seconds)} step the kernels' arithmetic takes "
            f"{_t(p.compute_seconds)}, TensorFlow's dispatch around them {_t(p.dispatch_seconds)}, Python between "
            f"TensorFlow's calls {_t(p.python_seconds)}.")


def gpu_sentence(g: GpuEstimate) -> str:
    """What a GPU step would at least pay, against this CPU's step; on a GPU, the measured step beside it."""
    low, high = g.range_seconds_per_step
    if g.measured:
        return (f"Measured on this GPU: {_t(g.measured_step_seconds or g.cpu_step_seconds)} per step, of which "
                f"copies take {_t(g.copy_seconds)}; the estimate for its {g.launches_per_step:,.0f} launches and "
                f"{count_text(g.copies_per_step, 'copy', 'copies')} is {_t(low)} to {_t(high)}.")
    basis = f" ({g.cpu_basis})" if g.cpu_basis else ""
    paid = (f"{g.launches_per_step:,.0f} kernel launch{'es' if round(g.launches_per_step) != 1 else ''} and "
            f"{count_text(g.copies_per_step, 'copy', 'copies')} between host and device a step would take at least "
            f"{_t(low)} (up to "
            f"{_t(high)}) on a GPU, against {_t(g.cpu_step_seconds)} for the whole step on this CPU{basis}")
    if not g.slower:
        return f"Not measured here (no GPU): {paid}; the arithmetic, not the launches, decides whether a GPU helps."
    remedies = [r for r, in_effect in (("a bigger batch", False), ("XLA's fused kernels (jit_compile=True)", g.xla),
                                       ("more steps per call", False)) if not in_effect]
    done = [d for d, on in ((f"{g.steps_per_call:,} steps per call", g.steps_per_call > 1), ("XLA", g.xla)) if on]
    return (f"Not measured here (no GPU): slower on a GPU than on this CPU: {round(g.launches_per_step):,} launches "
            f"a step. {paid[0].upper() + paid[1:]}, so the ops are too small to pay for their launches; fewer, "
            f"larger ops change that: {', '.join(remedies)}" + (f" ({' and '.join(done)} already in effect)" if done
                                                                  else "") + ".")
