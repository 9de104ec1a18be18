"""The habits benchmark: every script here with a ``# habit:`` header is profiled as a person would
(``rlcore profile --json``) and scored against its label; every fixed variant (``# fixed-of:``) must read without
its habit's cause leading, and healthy scripts (``# habit: healthy``) must not lead with a habit.

    .venv/bin/python benchmarks/habits/score.py [--only NAME ...] [--json docs/measurements/habits.json]

A label: ``# habit: CAUSE`` (the verdict a right reading leads with), ``# names: CAUSE`` (a cause it must name
beside the lead; its where and fix are the ones scored), ``# where: TEXT | TEXT`` (source lines, any of
which a right ``where`` of the leading cause names), ``# fix: WORDS`` (words the leading cause's fix holds),
``# fixed: FILE`` (its fixed variant). Scored: lead right, where right, fix fits, confidently wrong (a wrong leading
cause, where the truth is known and the lab named one), fixed variant clean. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RLCORE = [str(Path(sys.executable).with_name("rlcore"))]  # the console command, as a person runs it
HEALTHY = "healthy"
READ_AS_HEALTHY = ("compute-bound", "")  # the arithmetic itself, or nothing worth a change


@dataclass
class Label:
    script: str
    cause: str
    where: list[str] = field(default_factory=list)
    fix: str = ""
    fixed: str = ""
    names: str = ""  # a cause that must be named beside the lead: where and fix are read on it


def labels() -> list[Label]:
    out = []
    for path in sorted(HERE.glob("*.py")):
        header = {}
        for line in path.read_text().splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            header[key.strip()] = value.strip()
        if "habit" in header:
            out.append(Label(path.name, header["habit"], [w.strip() for w in header.get("where", "").split("|")
                                                          if w.strip()], header.get("fix", ""),
                             header.get("fixed", ""), header.get("names", "")))
    return out


def profiled(script: str, home: str) -> dict:
    """The script's reading, as ``rlcore profile --json`` writes it."""
    out = Path(home) / f"{script}.json"
    started = time.perf_counter()
    done = subprocess.run([*RLCORE, "profile", "--json", str(out), script], cwd=HERE, capture_output=True,
                          text=True, timeout=300, env=os.environ | {"RLCORE_HOME": home, "PYTHONPATH": str(ROOT)})
    if done.returncode or not out.exists():
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:] or ["failed"],
                "seconds": time.perf_counter() - started}
    result = json.loads(out.read_text())
    result["seconds"] = time.perf_counter() - started
    return result


def lead(result: dict) -> dict:
    findings = [f for f in (result.get("profile") or {}).get("findings", []) if f.get("cause") != "compile-bound"]
    return findings[0] if findings else {}


def cause_of(finding: dict) -> str:
    return str(finding.get("cause") or "")


def score(label: Label, result: dict, fixed: dict | None) -> dict:
    first = lead(result)
    cause = cause_of(first)
    row = {"script": label.script, "truth": label.cause, "lead": cause or "(none)",
           "title": first.get("title") or "", "error": result.get("error")}
    if label.cause == HEALTHY:
        row["lead_right"] = cause in READ_AS_HEALTHY
        row["wrong"] = not row["lead_right"]
        return row
    row["lead_right"] = cause == label.cause
    row["wrong"] = bool(cause) and not row["lead_right"] and cause != "not-explained"
    if label.names:  # the finding the label is about is named beside the lead
        named = next((f for f in (result.get("profile") or {}).get("findings", []) if cause_of(f) == label.names), {})
        row["lead_right"] = row["lead_right"] and bool(named)
        first = named
    shown = [f"{w.get('code', '')}" for w in first.get("where", [])]
    row["where_right"] = None if not label.where else row["lead_right"] and any(
        any(want in code for code in shown) for want in label.where)
    row["where"] = "; ".join(f"{w.get('file')}:{w.get('line')}" for w in first.get("where", [])[:3])
    row["fix_fits"] = None if not label.fix else row["lead_right"] and label.fix.lower() in (
        str(first.get("fix", "")).lower())
    if fixed is not None:
        fixed_cause = cause_of(lead(fixed))
        row["fixed_lead"] = fixed_cause or "(none)"
        fixed_causes = {cause_of(f) for f in (fixed.get("profile") or {}).get("findings", [])}
        row["fixed_clean"] = not fixed.get("error") and (label.names not in fixed_causes if label.names
                                                         else fixed_cause != label.cause)
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", default=[], help="script names (without .py) to run")
    p.add_argument("--json", type=Path, help="write every reading and its score here")
    args = p.parse_args()
    chosen = [label for label in labels() if not args.only or label.script.removesuffix(".py") in args.only]
    rows, readings = [], {}
    with tempfile.TemporaryDirectory() as home:
        for label in chosen:
            result = profiled(label.script, home)
            fixed = profiled(label.fixed, home) if label.fixed else None
            readings[label.script] = result
            if label.fixed:
                readings[label.fixed] = fixed
            row = score(label, result, fixed)
            rows.append(row)
            print(f"{label.script}: {row['lead']} ({'right' if row['lead_right'] else 'WRONG'}) {row['title']}"
                  f" {row.get('where', '')} {row.get('error') or ''}", file=sys.stderr, flush=True)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "readings": readings}, indent=1, default=str))


def table(rows: list[dict]) -> str:
    def mark(value: object) -> str:
        return "—" if value is None else ("yes" if value else "**no**")

    lines = ["| script | truth | the lab's lead | lead right | where right | fix fits | fixed variant clean |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['script']} | {r['truth']} | {r['lead']}: {r['title'][:60]} | {mark(r['lead_right'])} | "
                     f"{mark(r.get('where_right'))} | {mark(r.get('fix_fits'))} | "
                     f"{mark(r.get('fixed_clean')) if 'fixed_clean' in r else '—'} |")
    habits = [r for r in rows if r["truth"] != HEALTHY]
    wheres = [r["where_right"] for r in habits if r.get("where_right") is not None]
    fixes = [r["fix_fits"] for r in habits if r.get("fix_fits") is not None]
    cleans = [r["fixed_clean"] for r in habits if "fixed_clean" in r]
    lines.append("")
    lines.append(f"Lead right {sum(r['lead_right'] for r in rows)} of {len(rows)}; where right {sum(wheres)} of "
                 f"{len(wheres)}; fix fits {sum(fixes)} of {len(fixes)}; confidently wrong "
                 f"{sum(r['wrong'] for r in rows)}; fixed variants clean {sum(cleans)} of {len(cleans)}.")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
