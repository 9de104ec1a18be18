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


def train(cfg: BenchConfig, reporter: Reporter) -> Outcome:
    from rlcore.workloads.bench import harness

    summary = harness.run(cfg, reporter)
    return Outcome(summary, {}, summary["stopped_early"])


def judge(cfg: BenchConfig, summary: dict[str, Any]) -> Verdict:
    cells = [c for c in summary.get("cells") or [] if "missing" not in c]
    if not cells:
        why = f" {' '.join(summary['missing'])}" if summary.get("missing") else ""
        return Verdict("fail", "no result", f"No cell was measured.{why}")
    noisy = [c for c in cells if c.get("iqr") and c["iqr"] > NOISY * c["steps_per_second"]]
    if noisy:
        worst = max(noisy, key=lambda c: c["iqr"] / c["steps_per_second"])
        return Verdict("rough", "noisy", f"Noisy: {len(noisy)} of {len(cells)} cells vary by more than a quarter "
                       f"of their median (worst: {worst['pattern']} at batch {worst['batch']:,}, IQR "
                       f"{percent_text(worst['iqr'] / worst['steps_per_second'])}); repeat on a quieter machine or "
                       "with more repeats.")
    missing = f" Not measured: {' '.join(summary['missing'])}" if summary.get("missing") else ""
    return Verdict("ok", "steady", f"Steady: all {len(cells)} cells' repeats lie within a quarter of their median."
                   + missing)


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
