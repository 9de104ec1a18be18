"""What changed since the previous run of the same code: a person edits their script and profiles it again; the new
run says what its previous one (the same script path, by the environment card) found that it no longer finds, what
is new, and how much faster it runs ("since run 13: model.predict in a loop gone; 6.6x faster"). Read from the
store, so the dashboard and the CLI say the same."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rlcore.contract import workloads
from rlcore.contract.profile import of_summary
from rlcore.contract.reporting import LOSS
from rlcore.contract.status import RunStatus
from rlcore.runs.store import Run, Store

NOISE = 1.3  # two runs of the same code on one machine differ this much by chance (ui.views.NOISE_RATIO)
SAID_UNCHANGED = 0.25  # of the step: a cause of unchanged code said to come or go only from this share


def code_path(run: Run) -> str:
    """The script a run ran (its environment card's code), or "" for the lab's own code."""
    code = (run.environment or {}).get("code") if isinstance(run.environment, dict) else None
    return str(code.get("path") or "") if isinstance(code, dict) else ""


def previous_of(run: Run, runs: Iterable[Run]) -> Run | None:
    """The newest finished run before this one of the same script path (None for the lab's own code)."""
    path = code_path(run)
    if not path or run.config.get(TRY_OF):  # a fix tried on a run is compared with that run (tries_of)
        return None
    earlier = [r for r in runs if r.id < run.id and r.status == RunStatus.DONE and r.kind == run.kind
               and code_path(r) == path and not r.config.get(TRY_OF)]
    return max(earlier, key=lambda r: r.id, default=None)


def since_sentence(run: Run, runs: Iterable[Run]) -> str | None:
    """"Since run 13 (the same script): model.predict in a loop gone; 6.6x faster." None without a previous run."""
    previous = previous_of(run, runs)
    if previous is None or run.status != RunStatus.DONE:
        return None
    rate = next((h for h in workloads.of_run(run.kind).headlines if h.unit.endswith("/s")), None)
    parts = []
    changed = (previous.environment or {}).get("code", {}).get("sha256") != (run.environment or {}).get(
        "code", {}).get("sha256")
    before, now = of_summary(previous.summary), of_summary(run.summary)
    if before is not None and now is not None and before.ok and now.ok:
        # Unchanged code: a cause near its threshold comes and goes with the machine's noise; only a large one
        # that came or went is a change worth saying.
        least = 0.0 if changed else SAID_UNCHANGED
        then = {f.title for f in before.findings if f.share >= least}
        seen = {f.title for f in now.findings if f.share >= least}
        parts += [f"{title} gone" for title in sorted(then - {f.title for f in now.findings})]
        parts += [f"new: {title}" for title in sorted(seen - {f.title for f in before.findings})]
    if rate is not None:
        a = workloads.headline_value(run.summary, rate)
        b = workloads.headline_value(previous.summary, rate)
        if a and b:
            ratio = a / b
            parts.append(f"{ratio:,.1f}x faster" if ratio >= NOISE else f"{1 / ratio:,.1f}x slower"
                         if ratio <= 1 / NOISE else f"about as fast ({ratio:,.2f}x, within what two runs of one "
                         f"script differ by on a shared machine: ±{NOISE - 1:.0%})")
    what = "the same script, changed since" if changed else "the same script, unchanged"
    return f"Since run {previous.id} ({what}): " + ("; ".join(parts) if parts else "nothing it found changed") + "."


# ---------------------------------------------------------------- fixes tried on a run's code

TRY_OF = "fix_of"  # the setting of a run that tries a fix on another run's code (the run it tries it on)
LOSS_ALIKE = 0.25  # relative difference of the last losses under which two runs' loss curves read alike


def tries_of(store: Store, run: Run) -> list[dict[str, Any]]:
    """The fixes tried on a run's code (runs whose ``fix_of`` is this run), each with its run, status, speed and
    ratio to the run, and whether its loss came out alike: [{fix, change, run_id, status, steps_per_second,
    ratio, loss}]."""
    rate = next((h for h in workloads.of_run(run.kind).headlines if h.unit.endswith("/s")), None)
    base = workloads.headline_value(run.summary, rate) if rate else None
    out = []
    for tried in sorted((r for r in store.list_runs() if r.config.get(TRY_OF) == run.id), key=lambda r: r.id):
        fix = tried.summary.fix if tried.summary is not None else None
        speed = workloads.headline_value(tried.summary, rate) if rate and tried.status == RunStatus.DONE else None
        out.append({"fix": tried.config.get("fix", ""), "change": fix.change if fix else tried.config.get("fix", ""),
                    "run_id": tried.id, "status": tried.status, "steps_per_second": speed,
                    "ratio": speed / base if speed and base else None,
                    "loss": _loss_alike(store, run.id, tried.id) if tried.status == RunStatus.DONE else None})
    return out


def _loss_alike(store: Store, run_id: int, other_id: int) -> str | None:
    """"alike", or "0.12, then 0.31", from each run's last logged loss (where both trained the same steps)."""
    frame = store.metrics([run_id, other_id], [LOSS])
    tails = {rid: float(series["value"].iloc[-1]) for rid, series in frame.groupby("run_id")}
    if run_id not in tails or other_id not in tails:
        return None
    a, b = tails[run_id], tails[other_id]
    return "alike" if abs(a - b) <= LOSS_ALIKE * max(abs(a), abs(b), 1e-12) else f"{a:.3g}, then {b:.3g}"


def tries_sentence(tries: list[dict[str, Any]]) -> list[str]:
    """One line per fix tried: "steps_per_execution=32: 3.3x (run 18), loss alike"."""
    lines = []
    for t in tries:
        if t["ratio"] is None:
            lines.append(f"{t['change']}: run {t['run_id']} {t['status']}")
            continue
        loss = f", loss {t['loss']}" if t["loss"] else ""
        lines.append(f"{t['change']}: {t['ratio']:,.2f}x the speed (run {t['run_id']}){loss}")
    return lines
