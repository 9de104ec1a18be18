"""The benchmark lab's catalogue: every suite of patterns it can time (picking a DQN action, one HJB training step,
...), each suite declared by the workload it measures (``contract.suites``: the patterns, their why, how to build
one call), never imported from that workload by name. Plain data at import: the dashboard lists patterns and their why
without TensorFlow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rlcore.contract.suites import MissingFramework, Suite, all_suites

__all__ = ["SUITES", "MissingFramework", "Pattern", "Suite", "is_pattern", "k_steps", "pattern"]
Call = Callable[[], object]
SUITES: dict[str, Suite] = all_suites()


@dataclass(frozen=True)
class Pattern:
    """One way to run a suite's call, the reason it is as fast or slow as it is, and how to build one call."""

    suite: str
    name: str
    why: str
    steps_per_call: int = 1  # a kN pattern does N training steps in one call

    def build(self, batch: int, width: int, seed: int) -> Call:
        return SUITES[self.suite].source.build(self.suite, self.name, batch, width, seed, self.steps_per_call)


def k_steps(suite: str, name: str) -> re.Match[str] | None:
    """The N of a suite's N-steps-per-call pattern name (graph-k100), or None."""
    regex = SUITES[suite].k_steps
    return regex.match(name) if regex else None


def is_pattern(suite: str, name: str) -> bool:
    return name in SUITES[suite].patterns or k_steps(suite, name) is not None


def pattern(suite: str, name: str) -> Pattern:
    """The catalogue entry for a suite's pattern name (``graph-k100`` means 100 steps per call); the name must be
    one of the suite's (BenchConfig checks it with one sentence)."""
    k = k_steps(suite, name)
    if k:
        return Pattern(suite, name, SUITES[suite].why[k.group(1) + "-k"], steps_per_call=int(k.group(2)))
    return Pattern(suite, name, SUITES[suite].why[name])
