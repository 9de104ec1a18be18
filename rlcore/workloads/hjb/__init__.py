"""The HJB solver of seed 002: the growth model's HJB equation solved by the seed's small network in eager, graph or
XLA, K steps per call (``solver``), judged against the exact solution (``reference``), with its presets
(``config``), its store upgrades and its bench patterns (the HJB step, and the same step in PyTorch and JAX:
``frameworks``).

Importing this package registers the workload and imports no framework.
"""

from __future__ import annotations

from typing import Any

from rlcore.contract import suites
from rlcore.contract.reporting import LOSS, STEPS_PER_S
from rlcore.contract.text import percent_text
from rlcore.contract.workloads import Chart, Headline, Outcome, Reporter, Verdict, Workload, register
from rlcore.workloads.hjb import bench_patterns
from rlcore.workloads.hjb.config import HJB_PRESETS, HJBConfig
from rlcore.workloads.hjb.metrics import MAX_ABS_RESIDUAL, MAX_REL_ERR_C, MAX_REL_ERR_V
from rlcore.workloads.hjb.upgrades import UPGRADES

ACCURATE = 0.01  # max relative error of c and V for "converged"
ROUGH = 0.10  # ... for "rough"


def train(cfg: HJBConfig, reporter: Reporter) -> Outcome:
    from rlcore.workloads.hjb import solver

    result = solver.train(cfg, reporter)
    return Outcome(result.summary(), {}, result.stopped_early)


def judge(cfg: HJBConfig, summary: dict[str, Any]) -> Verdict:
    from rlcore.workloads.hjb.reference import spurious_branch

    err_v, err_c = summary.get("max_rel_err_V"), summary.get("max_rel_err_c")
    if err_v is None or err_c is None:
        return Verdict("fail", "no result", "The run ended before its accuracy was measured.")
    errors = (f"max relative error {percent_text(err_v)} in V and {percent_text(err_c)} in c against the exact "
              "solution")
    branch = spurious_branch(cfg, summary.get("V", []), summary.get("c", []), summary.get("V_exact", []))
    if branch:
        return Verdict("fail", "not converged", f"Not converged: {branch} ({errors}).")
    if max(err_v, err_c) <= ACCURATE:
        return Verdict("ok", "converged", f"Converged: {errors}.")
    if max(err_v, err_c) <= ROUGH:
        return Verdict("rough", "rough", f"Roughly converged: {errors} (within 10%, not yet within 1%).")
    return Verdict("fail", "not converged", f"Not converged: {errors}.")


def describe(cfg: HJBConfig, summary: dict[str, Any]) -> str:
    return (f"{summary['steps']:,} steps in {summary['train_seconds']:.1f} s ({summary['steps_per_second']:,.0f} "
            f"steps/s, {cfg.exec_mode}, {cfg.steps_per_call:,} per call, first call "
            f"{summary['first_call_seconds']:.2f} s); max relative error V {percent_text(summary['max_rel_err_V'])}, "
            f"c {percent_text(summary['max_rel_err_c'])}.")


WORKLOAD = register(Workload(
    order=20,
    kind="hjb", title="HJB solver",
    description="The neoclassical growth model's HJB equation solved by the seed's small network.",
    config=HJBConfig, train=train, judge=judge, describe=describe,
    headlines=(Headline("max_rel_err_c", "max error of c", "%", "lower"),
               Headline("max_rel_err_V", "max error of V", "%", "lower"),
               Headline("steps_per_second", "steps/s", "steps/s"),
               Headline("train_seconds", "training time", "s", "lower")),
    charts=(Chart(LOSS, "loss", log_y=True, smooth=True, bar="loss"),
            Chart(STEPS_PER_S, "steps per second", bar="steps/s"),
            Chart(MAX_REL_ERR_C, "max relative error of c", log_y=True, percent=True, bar="err c"),
            Chart(MAX_REL_ERR_V, "max relative error of V", log_y=True, percent=True)),
    metric_titles={MAX_ABS_RESIDUAL: "max absolute HJB residual"},
    presets=HJB_PRESETS, icon=":material/show_chart:", upgrades=UPGRADES,
    preset_help={
        "seed": "The seed's own code: graph style, one step per call, batch 100, a fixed rate, 100,000 steps from a "
                "flat start. The question's baseline, not its best.",
        "accurate": "Within about 0.05% of the exact c and 0.005% of V (measured: c 0.011% to 0.033%, V 0.001% to "
                    "0.002% over four runs on 2 cores): float64, XLA with 1,000 steps per call, batch 1,000, a "
                    "cosine-decaying rate, a start fitted to a guess, then L-BFGS; about a minute on 2 cores.",
    },
    yardstick="The network is judged against the exact solution (the saddle path of the growth model): the max "
              "relative error is the largest |network / exact − 1| over 200 points of k in [0.1, 10], for the "
              "value V and for consumption c. Both within 1% is converged, within 10% rough; a network that found "
              "the residual's spurious V ≈ 0 solution is not converged whatever its loss.",
))
suites.register_module(bench_patterns)  # its calls the benchmark lab times
