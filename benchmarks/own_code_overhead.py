"""What tracking your own code costs it: the seed's HJB script and a Keras model.fit, each run alone and under the
lab, alternating, medians of several runs. The yardstick is the script's own clock: the seed's tqdm it/s, the fit's
time as the script measures it around model.fit (the lab's start-up before the script is not the script's speed).

    .venv/bin/python benchmarks/own_code_overhead.py --repeats 5 --epochs 3000 --fit-epochs 6

Cases: alone (`python script`), tracked (`rlcore profile --steps 0`: steps found, loss and speed recorded every
0.5 s, the machine sampled), tracked and profiled (`--steps 50`: a window of 50 steps with TensorFlow's profiler and
the lab's spans; those steps are left out of the lab's own speed, not the script's); for the seed also the lab's
one line (`rlcore.init`) with `run.log(loss=...)` every step, with and without a profile; for the fit also the
callback added by hand (`rlcore.keras.Callback(profile=10)`) in a plain `python` run.
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=3000, help="the seed script's epochs per run")
    parser.add_argument("--fit-epochs", type=int, default=6)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
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
    print("\n| script | case | median | runs | cost against alone |\n|---|---|---:|---|---:|")
    for case, runs in results.items():
        alone = statistics.median(runs["alone"])
        for name, values in runs.items():
            median = statistics.median(values)
            cost = (alone / median - 1) if case.endswith("(it/s)") else (median / alone - 1)
            print(f"| {case} | {name} | {median:,.3f} | {', '.join(f'{v:,.3f}' for v in values)} | {cost:+.1%} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
