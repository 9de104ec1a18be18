"""What the habits' hooks add to a step, paired in one process: blocks of a small tf.function training step (the
seed's size: a step of about half a millisecond) alternate with the hooks on and off, medians of the paired blocks.

    .venv/bin/python benchmarks/habit_hooks_cost.py --blocks 40 --block-steps 300

Cases:
- the step finder (``AutoSteps``, on for every tracked step): a tf.function call, and ``GradientTape.gradient`` when
  a step is eager (the gradient hook marks a hand-written update; eagerly it only checks and passes on);
- the capture's instruments (on only inside the profiled window, whose steps the lab leaves out of its speed): the
  retrace notes and the numpy arguments' scan on every tf.function call, a tf.function's maker noted.

Prints a Markdown table: per step off and on, the paired difference and its share of the step.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np
import tensorflow as tf

from rlcore.tracking.hooks import AutoSteps, Instruments


class _Run:
    """What AutoSteps reports to, doing nothing: the hooks' own cost is measured, not a run's reporting."""

    step_open = False
    timed_steps = 1
    stopped = False

    def end_step(self, **_: object) -> None:
        self.step_open = False

    def begin_step(self) -> None:
        self.step_open = True

    def restart_clock(self) -> None:
        pass

    def add_compiled_step(self, _: float) -> None:
        pass

    def add_loss(self, _: object) -> None:
        pass

    def log(self, **_: object) -> None:
        pass


def workloads() -> dict[str, object]:
    w = tf.Variable(tf.zeros((64, 1)))
    x, y = tf.random.normal((256, 64)), tf.random.normal((256, 1))
    x_numpy = np.random.default_rng(0).random((256, 64)).astype("float32")

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w - y) ** 2)
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss

    def eager_step() -> None:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((x @ w - y) ** 2)
        w.assign_sub(0.01 * tape.gradient(loss, w))

    train_step(x, y)
    train_step(x_numpy, y)
    return {"tf.function step": lambda: train_step(x, y), "tf.function step, numpy in": lambda: train_step(x_numpy, y),
            "eager step (GradientTape.gradient)": eager_step}


def block(step, n: int) -> float:
    started = time.perf_counter()
    for _ in range(n):
        step()
    return (time.perf_counter() - started) / n


def paired(step, install, remove, blocks: int, n: int) -> tuple[float, float, float]:
    offs, ons, diffs = [], [], []
    for i in range(blocks):
        order = (False, True) if i % 2 == 0 else (True, False)
        times = {}
        for on in order:
            if on:
                install()
            try:
                times[on] = block(step, n)
            finally:
                if on:
                    remove()
        offs.append(times[False])
        ons.append(times[True])
        diffs.append(times[True] - times[False])
    return statistics.median(offs), statistics.median(ons), statistics.median(diffs)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--blocks", type=int, default=40)
    p.add_argument("--block-steps", type=int, default=300)
    args = p.parse_args()
    rows = []
    for name, step in workloads().items():
        steps = AutoSteps(_Run())
        rows.append((f"step finder: {name}", *paired(step, steps.install, steps.remove, args.blocks,
                                                      args.block_steps)))
        instruments = Instruments()
        rows.append((f"capture's instruments: {name}", *paired(step, instruments.install, instruments.remove,
                                                                args.blocks, args.block_steps)))
    print("| hooks: step | off (per step) | on (per step) | cost per step (median of pairs) | share |")
    print("|---|---:|---:|---:|---:|")
    for name, off, on, diff in rows:
        print(f"| {name} | {off * 1e6:,.0f} µs | {on * 1e6:,.0f} µs | {diff * 1e6:+,.1f} µs | {diff / off:+.2%} |")


if __name__ == "__main__":
    main()
