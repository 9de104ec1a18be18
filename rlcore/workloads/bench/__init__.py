"""The benchmark lab: each pattern of a suite in the catalogue (``catalogue``: the suites the workloads declare,
such as picking a DQN action or one HJB step) timed on its own over batch sizes, widths and devices by a harness
that runs one process per device (``harness``); its settings in ``config``.

Importing this package registers the workload and imports no framework.
"""

from __future__ import annotations

from typing import Any

from rlcore.contract.text import percent_text
from rlcore.contract.workloads import Headline, Outcome, Reporter, Verdict, Workload, register
from rlcore.workloads.bench.catalogue import SUITES
from rlcore.workloads.bench.config import BenchConfig

NOISY = 0.25  # a cell whose interquartile range exceeds this share of its median is noisy
# A cell whose samples/s is this many times below its pattern's neighbouring batch sizes (on the same device and
# width) is an outlier: more samples per call does not make a call that much slower per sample.
OUTLIER = 20.0


def _name(c: dict[str, Any]) -> str:
    return f"{c['pattern']} at batch {c['batch']:,}" + (f", width {c['width']:,}" if c.get("width") else "") + (
        f" on {c['device']}" if c.get("device") and c["device"] != "cpu" else "")


def outliers(cells: list[dict[str, Any]]) -> list[tuple[dict[str, Any], float]]:
    """Cells far below their own pattern's neighbours (the batch sizes beside them), with how many times below."""
    found = []
    rows: dict[tuple, list[dict[str, Any]]] = {}
    for c in cells:
        rows.setdefault((c["pattern"], c.get("device"), c.get("width")), []).append(c)
    for row in rows.values():
        row = sorted(row, key=lambda c: c["batch"])
        for i, c in enumerate(row):
            near = [n["samples_per_second"] for n in (row[i - 1] if i else None, row[i + 1] if i + 1 < len(row)
                                                        else None) if n is not None]
            if near and c["samples_per_second"] > 0 and all(v > OUTLIER * c["samples_per_second"] for v in near):
                found.append((c, min(near) / c["samples_per_second"]))
    return found


def compile_dominated(cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cells whose first call (the trace and compile) took longer than all their timed calls together."""
    return [c for c in cells if c.get("calls") and c.get("calls_per_second")
            and c.get("first_call_seconds", 0.0) > c["calls"] / c["calls_per_second"]]


def train(cfg: BenchConfig, reporter: Reporter) -> Outcome:
    from rlcore.workloads.bench import harness

    summary = harness.run(cfg, reporter)
    return Outcome(summary, {}, summary["stopped_early"])


def judge(cfg: BenchConfig, summary: dict[str, Any]) -> Verdict:
    cells = [c for c in summary.get("cells") or [] if "missing" not in c]
    if not cells:
        why = f" {' '.join(summary['missing'])}" if summary.get("missing") else ""
        return Verdict("fail", "no result", f"No cell was measured.{why}")
    far = outliers(cells)
    slow_start = compile_dominated(cells)
    if far:
        cell, times = max(far, key=lambda p: p[1])
        first = next((c for c in slow_start if c is cell), None)
        others = f" ({len(far) - 1:,} more: {', '.join(_name(c) for c, _ in far[1:4])})" if len(far) > 1 else ""
        return Verdict("rough", "outlier", (
            f"Outlier: {_name(cell)} ran {times:,.0f}x below its pattern at the batch sizes beside it "
            f"({cell['steps_per_second']:,.3g} steps/s){others}"
            + (f"; its first call took {cell['first_call_seconds']:,.1f} s, more than its {cell['calls']:,} timed "
               "calls together: the compile dominated" if first else "")
            + ". Measure that cell again (more repeats, a longer min_seconds) before reading it."))
    noisy = [c for c in cells if c.get("iqr") and c["iqr"] > NOISY * c["steps_per_second"]]
    compiled = (f" The first call dominated in {', '.join(_name(c) for c in slow_start[:3])}"
                + (f" and {len(slow_start) - 3:,} more" if len(slow_start) > 3 else "")
                + ": tracing and compiling took longer than the timed calls (left out of the speed)."
                if slow_start else "")
    if noisy:
        worst = max(noisy, key=lambda c: c["iqr"] / c["steps_per_second"])
        return Verdict("rough", "noisy", f"Noisy: {len(noisy)} of {len(cells)} cells vary by more than a quarter "
                       f"of their median (worst: {worst['pattern']} at batch {worst['batch']:,}, IQR "
                       f"{percent_text(worst['iqr'] / worst['steps_per_second'])}); repeat on a quieter machine or "
                       "with more repeats." + compiled)
    missing = f" Not measured: {' '.join(summary['missing'])}" if summary.get("missing") else ""
    return Verdict("ok", "steady", f"Steady: all {len(cells)} cells' repeats lie within a quarter of their median."
                   + compiled + missing)


def describe(cfg: BenchConfig, summary: dict[str, Any]) -> str:
    from rlcore.workloads.bench import harness

    return harness.cells_table(summary["cells"]).to_string(index=False)


PRESETS = {name: {"workload": name} | suite.defaults for name, suite in SUITES.items()}

WORKLOAD = register(Workload(
    order=30,
    kind="bench", title="Benchmark lab",
    description="Each TensorFlow pattern of a workload timed on its own over batch sizes, widths and devices: "
                "the first call (trace and compile) apart, then repeats whose median and spread are reported.",
    config=BenchConfig, train=train, judge=judge, describe=describe, unit="cells",
    headlines=(Headline("best_steps_per_second", "fastest steps/s", "steps/s"),
               Headline("speedup", "fastest / slowest at one batch", "x"),
               Headline("train_seconds", "measuring time", "s", "lower")),
    presets=PRESETS, preset_param="workload", icon=":material/speed:",
))
