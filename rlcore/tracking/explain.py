"""The why engine: the rules (``tracking.causes``) run in their order over one step, and what they saw becomes the
findings, costliest first. The engine keeps the arithmetic that makes the shares disjoint: each rule sees only what
the rules before it left (``Step.claim_eager``), a cause is named when it is worth a change (``MIN_SHARE`` of the
step and ``MIN_SECONDS``) or whatever it costs when its rule says so, and a cause paid once per run (a compile)
follows the per-step ones.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from typing import Any

from rlcore.contract.profile import Finding
from rlcore.tracking.causes import MIN_SECONDS, MIN_SHARE, Part, Rule, Step, rules
from rlcore.tracking.facts import StepFacts


def explain(numbers: Any, *, steps_per_marker: int = 1, facts: Mapping[str, Any] | None = None,
            calls: Mapping[str, list[Any]] | None = None, notes: list[str] | None = None) -> list[Finding]:
    """The causes of a step's time, costliest first (per training step: K steps per call divided out); their
    shares of the step sum to at most one. A rule that raises or says what is no finding (a plug-in's: a text, a
    negative or NaN share) is left out with a sentence naming it in ``notes``: the run and the other rules stand."""
    step = Step(numbers, max(1, steps_per_marker), StepFacts.of(facts), dict(calls or {}))
    always: set[int] = set()  # the findings of rules named whatever they cost (a fetch: on a GPU each one a wait)
    for rule in rules():
        try:
            seen_all = _as_list(rule.decide(step))
            checked = [_checked(seen) for seen in seen_all]
        except Exception as e:
            if notes is not None:
                notes.append(f"The cause rule {rule.name!r} was left out: it {_what_went_wrong(e)}.")
            continue
        for seen in checked:
            found = _finding(rule, seen, step)
            if rule.always_named or (found.seconds_per_step >= MIN_SECONDS and found.share >= MIN_SHARE):
                step.found.append(found)
                if rule.always_named:
                    always.add(id(found))
    ranked = sorted(step.found, key=lambda f: (f.once_per_run, -f.seconds_per_step))  # a compile after the rest
    return _within_the_step(ranked, step.seconds, always)


class _NotAFinding(ValueError):
    pass


def _what_went_wrong(e: Exception) -> str:
    return str(e) if isinstance(e, _NotAFinding) else f"raised {type(e).__name__}: {str(e)[:160]}"


def _checked(seen: Any) -> Part:
    """What a rule said, if it is a finding: a ``Part`` with a finite, non-negative time and a share in [0, 1]."""
    if not isinstance(seen, Part):
        raise _NotAFinding(f"returned {type(seen).__name__} {str(seen)[:60]!r}, not a Part")
    for name, value in (("seconds", seen.seconds), ("share", seen.share)):
        if name == "share" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise _NotAFinding(f"returned a {name} of {value!r}, not a finite number of zero or more")
    if seen.share is not None and seen.share > 1:
        raise _NotAFinding(f"returned a share of {seen.share!r}, more than the whole")
    return seen


NUMBERED = 0.02  # of the step: a part smaller than this is no numbered cause once the causes before it took theirs


def _within_the_step(found: list[Finding], step_seconds: float, always: set[int] = frozenset()) -> list[Finding]:
    """The per-step causes hold at most the step between them: a later one gets what the earlier ones left, and one
    left with (almost) nothing is not listed (no "0 µs per step (0%)"); one named always keeps a time it can show."""
    left = step_seconds
    out = []
    for f in found:
        if f.once_per_run or not step_seconds:
            out.append(f)
            continue
        seconds = min(f.seconds_per_step, max(0.0, left))
        left -= seconds
        cut = f.seconds_per_step - seconds > 1e-9  # (parts that sum to the step exactly are not cut by rounding)
        if cut and seconds < (MIN_SECONDS if id(f) in always else NUMBERED * step_seconds):
            continue
        if not cut:
            seconds = f.seconds_per_step
        out.append(dataclasses.replace(f, seconds_per_step=seconds, share=seconds / step_seconds)
                   if seconds != f.seconds_per_step else f)
    return out


def _as_list(seen: Part | Iterable[Part] | None) -> list[Any]:
    if seen is None:
        return []
    if isinstance(seen, Part):
        return [seen]
    if isinstance(seen, str | bytes | Mapping) or not isinstance(seen, Iterable):
        return [seen]  # checked, and said, as what it is
    return list(seen)


def _finding(rule: Rule, seen: Part, step: Step) -> Finding:
    share = seen.share if seen.share is not None else (seen.seconds / step.seconds if step.seconds else 0.0)
    own = rule.try_fix.name if rule.try_fix is not None else ""  # the fix the rule declares, unless it said otherwise
    return Finding(cause=rule.cause, title=seen.title, seconds_per_step=seen.seconds, share=share,
                   fix=seen.fix or rule.fix, guide=rule.guide, evidence=seen.evidence, where=seen.where,
                   in_effect=seen.in_effect, try_fix=own if seen.try_fix is None else seen.try_fix)
