"""The benchmark lab's suites as the workloads declare them: each workload that has calls worth timing one against
another (picking a DQN action, one HJB step) registers its suites here from a module of plain data (``PATTERNS``,
``DESCRIPTIONS``, ``DEFAULTS``, ``K_STEPS``, ``WHY``, and ``build`` to make one call), and the bench workload reads
them here: no workload package imports another. Found as workloads are (the built-in packages, entry points,
``RLCORE_WORKLOADS``). Nothing here imports a framework.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from rlcore.contract import settings
from rlcore.contract.registry import Registry


class MissingFramework(RuntimeError):
    """A cell's framework is not installed: the cell is named with the install line, not measured."""


@dataclass(frozen=True)
class Suite:
    """A family of patterns: one kind of call (an action, a training step), timed in several ways."""

    name: str
    description: str
    patterns: tuple[str, ...]  # a kN pattern is written with the letters kN: graph-kN means graph-k100 and so on
    defaults: dict[str, str]  # patterns, batch and width when the bench leaves them empty
    k_steps: re.Pattern[str] | None  # the names of its N-steps-per-call patterns
    why: dict[str, str]  # per pattern (kN ones under "graph-k"): why it is as fast as it is
    source: Any  # the module that builds one call: source.build(suite, pattern, batch, width, seed, steps_per_call)


SUITES: Registry[Suite] = Registry("bench suite", group="rlcore.workloads", env=settings.WORKLOADS.name,
                                   builtin_package="rlcore.workloads")


def register_module(module: ModuleType) -> None:
    """Register every suite a workload's module of patterns declares."""
    for name, patterns in module.PATTERNS.items():
        SUITES.register(name, Suite(name, module.DESCRIPTIONS[name], patterns, module.DEFAULTS[name],
                                    re.compile(module.K_STEPS[name]) if name in module.K_STEPS else None,
                                    {p: text for (suite, p), text in module.WHY.items() if suite == name}, module))


def all_suites() -> dict[str, Suite]:
    """Every registered suite by name (importing the workloads that declare them)."""
    return dict(SUITES.items())
