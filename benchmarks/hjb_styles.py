"""HJB solver steps/s for every style, side by side in one run, against the seed's per-step graph loop.

Cells: eager, graph and xla with one step per call (graph with a nested tape is exactly the seed's
pattern: a tf.function per step, loss fetched every step), graph and xla with K steps per call, and
the tangent formulation of V' (no nested tape). Each cell: the first call timed on its own
(trace/compile), then repeats of at least --seconds each; the table shows medians and the spread.

    .venv/bin/python benchmarks/hjb_styles.py
    .venv/bin/python benchmarks/hjb_styles.py --batch 1000 --width 32 --repeats 5
    .venv/bin/python benchmarks/hjb_styles.py --pairs 5 --seconds 2   # the seed's pattern against the best, in turn
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


def paired(pairs: int, batch: int, width: int, seconds: float) -> dict:
    """The seed's pattern against the best style (xla + tangent + 1000 steps a call), and that style without each of
    its last three levers in turn — the residual's powers as pow, then Keras's Adam per variable in place of the flat
    Adam, then matmuls in place of the small layers' broadcast products — measured in turn, ``pairs`` times: ratios
    within a round."""
    import contextlib
    import functools

    def keras_adam(solver: hjb.Solver) -> None:
        solver.flat_adam = None  # K single steps through Keras's apply_gradients: read when the loop first traces

    def matmuls(solver: hjb.Solver) -> None:
        solver._value_and_slope = functools.partial(hjb.value_and_slope_tangent, fused=False)  # read at its trace

    @contextlib.contextmanager
    def pows():  # the residual's powers as tf.pow while the loop first traces (hjb.power reads _POWERS then)
        shortcuts = dict(hjb._POWERS)
        hjb._POWERS.clear()
        try:
            yield
        finally:
            hjb._POWERS.update(shortcuts)

    def made(exec_mode: str, derivative: str, k: int, without=(), as_pow: bool = False) -> tuple[hjb.Solver, int]:
        solver = hjb.Solver(HJBConfig(exec_mode=exec_mode, derivative=derivative, steps_per_call=k, batch_size=batch,
                                      width=width))
        for lever_off in without:
            lever_off(solver)
        with pows() if as_pow else contextlib.nullcontext():
            solver.run(k)  # traced and compiled before the rounds
        return solver, k

    cells = {"seed": made("graph", "tape", 1), "best": made("xla", "tangent", 1000),
             "best, pow": made("xla", "tangent", 1000, as_pow=True),
             "best, pow, Keras's Adam": made("xla", "tangent", 1000, [keras_adam], as_pow=True),
             "best, pow, Keras's Adam, matmuls": made("xla", "tangent", 1000, [keras_adam, matmuls], as_pow=True)}

    def rate(solver: hjb.Solver, k: int) -> float:
        steps, t = 0, time.perf_counter()
        while time.perf_counter() - t < seconds:
            solver.run(k)
            steps += k
        return steps / (time.perf_counter() - t)

    rounds = []
    for i in range(pairs):
        order = list(cells) if i % 2 == 0 else list(reversed(cells))  # alternate who goes first
        rounds.append({name: rate(*cells[name]) for name in order})
        r = rounds[-1]
        print(f"round {i + 1}: seed {r['seed']:,.0f} steps/s; " + ", ".join(
            f"{name} {r[name]:,.0f} ({r[name] / r['seed']:.1f}x)" for name in cells if name != "seed"),
            file=sys.stderr, flush=True)

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"

    over_seed = {name: [r[name] / r["seed"] for r in rounds] for name in cells if name != "seed"}
    best_over = {name: [r["best"] / r[name] for r in rounds] for name in cells if name not in ("seed", "best")}
    print(f"\n{pairs} rounds, medians (min-max):")
    for name, values in over_seed.items():
        print(f"  {name} / seed pattern: {spread(values)}")
    for name, values in best_over.items():
        print(f"  best / {name}: {spread(values)}")
    return {"rounds": rounds, "over_seed": over_seed, "best_over": best_over}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=100, help="k samples per step (default 100, the seed's)")
    p.add_argument("--width", type=int, default=8, help="units per hidden layer (default 8, the seed's)")
    p.add_argument("--seconds", type=float, default=3.0, help="minimum seconds per repeat (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="repeats per cell; medians shown (default 3)")
    p.add_argument("--json", help="write every measurement here")
    p.add_argument("--pairs", type=int, default=0,
                   help="instead of the table: the seed's pattern, the best style and the best without its last "
                        "levers (the residual's powers, flat Adam, broadcast products), measured in turn this many "
                        "rounds (ratios within a round; medians)")
    args = p.parse_args()
    if args.pairs:
        out = paired(args.pairs, args.batch, args.width, args.seconds)
        if args.json:
            Path(args.json).write_text(json.dumps(out | {"batch": args.batch, "width": args.width,
                                                         "environment": environment_card()}, indent=2))
        return

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
