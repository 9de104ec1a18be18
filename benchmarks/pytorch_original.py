"""The seed's question on this machine: the PyTorch original (the book's Listing 3.8 loop, style pytorch) against
the TensorFlow port's fix (graph) and turbo, through the lab's own worker and store, as the dashboard runs them.

Alternating styles within each repeat, 1,000 games (the book's settings otherwise), seeds 0-2, at equal threads
(each run's `threads` setting: 1, then 2); medians over the seeds. Turbo keeps its own threads and time budget
(1 s of training): its env steps/s are compared as they are.

    .venv/bin/python benchmarks/pytorch_original.py --json docs/measurements/pytorch_original.json
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

from rlcore.runs import service
from rlcore.runs.local import launch, runner_alive
from rlcore.runs.store import Store


def one(store: Store, config: dict, kind: str = "dqn") -> dict:
    run_id = service.create_run(store, kind, config)
    launch(store, run_id)
    while (run := store.get_run(run_id)).live:
        time.sleep(0.2)
    if run.status != "done":
        raise RuntimeError(f"{config}: {run.status} {run.error}")
    return {"config": config, "style": config.get("exec_mode", kind),
            "steps_per_second": run.summary["steps_per_second"],
            "win_rate": run.summary["win_rate"], "train_seconds": run.summary["train_seconds"],
            "environment": run.environment}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--also", default="", help="more TensorFlow styles in each pair, such as xla (comma-separated)")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    compared = ["graph", *(s for s in args.also.split(",") if s)]
    seeds = [int(s) for s in args.seeds.split(",")]
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp)
        for threads in (int(t) for t in args.threads.split(",")):
            for i, seed in enumerate(seeds):
                styles = [*compared, "pytorch"] if i % 2 == 0 else ["pytorch", *compared]  # alternate who goes first
                for style in styles:
                    results.append(one(store, {"exec_mode": style, "epochs": args.games, "seed": seed,
                                                "threads": threads, "eval_every": 0}) | {"threads": threads})
                    r = results[-1]
                    print(f"{style} threads={threads} seed={seed}: {r['steps_per_second']:,.1f} env steps/s, win "
                          f"{r['win_rate']:.1%}", file=sys.stderr, flush=True)
        for seed in seeds:
            results.append(one(store, {"seed": seed}, kind="turbo") | {"threads": 0})
            print(f"turbo seed={seed}: {results[-1]['steps_per_second']:,.0f} env steps/s", file=sys.stderr, flush=True)
        deadline = time.monotonic() + 30  # the queue runner idles a second before it ends: the store stays till then
        while runner_alive(store) and time.monotonic() < deadline:
            time.sleep(0.2)

    def median(style: str, threads: int | None = None) -> float:
        return statistics.median(r["steps_per_second"] for r in results if r["style"] == style
                                 and (threads is None or r["threads"] == threads))

    print(f"\n{args.games:,} games, seeds {args.seeds}, medians; env steps/s (training time only)\n")
    print("| threads | PyTorch original | TF graph | graph / original | turbo | turbo / original |")
    print("|---:|---:|---:|---:|---:|---:|")
    turbo = median("turbo")
    for threads in (int(t) for t in args.threads.split(",")):
        original, graph = median("pytorch", threads), median("graph", threads)
        print(f"| {threads} | {original:,.0f} | {graph:,.0f} | {graph / original:.2f}x | {turbo:,.0f} | "
              f"{turbo / original:,.0f}x |")

    def speed(style: str, threads: int, seed: int) -> float:
        return next(r["steps_per_second"] for r in results
                    if r["style"] == style and r["threads"] == threads and r["config"]["seed"] == seed)

    for threads in (int(t) for t in args.threads.split(",")):
        for style in compared:
            pairs = [speed(style, threads, seed) / speed("pytorch", threads, seed) for seed in seeds]
            print(f"\n{threads} thread(s), {style} / original by pair (seed): "
                  + ", ".join(f"{ratio:.2f}x" for ratio in pairs) + f"; median {statistics.median(pairs):.2f}x")
    wins = {s: statistics.median(r["win_rate"] for r in results if r["style"] == s)
            for s in ("pytorch", *compared, "turbo")}
    print("\nwin rate, medians: " + ", ".join(f"{s} {w:.1%}" for s, w in wins.items()))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
