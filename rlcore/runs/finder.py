"""Finding runs beyond "label contains", as W&B's and MLflow's run searches do: by kind, status, style, tag, the
leading cause of a profiled run, the script a run of your code ran, and a range of speed. The Runs page, its links
(``/runs?tag=baseline&cause=predict-bound``) and ``rlcore runs list --tag baseline --cause predict`` ask the same."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rlcore.contract import workloads
from rlcore.contract.profile import of_summary
from rlcore.runs.history import code_path
from rlcore.runs.store import Run


def leading_cause(run: Run) -> str:
    """A profiled run's verdict (its leading cause: "predict-bound"), or ""."""
    profile = of_summary(run.summary)
    return str(profile.verdict) if profile is not None and profile.ok else ""


def profile_damage(run: Run) -> str:
    """"its stored profile is damaged" for a run whose profile cannot be read, else "" (what a listing says of it)."""
    profile = of_summary(run.summary)
    return "its stored profile is damaged" if profile is not None and profile.damaged else ""


def speed(run: Run) -> float | None:
    """A run's speed by its workload's first rate headline (env steps/s, steps/s), or None."""
    rate = next((h for h in workloads.of_run(run.kind).headlines if h.unit.endswith("/s")), None)
    return workloads.headline_value(run.summary, rate) if rate else None


@dataclass(frozen=True)
class RunQuery:
    """What a run must be to be shown; empty parts ask nothing. ``cause`` matches a part of the leading cause
    ("predict" finds "predict-bound"); ``script`` a part of the script's path; ``label`` a part of the label."""

    kinds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    cause: str = ""
    script: str = ""
    label: str = ""
    min_speed: float | None = None
    max_speed: float | None = None

    def admits(self, run: Run) -> bool:
        rate = speed(run) if self.min_speed is not None or self.max_speed is not None else None  # asked: read it
        return all((
            not self.kinds or run.kind in self.kinds,
            not self.statuses or run.status in self.statuses,
            not self.styles or workloads.of_run(run.kind).style_text(run.config) in self.styles,
            not self.tags or bool(set(self.tags) & set(run.tags)),
            not self.cause or self.cause.lower() in leading_cause(run).lower(),
            not self.script or self.script.lower() in code_path(run).lower(),
            not self.label or self.label.lower() in run.label.lower(),
            self.min_speed is None or (rate is not None and rate >= self.min_speed),
            self.max_speed is None or (rate is not None and rate <= self.max_speed),
        ))


def matching(runs: Iterable[Run], query: RunQuery) -> list[Run]:
    return [r for r in runs if query.admits(r)]
