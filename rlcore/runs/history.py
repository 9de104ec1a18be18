"""What changed since the previous run of the same code: a person edits their script and profiles it again; the new
run says what its previous one (the same script path, by the environment card) found that it no longer finds, what
is new, and how much faster it runs ("since run 13: model.predict in a loop gone; 6.6x faster"). Read from the
store, so the dashboard and the CLI say the same."""

from __future__ import annotations

from collections.abc import Iterable

from rlcore.contract import workloads
from rlcore.contract.profile import of_summary
from rlcore.runs.store import Run


def code_path(run: Run) -> str:
    """The script a run ran (its environment card's code), or "" for the lab's own code."""
    code = (run.environment or {}).get("code") if isinstance(run.environment, dict) else None
    return str(code.get("path") or "") if isinstance(code, dict) else ""


def previous_of(run: Run, runs: Iterable[Run]) -> Run | None:
    """The newest finished run before this one of the same script path (None for the lab's own code)."""
    path = code_path(run)
    if not path:
        return None
    earlier = [r for r in runs if r.id < run.id and r.status == "done" and r.kind == run.kind and code_path(r) == path]
    return max(earlier, key=lambda r: r.id, default=None)


def since_sentence(run: Run, runs: Iterable[Run]) -> str | None:
    """"Since run 13 (the same script): model.predict in a loop gone; 6.6x faster." None without a previous run."""
    previous = previous_of(run, runs)
    if previous is None or run.status != "done":
        return None
    rate = next((h for h in workloads.of_run(run.kind).headlines if h.unit.endswith("/s")), None)
    parts = []
    before, now = of_summary(previous.summary), of_summary(run.summary)
    if before is not None and now is not None and before.ok and now.ok:
        then = {f.title for f in before.findings}
        seen = {f.title for f in now.findings}
        parts += [f"{title} gone" for title in sorted(then - seen)]
        parts += [f"new: {title}" for title in sorted(seen - then)]
    if rate is not None:
        a = workloads.headline_value(run.summary, rate)
        b = workloads.headline_value(previous.summary, rate)
        if a and b:
            ratio = a / b
            parts.append(f"{ratio:,.1f}x faster" if ratio >= 1.05 else f"{1 / ratio:,.1f}x slower" if ratio <= 0.95
                         else "about as fast")
    changed = (previous.environment or {}).get("code", {}).get("sha256") != (run.environment or {}).get(
        "code", {}).get("sha256")
    what = "the same script, changed since" if changed else "the same script, unchanged"
    return f"Since run {previous.id} ({what}): " + ("; ".join(parts) if parts else "nothing it found changed") + "."
