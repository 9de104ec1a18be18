"""The book's full run (5000 random games): the TensorFlow port in graph style and the PyTorch original (the lab's
``pytorch`` style, the book's Listing 3.8 loop), each through the CLI in a process of its own, alternating per seed.

Prints wall time, env steps/s and the book's win rate per seed, and their medians. The PyTorch side needs the
frameworks extra (requirements-frameworks.txt):

    .venv/bin/python benchmarks/dqn_book_run.py --seeds 0 1 2 --json docs/measurements/dqn_book_run.json
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


def one_run(style: str, epochs: int, seed: int, threads: int) -> dict:
    """One run of the CLI (its own process: the frameworks never share one), its JSON summary's numbers."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--exec", style, "--epochs", str(epochs), "--seed",
                        str(seed), "--threads", str(threads), "--eval-every", "0", "--json", str(out)],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                       env=os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": "-1"})
        summary = json.loads(out.read_text())
    return {"impl": style, "seed": seed, "steps": summary["steps"], "train_seconds": summary["train_seconds"],
            "steps_per_second": summary["steps_per_second"], "win_rate": summary["win_rate"]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=5000, help="games per run (default 5000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="one run per seed (default 0 1 2)")
    p.add_argument("--styles", default="graph,pytorch", help="comma-separated DQN styles (default graph,pytorch)")
    p.add_argument("--threads", type=int, default=1, help="threads of each framework (default 1, the lab's)")
    p.add_argument("--json", help="write every run here")
    args = p.parse_args()

    runs = []
    for i, seed in enumerate(args.seeds):
        styles = args.styles.split(",")
        for style in styles if i % 2 == 0 else styles[::-1]:  # alternate who goes first
            runs.append(one_run(style, args.epochs, seed, args.threads))
            print(json.dumps(runs[-1]), file=sys.stderr, flush=True)

    print(f"\n| implementation | seed | train wall time (s) | env steps | env steps/s | "
          f"win rate ({args.epochs} games) |")
    print("|---|---|---|---|---|---|")
    for r in runs:
        print(f"| {r['impl']} | {r['seed']} | {r['train_seconds']:.1f} | {r['steps']} | {r['steps_per_second']:.0f} | "
              f"{r['win_rate']:.1%} |")
    for impl in dict.fromkeys(r["impl"] for r in runs):
        mine = [r for r in runs if r["impl"] == impl]
        med = {k: statistics.median(r[k] for r in mine) for k in ("train_seconds", "steps_per_second", "win_rate")}
        print(f"| **{impl} median** | | {med['train_seconds']:.1f} | | {med['steps_per_second']:.0f} | "
              f"{med['win_rate']:.1%} |")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
