"""A run's summary, typed where every part reads it: ``RunSummary`` is the JSON object a run's end wrote (so it
stores, exports and prints as it always did, and a workload's own results stay its own, by key), with the fields
the lab's generic parts read given types, and its profile parsed once (``Profile.from_json``) however often it is
asked for.

Made where the store reads a row (``runs.store``) and where a run ends; a plain dict of an older store reads the same
(``of``). No TensorFlow here: the dashboard reads it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rlcore.contract.profile import Profile
from rlcore.contract.profile import _number as profile_number


@dataclass(frozen=True)
class TriedFix:
    """A fix the lab tried on another run's code: its name (``--fix``), the change in words, the run it was tried on."""

    name: str
    change: str
    of: int


class RunSummary(dict):
    """A finished run's summary: a dict (its JSON), read through typed fields by the lab's generic parts."""

    @functools.cached_property
    def profile(self) -> Profile | None:
        """The profiled window's reading, typed (None: the run asked for none); parsed once."""
        return Profile.from_json(self.get("profile"))

    @property
    def steps(self) -> int:
        return int(_number(self.get("steps")) or 0)

    @property
    def train_seconds(self) -> float:
        return _number(self.get("train_seconds")) or 0.0

    @property
    def steps_per_second(self) -> float | None:
        return _number(self.get("steps_per_second"))

    @property
    def samples_per_second(self) -> float | None:
        return _number(self.get("samples_per_second"))

    @property
    def stopped_early(self) -> bool:
        return bool(self.get("stopped_early"))

    @property
    def diverged(self) -> str:
        """Why the run diverged ("the training loss became nan after 40 steps"), or ""."""
        return str(self.get("diverged") or "")

    @property
    def shared_machine(self) -> str:
        """The sentence saying which other runs trained beside this one (its speed is not clean), or ""."""
        shared = self.get("shared_machine")
        return str(shared.get("sentence") or "") if isinstance(shared, Mapping) else ""

    @property
    def system(self) -> Mapping[str, Any]:
        """What the machine did while the run trained (cores busy, memory, a GPU), by name."""
        system = self.get("system")
        return system if isinstance(system, Mapping) else {}

    @property
    def machine_cores(self) -> int | None:
        """The cores of the machine the run trained on, as its system sampler counted them (None: not sampled)."""
        cores = _number(self.system.get("machine_cores"))
        return int(cores) if cores else None

    @property
    def fix(self) -> TriedFix | None:
        """The fix this run tried on another run's code, or None."""
        fix = self.get("fix")
        if not isinstance(fix, Mapping):
            return None
        return TriedFix(str(fix.get("name") or ""), str(fix.get("change") or fix.get("name") or ""),
                        int(_number(fix.get("of")) or 0))

    def number(self, key: str) -> float | None:
        """A workload's own number by its key (a DQN run's first training call), checked as every number here is:
        what a damaged row holds there (text, a bool) is None."""
        return _number(self.get(key))

    def to_json(self) -> dict[str, Any]:
        return dict(self)


def of(summary: Any) -> RunSummary | None:
    """A summary as the lab reads it: a ``RunSummary`` (the same object when it is one), None for none or for what
    is no JSON object."""
    if isinstance(summary, RunSummary) or summary is None:
        return summary
    return RunSummary(summary) if isinstance(summary, Mapping) else None


def _number(value: Any) -> float | None:
    """A stored number as a finite float (the profile's own check); anything else (text, a bool, 10**400) is None."""
    try:
        return profile_number(value, "value")
    except (ValueError, OverflowError):
        return None
