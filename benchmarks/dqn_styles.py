"""The four book-loop DQN styles on the same seed, side by side: env steps/s and where the time goes
(turbo has its own script, benchmarks/dqn_turbo.py).

Each style trains the book's configuration (random mode, batch 200, memory 1000) for a fixed wall-time
budget; throughput is measured after the replay warm-up (steady state: one train step per env step).
Repeats are median-ed. Run from the repository root:

    .venv/bin/python benchmarks/dqn_styles.py                 # all four book-loop styles, 3 repeats
    .venv/bin/python benchmarks/dqn_styles.py --styles graph xla --seconds 30
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlcore.contract import reporting
from rlcore.tracking.machine import environment_card
from rlcore.workloads.dqn import tf_styles as dqn
from rlcore.workloads.dqn.config import DQNConfig

DEFAULT_SECONDS = {"naive": 90.0, "eager": 40.0, "graph": 20.0, "xla": 20.0}


class SteadyState:
    """Stops the run after a wall-time budget; keeps the records from after the replay warm-up."""

    def __init__(self, budget: float, warmup_steps: int) -> None:
        self.budget, self.warmup_steps = budget, warmup_steps
        self.records: list[reporting.Record] = []

    def on_start(self, info: reporting.RunInfo) -> None:
        pass

    def on_record(self, record: reporting.Record) -> bool:
        if record.step > self.warmup_steps:
            self.records.append(record)
        return record.wall_seconds < self.budget

    def on_end(self, summary: dict) -> None:
        pass

    def measure(self) -> dict:
        first, last = self.records[0], self.records[-2]  # the last record comes after the final test
        steps = last.step - first.step
        seconds = last.wall_seconds - first.wall_seconds
        ms_per_step = {
            p: 1e3 * (last.metrics[reporting.PHASE_PREFIX + p] - first.metrics[reporting.PHASE_PREFIX + p]) / steps
            for p in dqn.PHASES
        }
        return {"steps": steps, "seconds": seconds, "steps_per_second": steps / seconds, "ms_per_step": ms_per_step}


def run_style(style: str, seconds: float, seed: int) -> dict:
    cfg = DQNConfig(exec_mode=style, seed=seed, eval_every=0, test_games=100)
    probe = SteadyState(seconds, warmup_steps=cfg.warmup + 50)
    dqn.train(cfg, probe, report_interval=0.5)
    return probe.measure()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--styles", nargs="+", default=list(DEFAULT_SECONDS), choices=list(DEFAULT_SECONDS),
                   help="styles to run (default: all four)")
    p.add_argument("--seconds", type=float, help="training budget per run (default: 90 naive, 40 eager, 20 others)")
    p.add_argument("--repeats", type=int, default=3, help="runs per style; the table shows medians (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of every run (default 0)")
    p.add_argument("--json", help="write every run and the medians here")
    args = p.parse_args()

    rows = {}
    for style in args.styles:
        budget = args.seconds or DEFAULT_SECONDS[style]
        runs = [run_style(style, budget, args.seed) for _ in range(args.repeats)]
        sps = [r["steps_per_second"] for r in runs]
        rows[style] = {
            "runs": runs,
            "steps_per_second": statistics.median(sps),
            "spread": [min(sps), max(sps)],
            "ms_per_step": {ph: statistics.median(r["ms_per_step"][ph] for r in runs) for ph in dqn.PHASES},
        }
        print(f"{style}: {rows[style]['steps_per_second']:.1f} steps/s (runs: {', '.join(f'{x:.1f}' for x in sps)})",
              file=sys.stderr, flush=True)

    slowest = min(r["steps_per_second"] for r in rows.values())
    print(f"\n| style | env steps/s (median of {args.repeats}) | min–max | vs slowest | "
          + " | ".join(f"{ph} ms/step" for ph in dqn.PHASES) + " |")
    print("|---" * (4 + len(dqn.PHASES)) + "|")
    for style, r in rows.items():
        phases = " | ".join(f"{r['ms_per_step'][ph]:.2f}" for ph in dqn.PHASES)
        print(f"| {style} | {r['steps_per_second']:.1f} | {r['spread'][0]:.1f}–{r['spread'][1]:.1f} | "
              f"{r['steps_per_second'] / slowest:.0f}x | {phases} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"styles": rows, "environment": environment_card()}, indent=2))


if __name__ == "__main__":
    main()
