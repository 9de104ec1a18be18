"""Worker overhead: the same DQN run in the foreground (CLI) and through the store-backed worker.

Runs alternate (foreground, worker, foreground, ...) on one seed; the table compares the training
steps/s each reports (the same clock: training wall time without the win-rate tests). Goal: the
worker keeps >= 95% of the foreground speed.

    .venv/bin/python benchmarks/worker_overhead.py --repeats 3 --epochs 400
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import ACTIVE, Store


def foreground(epochs: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--epochs", str(epochs), "--seed", str(seed),
                        "--eval-every", "0", "--quiet", "--json", str(out)], cwd=ROOT, check=True,
                       capture_output=True, env=os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"})
        return json.loads(out.read_text())["steps_per_second"]


def through_worker(epochs: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp)
        run_id = service.create_run(store, "dqn", {"epochs": epochs, "seed": seed, "eval_every": 0})
        launch(store, run_id)  # the queue runner starts its worker; the store says when it ends
        run = store.get_run(run_id)
        while run.status in ACTIVE:
            time.sleep(0.2)
            run = store.get_run(run_id)
        if run.status != "done":
            raise RuntimeError(f"worker run ended {run.status}: {run.error}")
        return run.summary["steps_per_second"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--epochs", type=int, default=400, help="games per run (default 400)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each kind; medians compared (default 3)")
    p.add_argument("--seed", type=int, default=0, help="seed of every run (default 0)")
    args = p.parse_args()
    fg, wk = [], []
    for _ in range(args.repeats):
        fg.append(foreground(args.epochs, args.seed))
        wk.append(through_worker(args.epochs, args.seed))
        print(f"foreground {fg[-1]:.1f} steps/s, worker {wk[-1]:.1f} steps/s", file=sys.stderr, flush=True)
    ratio = statistics.median(wk) / statistics.median(fg)
    print("\n| path | env steps/s (median) | runs |")
    print("|---|---|---|")
    print(f"| foreground CLI | {statistics.median(fg):.1f} | {', '.join(f'{x:.1f}' for x in fg)} |")
    print(f"| worker + SQLite store | {statistics.median(wk):.1f} | {', '.join(f'{x:.1f}' for x in wk)} |")
    print(f"\nworker / foreground = {ratio:.1%}")


if __name__ == "__main__":
    main()
