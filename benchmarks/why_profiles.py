"""Why each style is as fast as it is, from the lab's own profiles: the runs go through the worker exactly as the
dashboard launches them, with a profiled window, and the table is what their Why panels say.

    .venv/bin/python benchmarks/why_profiles.py --json docs/measurements/why_profiles.json

Rows: the seed's pair (the same 15 games in the naive port and in graph style), the HJB network in eager, graph
and XLA with 100 steps per call, and turbo.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore.contract.text import seconds_text
from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import Store

SEED = {"epochs": 15, "eval_every": 0, "test_games": 200}
ROWS = [
    ("DQN, the seed's port (naive), 15 games", "dqn", SEED | {"exec_mode": "naive", "profile": 50}),
    ("DQN, graph, 15 games", "dqn", SEED | {"exec_mode": "graph", "profile": 50}),
    ("HJB, eager", "hjb", {"exec_mode": "eager", "steps": 300, "eval_every": 0, "profile": 50}),
    ("HJB, graph, 1 step per call", "hjb", {"exec_mode": "graph", "steps": 5000, "eval_every": 0, "profile": 50}),
    ("HJB, XLA, 100 steps per call", "hjb", {"exec_mode": "xla", "steps_per_call": 100, "steps": 20_000,
                                             "eval_every": 0, "profile": 500}),
    ("DQN, turbo (1 s)", "turbo", {"profile": 20}),
]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp)
        for title, kind, config in ROWS:
            run_id = service.create_run(store, kind, config)
            launch(store, run_id)
            while (run := store.get_run(run_id)).live:
                time.sleep(0.2)
            if run.status != "done":
                raise RuntimeError(f"{title}: {run.status} {run.error}")
            profile = run.summary["profile"]
            results.append({"title": title, "kind": kind, "config": config, "speed": run.summary["steps_per_second"],
                            "profile": profile})
            print(f"{title}: {profile.get('verdict')} — {profile.get('sentence') or profile.get('error')}",
                  file=sys.stderr, flush=True)
    print("| run | speed (steps/s) | ops per step | launched one by one | function calls | ops in XLA clusters | "
          "step: ops' arithmetic / dispatch / Python | verdict |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for r in results:
        q = r["profile"]
        split = " / ".join(seconds_text(q[k]) for k in ("compute_seconds", "dispatch_seconds", "python_seconds"))
        print(f"| {r['title']} | {r['speed']:,.1f} | {q['ops_per_step']:,.1f} | {q['eager_ops_per_step']:,.1f} | "
              f"{q['function_calls_per_step']:,.2f} | {q['xla_ops_per_step']:,.1f} | {split} "
              f"(of {seconds_text(q['step_seconds'])}) | {q['verdict']} |")
    print()
    for r in results:
        print(f"- {r['title']}: {r['profile']['sentence']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
