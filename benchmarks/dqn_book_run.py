"""The book's full run (5000 random games) in graph mode, and the plain PyTorch loop beside it.

Prints wall time, env steps/s and the book's win rate per seed, and their medians. With
``--torch-python`` it also runs ``benchmarks/torch_book_loop.py`` (the book's PyTorch code on the
same game) in that interpreter, one seed after the other, so both are measured on this machine:

    .venv/bin/python benchmarks/dqn_book_run.py --seeds 0 1 2 --torch-python /tmp/torchvenv/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore import dqn  # noqa: E402
from rlcore.config import DQNConfig  # noqa: E402


def tf_run(style: str, epochs: int, seed: int) -> dict:
    result = dqn.train(DQNConfig(exec_mode=style, epochs=epochs, seed=seed, eval_every=0))
    return {"impl": f"tf-{style}", "seed": seed, "steps": result.steps, "train_seconds": result.train_seconds,
            "steps_per_second": result.steps_per_second, "win_rate": result.win_rate}


def torch_run(python: str, epochs: int, seed: int) -> dict:
    out = subprocess.run([python, str(ROOT / "benchmarks" / "torch_book_loop.py"), "--epochs", str(epochs),
                          "--seeds", str(seed)], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout.splitlines()[0])
    return {"impl": "pytorch"} | row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=5000, help="games per run (default 5000)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="one run per seed (default 0 1 2)")
    p.add_argument("--style", default="graph", choices=["eager", "graph", "xla"], help="TF style (default graph)")
    p.add_argument("--torch-python", help="interpreter with torch installed, to run the PyTorch loop too")
    p.add_argument("--json", help="write every run here")
    args = p.parse_args()

    runs = []
    for seed in args.seeds:
        runs.append(tf_run(args.style, args.epochs, seed))
        print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
        if args.torch_python:
            runs.append(torch_run(args.torch_python, args.epochs, seed))
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
