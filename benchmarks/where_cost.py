"""What finding the lines of a person's code costs: a profiled window with the ``where`` count after it (3 steps in
which each watched call and each eager op is counted at the person's line, by a stack walk) against the same window
without it, paired in one process, alternating, medians of the repeats. Two loops: the naive port's eager step
(hundreds of ops launched one by one and a tensor indexed in a Python loop: the most stack walks a step can make)
and the seed's HJB step (one tf.function call and one fetch a step).

Reported per case: the timed steps' speed with the count on and off (the count's steps are left out of it, as the
capture's are: the ratio says whether anything leaks into the timed steps), and the seconds the window and the count
add to the run's wall time (what a person waits).

    .venv/bin/python benchmarks/where_cost.py --repeats 7 --steps 120
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore.contract.reporting import ListReporter
from rlcore.tracking.capture import WHERE_STEPS
from rlcore.tracking.run import TrainingRun


def eager_step():
    """The naive port's training step: eager, Q(s, a) gathered with a Python list (64 rows)."""
    import tensorflow as tf
    from tensorflow import keras

    model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(150, activation="relu"),
                              keras.layers.Dense(100, activation="relu"), keras.layers.Dense(4)])
    optimizer = keras.optimizers.Adam(1e-3)
    x = tf.random.normal((64, 64))
    actions = list(range(4)) * 16

    def step():
        with tf.GradientTape() as tape:
            q = model(x)
            picked = tf.stack([q[i][actions[i]] for i in range(64)])
            loss = tf.reduce_mean(picked ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables,
                                      strict=True))
        return loss
    return step


def graph_step():
    """The seed's HJB step: one tf.function call and the loss fetched with .numpy()."""
    import tensorflow as tf

    x = tf.random.normal((100, 1))
    layers = [tf.keras.layers.Dense(8, activation="tanh") for _ in range(3)] + [tf.keras.layers.Dense(1)]
    model = tf.keras.Sequential([tf.keras.Input((1,)), *layers])
    optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def training_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x) ** 2)
        optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables,
                                      strict=True))
        return loss

    def step():
        return training_step().numpy()
    return step


def one_run(step, steps: int, where: bool, window: int) -> dict[str, float]:
    """A run of ``steps`` steps with a profile window of ``window`` steps after 10, the count after it or not."""
    run = TrainingRun(ListReporter(), kind="bench", profile=window, profile_after=10,
                      profile_dir=tempfile.mkdtemp(prefix="where-cost-"), sample_system=False)
    run.capture.where_steps = WHERE_STEPS if where else 0
    started = time.perf_counter()
    run.start()
    for _ in range(steps):
        with run.step():
            step()
    run.stop_clock()
    wall = time.perf_counter() - started
    return {"timed_steps_per_second": run.steps_per_second, "excluded_seconds": run.capture.excluded_seconds,
            "wall_seconds": wall, "located_steps": getattr(run.capture, "located", 0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--window", type=int, default=20)
    parser.add_argument("--json", default=str(ROOT / "docs" / "measurements" / "where_cost.json"))
    args = parser.parse_args()
    results: dict[str, dict[str, list[dict[str, float]]]] = {}
    # The seed's step is ~100x shorter: it runs 25x the steps, so both timed windows last seconds.
    for name, make, steps in (("naive port's eager step", eager_step, args.steps),
                              ("seed's HJB step", graph_step, 25 * args.steps)):
        step = make()
        for _ in range(20):
            step()  # traced, warm
        runs: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
        for repeat in range(args.repeats):
            for mode in (("on", "off") if repeat % 2 else ("off", "on")):  # alternate which goes first
                runs[mode].append(one_run(step, steps, mode == "on", args.window))
        results[name] = runs
        median = {m: {k: statistics.median(r[k] for r in runs[m]) for k in runs[m][0]} for m in runs}
        ratio = median["on"]["timed_steps_per_second"] / median["off"]["timed_steps_per_second"]
        extra = median["on"]["excluded_seconds"] - median["off"]["excluded_seconds"]
        print(f"{name}: timed steps/s {median['off']['timed_steps_per_second']:,.1f} off, "
              f"{median['on']['timed_steps_per_second']:,.1f} with where (ratio {ratio:.3f}); the window adds "
              f"{median['off']['excluded_seconds']:.2f} s, the count {extra:+.2f} s more "
              f"({median['on']['located_steps']:.0f} steps)")
    Path(args.json).write_text(json.dumps({"args": vars(args), "runs": results}, indent=2))
    print(f"raw numbers: {args.json}")


if __name__ == "__main__":
    main()
