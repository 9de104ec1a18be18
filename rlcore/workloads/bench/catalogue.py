"""The benchmark lab's catalogue: every suite of patterns it can time (``dqn-act``: picking an action; ``hjb-step``:
one HJB training step; ...), each suite declared by the workload it measures (``bench_patterns`` in that package:
the patterns, their why, how to build one call). Plain data at import: the dashboard lists patterns and their why
without TensorFlow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from rlcore.workloads.dqn import bench_patterns as dqn_patterns
from rlcore.workloads.hjb import bench_patterns as hjb_patterns

Call = Callable[[], object]
MissingFramework = hjb_patterns.MissingFramework


@dataclass(frozen=True)
class Suite:
    """A family of patterns: one kind of call (an action, a training step), timed in several ways."""

    name: str
    description: str
    patterns: tuple[str, ...]  # a kN pattern is written with the letters kN: graph-kN means graph-k100 and so on
    defaults: dict[str, str]  # patterns, batch and width when the bench leaves them empty
    k_steps: re.Pattern[str] | None  # the names of its N-steps-per-call patterns
    why: dict[str, str]  # per pattern (kN ones under "graph-k"): why it is as fast as it is
    source: ModuleType  # the workload's module that builds one call


def _suites(module: ModuleType) -> dict[str, Suite]:
    return {name: Suite(name, module.DESCRIPTIONS[name], patterns, module.DEFAULTS[name],
                        re.compile(module.K_STEPS[name]) if name in module.K_STEPS else None,
                        {p: text for (suite, p), text in module.WHY.items() if suite == name}, module)
            for name, patterns in module.PATTERNS.items()}


SUITES: dict[str, Suite] = {**_suites(dqn_patterns), **_suites(hjb_patterns)}


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
