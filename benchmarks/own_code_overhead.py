"""What tracking your own code costs it: the seed's HJB script and a Keras model.fit, each run alone and under the
lab, alternating, medians of several runs. The yardstick is the script's own clock: the seed's tqdm it/s, the fit's
time as the script measures it around model.fit (the lab's start-up before the script is not the script's speed).

    .venv/bin/python benchmarks/own_code_overhead.py --repeats 5 --epochs 3000 --fit-epochs 6

Cases: alone (`python script`), tracked (`rlcore profile --steps 0`: steps found, loss and speed recorded every
0.5 s, the machine sampled), tracked and profiled (`--steps 50`: a window of 50 steps with TensorFlow's profiler and
the lab's spans; those steps are left out of the lab's own speed, not the script's); for the seed also the lab's
one line (`rlcore.init`) with `run.log(loss=...)` every step, with and without a profile; for the fit also the
callback added by hand (`rlcore.keras.Callback(profile=10)`) in a plain `python` run.

Whole runs on this shared machine spread by +-15% from one process to the next, more than the 2% asked of the lab,
so the lab's cost per step is also measured paired, in one process (``--paired``): blocks of the seed's own
``training_step()`` (its loop body: the call and ``loss.numpy()``), and of ``model.fit`` calls (3 epochs each),
alternate with the lab's hooks on and off (``rlcore.init``'s session installed and removed), medians of the blocks.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripts import HERE as SCRIPTS
from scripts import seed_hjb_script

TQDM_RATE = re.compile(r"([0-9.]+)it/s\]")


def _run(args: list[str], home: str, cwd: str) -> str:
    env = os.environ | {"RLCORE_HOME": home, "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def logged(code: str, profile: int) -> str:
    """The seed script with the lab's one line in and ``run.log`` per step, as its README shows them."""
    line = "        losses.append(loss.numpy())\n"
    assert line in code, "the seed's loop moved"
    return (f"import rlcore\nrun = rlcore.init(name='seed HJB, logged', profile={profile})\n"
            + code.replace(line, line + "        run.log(loss=losses[-1])\n") + "\nrun.finish()\n")


def seed_rate(output: str) -> float:
    """The last it/s tqdm printed (its final average over the whole loop)."""
    return float(TQDM_RATE.findall(output)[-1])


def fit_seconds(output: str) -> float:
    return float(re.search(r"fit done in ([0-9.]+) s", output).group(1))


def table(results: dict[str, dict[str, list[float]]], epochs: int) -> None:
    """Medians against the script alone: the cost as a share, and in seconds per run, since a profile window's cost
    is one-off (the profiler's start, the traced steps, the capture written) and shrinks with the run's length."""
    print("\n| script | case | median | runs | cost against alone | seconds per run |\n|---|---|---:|---|---:|---:|")
    for case, runs in results.items():
        alone = statistics.median(runs["alone"])
        for name, values in runs.items():
            median = statistics.median(values)
            per_second = case.endswith("(it/s)")
            cost = (alone / median - 1) if per_second else (median / alone - 1)
            extra = (epochs / median - epochs / alone) if per_second else (median - alone)
            print(f"| {case} | {name} | {median:,.3f} | {', '.join(f'{v:,.3f}' for v in values)} | {cost:+.1%} "
                  f"| {extra:+.2f} s |")


PAIRED_CHILD = """
import json, os, statistics, sys, time
sys.argv = ["seed_hjb.py", "1"]  # the seed's definitions, one epoch of its own loop
code = open(os.environ["SEED_FILE"]).read()
namespace = {"__name__": "seed"}
exec(compile(code, "seed_hjb.py", "exec"), namespace)
training_step = namespace["training_step"]
import numpy as np
from tensorflow import keras
import rlcore
from rlcore.workloads.script import session as sessions

run = rlcore.init(name="paired overhead")
session = sessions.active()

def hooks(on):
    if on and not session.auto.patches:
        session.auto.install()
        session._give_fit_the_callback()
    elif not on and session.auto.patches:
        session.auto.remove()
        session._patches.remove()

def seed_block(n, log):
    started = time.perf_counter()
    for _ in range(n):
        loss = training_step()
        value = loss.numpy()
        if log:
            run.log(loss=value)
    return (time.perf_counter() - started) / n

rng = np.random.default_rng(0)
x = rng.random((2048, 20)).astype("float32")
y = (x.sum(axis=1) > 10).astype("int32")
model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
batches = 2048 // 32

fit_epochs = int(os.environ["FIT_EPOCHS"])

def fit_block():
    started = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=fit_epochs, verbose=0)
    return (time.perf_counter() - started) / (batches * fit_epochs)

blocks, n = int(os.environ["BLOCKS"]), int(os.environ["BLOCK_STEPS"])
cases = {"seed: steps found (hooks)": lambda: seed_block(n, False),
         "seed: hooks + run.log per step": lambda: seed_block(n, True),
         "fit: the lab's callback per batch": fit_block}
results = {}
for name, block in cases.items():
    hooks(True); block(); hooks(False); block()  # warm both
    off, on = [], []
    for i in range(blocks):
        for state in ((False, True) if i % 2 == 0 else (True, False)):
            hooks(state)
            (on if state else off).append(block())
    results[name] = {"off": off, "on": on}
hooks(True)
run.finish()
print("PAIRED " + json.dumps(results))
"""


def paired(blocks: int, block_steps: int, fit_epochs: int) -> dict[str, dict[str, list[float]]]:
    """The lab's cost per step in one process: hooks on and off in alternating blocks (see the module's text)."""
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed_hjb.py"
        seed.write_text(seed_hjb_script())
        env = os.environ | {"RLCORE_HOME": str(Path(tmp) / "home"), "TF_CPP_MIN_LOG_LEVEL": "2",
                            "SEED_FILE": str(seed), "BLOCKS": str(blocks), "BLOCK_STEPS": str(block_steps),
                            "FIT_EPOCHS": str(fit_epochs)}
        done = subprocess.run([sys.executable, "-c", PAIRED_CHILD], capture_output=True, text=True, env=env,
                              cwd=tmp, timeout=3600)
        if done.returncode != 0:
            raise SystemExit(f"the paired run failed:\n{done.stderr[-3000:]}")
        line = next(x for x in done.stdout.splitlines() if x.startswith("PAIRED "))
        results = json.loads(line.removeprefix("PAIRED "))
    print("\n| paired, one process | lab off (per step) | lab on (per step) | cost per step | share |\n"
          "|---|---:|---:|---:|---:|")
    for name, r in results.items():
        off, on = statistics.median(r["off"]), statistics.median(r["on"])
        diff = statistics.median([b - a for a, b in zip(r["off"], r["on"], strict=True)])
        print(f"| {name} | {off * 1e6:,.0f} µs | {on * 1e6:,.0f} µs | {diff * 1e6:+,.1f} µs | {diff / off:+.2%} |")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3000, help="the seed script's epochs per run")
    parser.add_argument("--fit-epochs", type=int, default=6)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--table", type=Path, metavar="JSON", help="print the table of an earlier --json and stop")
    parser.add_argument("--paired", action="store_true", help="only the paired measurement in one process")
    parser.add_argument("--blocks", type=int, default=30, help="paired blocks per case, alternating")
    parser.add_argument("--block-steps", type=int, default=500, help="the seed's steps in a paired block")
    parser.add_argument("--block-fit-epochs", type=int, default=3, help="the fit's epochs in a paired block")
    args = parser.parse_args()
    if args.paired:
        found = paired(args.blocks, args.block_steps, args.block_fit_epochs)
        if args.json:
            args.json.write_text(json.dumps(found, indent=2))
        return
    if args.table:
        table(json.loads(args.table.read_text()), args.epochs)
        return
    python, lab = sys.executable, [sys.executable, "-m", "rlcore", "profile"]
    results: dict[str, dict[str, list[float]]] = {"seed HJB (it/s)": {}, "Keras fit (s)": {}}
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed_hjb.py"
        seed.write_text(seed_hjb_script())
        for profile in (0, 50):
            (Path(tmp) / f"seed_logged_{profile}.py").write_text(logged(seed_hjb_script(), profile))
        fit = str(SCRIPTS / "keras_fit.py")
        cases = {
            "seed HJB (it/s)": {
                "alone": [python, str(seed), str(args.epochs)],
                "tracked": [*lab, "--steps", "0", str(seed), str(args.epochs)],
                "tracked + profile 50": [*lab, "--steps", "50", str(seed), str(args.epochs)],
                "run.log per step": [python, str(Path(tmp) / "seed_logged_0.py"), str(args.epochs)],
                "run.log per step + profile 50": [python, str(Path(tmp) / "seed_logged_50.py"), str(args.epochs)],
            },
            "Keras fit (s)": {
                "alone": [python, fit, str(args.fit_epochs)],
                "tracked": [*lab, "--steps", "0", fit, str(args.fit_epochs)],
                "tracked + profile 50": [*lab, "--steps", "50", fit, str(args.fit_epochs)],
                "callback by hand + profile 10": [python, fit, str(args.fit_epochs), "--callback"],
            },
        }
        read = {"seed HJB (it/s)": seed_rate, "Keras fit (s)": fit_seconds}
        for i in range(args.repeats):
            for case, runs in cases.items():
                order = list(runs.items()) if i % 2 == 0 else list(runs.items())[::-1]  # alternate who goes first
                for name, command in order:
                    value = read[case](_run(command, str(Path(tmp) / "home"), tmp))
                    results[case].setdefault(name, []).append(value)
            print(f"repeat {i + 1}: " + "; ".join(f"{c}: " + ", ".join(f"{n} {v[-1]:,.3f}" for n, v in r.items())
                                                 for c, r in results.items()), flush=True)
    table(results, args.epochs)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
