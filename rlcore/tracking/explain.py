"""The why engine: the rules (``tracking.causes``) run in their order over one step, and what they saw becomes the
findings, costliest first. The engine keeps the arithmetic that makes the shares disjoint: each rule sees only what
the rules before it left (``Step.claim_eager``), a cause is named when it is worth a change (``MIN_SHARE`` of the
step and ``MIN_SECONDS``) or whatever it costs when its rule says so, and a cause paid once per run (a compile)
follows the per-step ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from rlcore.contract.profile import Finding
from rlcore.tracking.causes import MIN_SECONDS, MIN_SHARE, Rule, Seen, Step, rules


def explain(numbers: Any, *, steps_per_marker: int = 1, facts: Mapping[str, Any] | None = None,
            calls: Mapping[str, list[Any]] | None = None) -> list[Finding]:
    """The causes of a step's time, costliest first (per training step: K steps per call divided out); their
    shares of the step sum to at most one."""
    step = Step(numbers, max(1, steps_per_marker), dict(facts or {}), dict(calls or {}))
    for rule in rules():
        for seen in _as_list(rule.decide(step)):
            found = _finding(rule, seen, step)
            if rule.always_named or (found.seconds_per_step >= MIN_SECONDS and found.share >= MIN_SHARE):
                step.found.append(found)
    ranked = sorted(step.found, key=lambda f: (f.once_per_run, -f.seconds_per_step))  # a compile after the rest
    return _within_the_step(ranked, step.seconds)


def _within_the_step(found: list[Finding], step_seconds: float) -> list[Finding]:
    """The per-step causes hold at most the step between them: a later one gets what the earlier ones left."""
    left = step_seconds
    out = []
    for f in found:
        if f.once_per_run or not step_seconds:
            out.append(f)
            continue
        seconds = min(f.seconds_per_step, max(0.0, left))
        left -= seconds
        out.append(dataclasses.replace(f, seconds_per_step=seconds, share=seconds / step_seconds)
                   if seconds != f.seconds_per_step else f)
    return out


def _as_list(seen: Seen | Iterable[Seen] | None) -> list[Seen]:
    if seen is None:
        return []
    return [seen] if isinstance(seen, Seen) else list(seen)


def _finding(rule: Rule, seen: Seen, step: Step) -> Finding:
    share = seen.share if seen.share is not None else (seen.seconds / step.seconds if step.seconds else 0.0)
    return Finding(cause=rule.cause, title=seen.title, seconds_per_step=seen.seconds, share=share,
                   fix=seen.fix or rule.fix, guide=rule.guide, evidence=seen.evidence, where=seen.where,
                   in_effect=seen.in_effect, try_fix=rule.try_fix if seen.try_fix is None else seen.try_fix)
