"""Sweeps in the store: validate every member, write the sweep and its runs at once, queue them, read results.

A sweep's members go through the same queue (and executor) as single runs: one at a time on this machine, in
parallel on a cluster. Nothing here knows which workload or which engine it is.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from typing import Any

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import label_of
from rlcore.contract.status import RunStatus
from rlcore.runs import executor
from rlcore.runs.store import Run, Store, Sweep


def create(store: Store, kind: str, base: dict[str, Any], space: search.Space, *, label: str = "",
           preset: str | None = None, engine: str | None = None) -> tuple[int, list[int]]:
    """Validate every member (one sentence naming the first bad one, nothing written), then write the sweep and
    its queued runs in one transaction and hand them to the executor."""
    workload = workloads.get(kind)
    members = search.members(workload, base, space, preset)
    name = executor.current(engine)
    sweep_id, run_ids = store.create_sweep(kind, dict(base), space.to_dict(),
                                           [(m.config, m.label(workload)) for m in members], label=label,
                                           preset=preset, executor=name)
    executor.submit(store, run_ids)
    return sweep_id, run_ids


def ranked_by(workload: workloads.Workload, runs: list[Run]) -> tuple[workloads.Headline, str]:
    """The headline a sweep's best is chosen by, and why when it is not the workload's first: members its
    yardstick does not judge (every finished one an "info" verdict, such as a DQN of 20 games, a speed test) are
    ranked by their speed, never crowned by a quality they were too short to reach."""
    first = workload.headlines[0]
    done = [r for r in runs if r.status == RunStatus.DONE and r.summary]
    verdicts = []
    for r in done:
        try:
            verdicts.append(workload.judge(workload.make_config(r.config), r.summary))
        except Exception:  # a stored config this version no longer reads: it is not judged here
            return first, ""
    speed = next((h for h in workload.headlines if h.unit.endswith("/s")), None)
    if verdicts and all(v.level == "info" for v in verdicts) and not first.timed and speed is not None:
        word = verdicts[0].word
        return speed, (f"its members are {word}s ({word}: the yardstick does not judge them), so none is best by "
                       f"{first.label}; ranked by {speed.label} instead")
    return first, ""


def space_of(sweep: Sweep) -> search.Space:
    return search.Space.from_dict(sweep.space)


def results(store: Store, sweep: Sweep, runs: list[Run] | None = None) -> list[search.SettingResult]:
    return results_of(sweep, runs if runs is not None else store.sweep_runs(sweep.id))


def results_of(sweep: Sweep, runs: list[Run]) -> list[search.SettingResult]:
    """The sweep's results per setting from its members as given."""
    varied = space_of(sweep).varied
    return search.aggregate(workloads.get(sweep.kind), varied, [(r.config, r.status, r.summary) for r in runs])


def status_counts(runs: list[Run]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in runs:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts


def results_rows(sweep: Sweep, rows: list[search.SettingResult]) -> list[dict[str, Any]]:
    """One plain row per setting (for CSV, JSON and the CLI's table): the varied values by flag name, the runs,
    each headline's mean and spread, the mean training seconds."""
    workload = workloads.get(sweep.kind)
    names = {f.name: label_of(f) for f in dataclasses.fields(workload.config)}
    out = []
    for r in rows:
        row = {names.get(k, k): v for k, v in r.setting.items()} | {"runs": r.runs, "done": r.done}
        for h in workload.headlines:
            row[f"{h.key} mean"], row[f"{h.key} spread"] = r.means[h.key], r.spreads[h.key]
        row["train_seconds mean"] = r.seconds
        out.append(row)
    return out


def export_csv(sweep: Sweep, rows: list[search.SettingResult]) -> str:
    table = results_rows(sweep, rows)
    buffer = io.StringIO()
    if table:
        writer = csv.DictWriter(buffer, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    return buffer.getvalue()


def to_dict(sweep: Sweep) -> dict[str, Any]:
    return dataclasses.asdict(sweep)
