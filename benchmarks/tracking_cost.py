"""What `rlcore profile` costs a person's script by the script's own clock, over its whole run: the script run as
`python script.py N` and as `rlcore profile --steps 20 script.py N`, alternating, pairs; the ratio of each pair, and
their median. `--script` picks the script (issue 52 names three): the seed's HJB script (its tqdm it/s over all its
epochs), a custom training loop (a tf.function step over a tf.data pipeline, its steps/s by its own
`time.perf_counter` around the loop) and a `model.fit` script (its samples/s by its own clock around `fit`).
`--variant` runs the tracked side with one of the lab's parts turned off (an environment knob read by the lab), to
find where a cost goes.

    .venv/bin/python benchmarks/tracking_cost.py --pairs 5 --epochs 20000
    .venv/bin/python benchmarks/tracking_cost.py --script loop --pairs 5 --epochs 20000
    .venv/bin/python benchmarks/tracking_cost.py --script fit --pairs 5 --epochs 20
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripts import seed_hjb_script

RATE = re.compile(r"([0-9.]+)it/s\]")
OWN_RATE = re.compile(r"^own clock: ([0-9.]+) ", re.MULTILINE)

# A custom loop as the TensorFlow guide writes it: a Keras model, a tf.function step with a GradientTape over a
# batched, prefetched tf.data pipeline; its own clock around the whole loop (the first call's trace included, as a
# person's clock would).
CUSTOM_LOOP = '''import sys, time
import numpy as np
import tensorflow as tf

steps = int(sys.argv[1])
rng = np.random.default_rng(0)
x = rng.random((4096, 64)).astype("float32")
y = (x.sum(axis=1) > 32).astype("float32")[:, None]
dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4096).repeat().batch(64).prefetch(tf.data.AUTOTUNE)
model = tf.keras.Sequential([tf.keras.Input((64,)), tf.keras.layers.Dense(128, activation="relu"),
                             tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(xb, yb):
    with tf.GradientTape() as tape:
        loss = loss_fn(yb, model(xb, training=True))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


started = time.perf_counter()
for step, (xb, yb) in enumerate(dataset.take(steps)):
    loss = train_step(xb, yb)
    if step % 1000 == 0:
        print(f"step {step} loss {float(loss):.4f}")
print(f"own clock: {steps / (time.perf_counter() - started):.2f} steps/s")
'''

# model.fit as a tutorial writes it: its own clock around fit (Keras's compile of the step included).
FIT = '''import sys, time
import numpy as np
from tensorflow import keras

epochs = int(sys.argv[1])
rng = np.random.default_rng(0)
x = rng.random((8192, 64)).astype("float32")
y = (x.sum(axis=1) > 32).astype("int32")
model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(128, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
started = time.perf_counter()
model.fit(x, y, batch_size=64, epochs=epochs, verbose=0)
print(f"own clock: {epochs * len(x) / (time.perf_counter() - started):.2f} samples/s")
'''
SCRIPTS = {"seed": seed_hjb_script, "loop": lambda: CUSTOM_LOOP, "fit": lambda: FIT}


def rate_of(command: list[str], env: dict[str, str], cwd: str) -> float:
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    own = OWN_RATE.findall(done.stdout)
    if own:
        return float(own[-1])
    rates = RATE.findall(done.stderr)
    if not rates:
        raise RuntimeError(f"no rate in: {done.stdout[-300:]} {done.stderr[-500:]}")
    return float(rates[-1])  # tqdm's last line: with TQDM_SMOOTHING=0, the whole run's average (n / elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5, help="rounds: each runs every side once")
    parser.add_argument("--script", choices=sorted(SCRIPTS), default="seed")
    parser.add_argument("--epochs", type=int, default=20000, help="the script's own argument: epochs or steps")
    parser.add_argument("--steps", type=int, default=20, help="the profile window (rlcore profile --steps)")
    parser.add_argument("--variant", action="append", default=[], metavar="ENV=VALUE",
                        help="an environment setting of the tracked side only (repeatable)")
    parser.add_argument("--calibrate", action="store_true",
                        help="run the plain script a second time each round: the ratio a run has with itself")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tracking-cost-")
    script = Path(folder) / f"{args.script}.py"
    script.write_text(SCRIPTS[args.script]())
    # tqdm's shown rate is a moving average of its last updates unless smoothing is 0 (read from TQDM_SMOOTHING):
    # then its last line is the whole run's n / elapsed, what the issue asks for.
    base = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": str(Path(folder) / "home"),
                         "TQDM_SMOOTHING": "0"}
    tracked_env = base | dict(v.split("=", 1) for v in args.variant)
    plain = [sys.executable, str(script), str(args.epochs)]
    tracked = [sys.executable, "-m", "rlcore", "profile", "--steps", str(args.steps), str(script), str(args.epochs)]
    sides = [("plain", plain, base), ("tracked", tracked, tracked_env)]
    if args.calibrate:  # the same plain command twice a round: the spread this machine gives a ratio of 1
        sides.append(("plain again", plain, base))
    pairs = []
    for i in range(args.pairs):
        shift = i % len(sides)  # rotate who goes first: the machine's drift falls on every side
        rates = {name: rate_of(command, env, folder) for name, command, env in sides[shift:] + sides[:shift]}
        pairs.append(rates)
        print(f"round {i + 1}: " + ", ".join(f"{name} {rate:,.0f}/s" for name, rate in rates.items())
              + f"; tracked / plain {rates['tracked'] / rates['plain']:.3f}"
              + (f", plain again / plain {rates['plain again'] / rates['plain']:.3f}" if args.calibrate else ""),
              flush=True)
    ratios = [p["tracked"] / p["plain"] for p in pairs]
    result = {"machine": f"{platform.node()} {os.cpu_count()} cores", "script": args.script, "epochs": args.epochs,
              "steps": args.steps, "variant": args.variant, "pairs": pairs, "median_ratio": statistics.median(ratios)}
    print(f"median ratio (tracked / plain): {result['median_ratio']:.3f} over {len(ratios)} rounds")
    if args.calibrate:
        same = [p["plain again"] / p["plain"] for p in pairs]
        result["median_plain_again_ratio"] = statistics.median(same)
        print(f"median ratio (plain again / plain): {result['median_plain_again_ratio']:.3f} "
              f"({min(same):.3f}-{max(same):.3f})")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
