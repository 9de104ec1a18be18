"""HJB solver steps/s for every style, side by side in one run, against the seed's per-step graph loop.

Cells: eager, graph and xla with one step per call (graph with a nested tape is exactly the seed's
pattern: a tf.function per step, loss fetched every step), graph and xla with K steps per call, and
the tangent formulation of V' (no nested tape). Each cell: the first call timed on its own
(trace/compile), then repeats of at least --seconds each; the table shows medians and the spread.

    .venv/bin/python benchmarks/hjb_styles.py
    .venv/bin/python benchmarks/hjb_styles.py --batch 1000 --width 32 --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlcore.tracking.machine import environment_card
from rlcore.workloads.hjb import solver as hjb
from rlcore.workloads.hjb.config import HJBConfig

# (exec style, V' formulation, steps per call); the first row is the seed's pattern, the yardstick.
CELLS = [
    ("graph", "tape", 1), ("eager", "tape", 1), ("xla", "tape", 1),
    ("graph", "tape", 10), ("graph", "tape", 100), ("graph", "tape", 1000),
    ("xla", "tape", 10), ("xla", "tape", 100), ("xla", "tape", 1000),
    ("graph", "tangent", 1), ("graph", "tangent", 1000),
    ("xla", "tangent", 1), ("xla", "tangent", 100), ("xla", "tangent", 1000),
]


def measure(exec_mode: str, derivative: str, k: int, batch: int, width: int, seconds: float) -> dict:
    solver = hjb.Solver(HJBConfig(exec_mode=exec_mode, derivative=derivative, steps_per_call=k, batch_size=batch,
                                  width=width))
    t = time.perf_counter()
    solver.run(k)
    first_call = time.perf_counter() - t
    steps, t = 0, time.perf_counter()
    while time.perf_counter() - t < seconds:
        solver.run(k)
        steps += k
    return {"steps_per_second": steps / (time.perf_counter() - t), "first_call_seconds": first_call}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=100, help="k samples per step (default 100, the seed's)")
    p.add_argument("--width", type=int, default=8, help="units per hidden layer (default 8, the seed's)")
    p.add_argument("--seconds", type=float, default=3.0, help="minimum seconds per repeat (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="repeats per cell; medians shown (default 3)")
    p.add_argument("--json", help="write every measurement here")
    args = p.parse_args()

    rows = []
    for exec_mode, derivative, k in CELLS:
        runs = [measure(exec_mode, derivative, k, args.batch, args.width, args.seconds) for _ in range(args.repeats)]
        sps = [r["steps_per_second"] for r in runs]
        rows.append({"exec": exec_mode, "derivative": derivative, "steps_per_call": k, "runs": runs,
                     "steps_per_second": statistics.median(sps), "spread": [min(sps), max(sps)],
                     "first_call_seconds": statistics.median(r["first_call_seconds"] for r in runs)})
        print(f"{exec_mode} {derivative} K={k}: {rows[-1]['steps_per_second']:.0f} steps/s", file=sys.stderr,
              flush=True)

    seed = rows[0]["steps_per_second"]
    print(f"\n| style | V' | steps per call | steps/s (median of {args.repeats}) | min–max | vs seed pattern | "
          "first call (s) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['exec']} | {r['derivative']} | {r['steps_per_call']} | {r['steps_per_second']:,.0f} | "
              f"{r['spread'][0]:,.0f}–{r['spread'][1]:,.0f} | {r['steps_per_second'] / seed:.2g}x | "
              f"{r['first_call_seconds']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"batch": args.batch, "width": args.width, "cells": rows,
                                               "environment": environment_card()}, indent=2))


if __name__ == "__main__":
    main()
