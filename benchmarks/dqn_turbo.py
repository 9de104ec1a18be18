"""Turbo against the book loop: win rate per second of training, compile time, env steps/s, in one run.

Every training is a fresh `python -m rlcore turbo ... --json` process, as a user would run it
(so compile time includes everything a first call pays). Tables:
  1. win rate (the book's test: 1000 random games, <= 16 moves, noise /10) against training seconds
     0.25 / 0.5 / 1 / 2 / 5, median over --seeds, for the default turbo configuration;
  2. the same with the book's hyperparameters (network 150-100, lr 1e-3, epsilon 0.3, batch 200,
     memory 1000, sync 500, noise /100, only the goal ends the value) but 512 parallel games;
  3. env steps/s inside the graph for several numbers of parallel games, beside the book loop in
     graph style (`rlcore.dqn`, --graph-games random games) measured in the same run.

    .venv/bin/python benchmarks/dqn_turbo.py --json docs/measurements/dqn_turbo.json
    .venv/bin/python benchmarks/dqn_turbo.py --seeds 0 1 2 --budgets 1 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BOOK_HYPERPARAMETERS = {"hidden1": 150, "hidden2": 100, "lr": 1e-3, "eps-start": 0.3, "eps-end": 0.3, "batch": 200,
                        "memory": 1000, "tau": 0, "test-average": "false", "sync": 500, "noise": 0.01, "updates": 1,
                        "double": "false", "pit-ends": "false"}


def rlcore_dqn(flags: dict, home: str | None = None) -> dict:
    """One fresh CLI process (``exec: turbo`` runs the turbo workload, any other the DQN's book loop). Each gets an
    empty store (so no XLA cache) unless ``home`` is shared."""
    flags = dict(flags)
    kind = "turbo" if flags.get("exec") == "turbo" else "dqn"
    if kind == "turbo":
        del flags["exec"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        args = [f"--{k}={v}" for k, v in flags.items()]
        env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": home or str(Path(tmp) / "home")}
        env.pop("TF_XLA_FLAGS", None)
        subprocess.run([sys.executable, "-m", "rlcore", kind, *args, "--quiet", "--json", str(out)], cwd=ROOT,
                       check=True, capture_output=True, env=env)
        return json.loads(out.read_text())


def compile_table(repeats: int) -> dict:
    """Trace + compile of the default loop in a fresh process: cold (empty XLA cache), then warm (loaded)."""
    print("\n### compile seconds of the default turbo loop, fresh processes\n")
    print("| XLA cache | median | runs |\n|---|---:|---|")
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as home:
            cold.append(rlcore_dqn({"exec": "turbo", "train-seconds": 0.25}, home)["compile_seconds"])
            warm.append(rlcore_dqn({"exec": "turbo", "train-seconds": 0.25}, home)["compile_seconds"])
    for name, values in (("cold (first run on a machine)", cold), ("warm (every later run)", warm)):
        print(f"| {name} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |", flush=True)
    return {"cold": cold, "warm": warm}


def win_table(name: str, extra: dict, budgets: list[float], seeds: list[int]) -> list[dict]:
    rows = []
    print(f"\n### {name}\n\n| training s | win rate, median | per seed | compile s, median | env steps/s, median |")
    print("|---:|---:|---|---:|---:|")
    for budget in budgets:
        runs = [rlcore_dqn({"exec": "turbo", "train-seconds": budget, "seed": s, **extra}) for s in seeds]
        row = {"train_seconds": budget, "seeds": seeds, "win_rates": [r["win_rate"] for r in runs],
               "compile_seconds": [r["compile_seconds"] for r in runs],
               "steps_per_second": [r["steps_per_second"] for r in runs],
               "trained_seconds": [r["train_seconds"] for r in runs], "updates": [r["updates"] for r in runs]}
        rows.append(row)
        print(f"| {budget:g} | {statistics.median(row['win_rates']):.1%} | "
              f"{', '.join(f'{w:.1%}' for w in row['win_rates'])} | {statistics.median(row['compile_seconds']):.2f} | "
              f"{statistics.median(row['steps_per_second']):,.0f} |", flush=True)
    return rows


def throughput_table(games: list[int], graph_games: int, seed: int) -> dict:
    print("\n### env steps/s: turbo inside the graph against the book loop in graph style\n")
    print("| style | parallel games | env steps/s | vs graph | win rate after 2 s |\n|---|---:|---:|---:|---:|")
    graph = rlcore_dqn({"exec": "graph", "epochs": graph_games, "eval-every": 0, "test-games": 1000, "seed": seed})
    print(f"| graph (book loop) | 1 | {graph['steps_per_second']:,.0f} | 1x | - |", flush=True)
    rows = {"graph": graph["steps_per_second"]}
    for n in games:
        run = rlcore_dqn({"exec": "turbo", "train-seconds": 2, "games": n, "seed": seed})
        rows[f"turbo {n}"] = run["steps_per_second"]
        print(f"| turbo | {n} | {run['steps_per_second']:,.0f} | {run['steps_per_second'] / rows['graph']:,.0f}x | "
              f"{run['win_rate']:.1%} |", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--budgets", type=float, nargs="+", default=[0.25, 0.5, 1, 2, 5])
    parser.add_argument("--games", type=int, nargs="+", default=[128, 512, 1024, 2048])
    parser.add_argument("--graph-games", type=int, default=300)
    parser.add_argument("--compile-repeats", type=int, default=5)
    parser.add_argument("--only-compile", action="store_true", help="only the cold/warm compile table")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.only_compile:
        results = {"compile": compile_table(args.compile_repeats)}
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
        return
    results = {
        "compile": compile_table(args.compile_repeats),
        "default": win_table("default turbo configuration", {}, args.budgets, args.seeds),
        "book_hyperparameters": win_table("the book's hyperparameters, 512 parallel games", BOOK_HYPERPARAMETERS,
                                          args.budgets, args.seeds),
        "throughput": throughput_table(args.games, args.graph_games, args.seeds[0]),
    }
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
