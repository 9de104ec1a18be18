"""What watching TensorFlow from inside costs a run: the system-metrics sampler, and a profiled window.

The same run through the worker, alternating A/B within each repeat: (1) the sampler off
(RLCORE_SYSTEM_METRICS=0) and on, same unprofiled run; goal: throughput within 2%; (2) unprofiled and profiled
(profile=N steps); the profiled window is left out of the speed, so the speed should not move, and the run's
wall time grows by the window plus reading the capture (the figure this script states).
Medians of the repeats; paired ratios are the median of each repeat's B / A.

    .venv/bin/python benchmarks/profiling_cost.py --repeats 5            # the DQN (graph, 300 games)
    .venv/bin/python benchmarks/profiling_cost.py --workload hjb --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import Store

CONFIGS = {"dqn": {"epochs": 300, "eval_every": 0, "test_games": 200},
           "hjb": {"steps": 40_000, "steps_per_call": 100, "eval_every": 0}}


def one_run(kind: str, config: dict, sampler: bool) -> dict:
    os.environ["RLCORE_SYSTEM_METRICS"] = "1" if sampler else "0"
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(tmp)
        run_id = service.create_run(store, kind, config)
        started = time.monotonic()
        launch(store, run_id)
        while (run := store.get_run(run_id)).live:
            time.sleep(0.1)
        if run.status != "done":
            raise RuntimeError(f"run ended {run.status}: {run.error}")
        return {"speed": run.summary["steps_per_second"], "wall": time.monotonic() - started,
                "run_wall": (run.finished or 0) - (run.started or 0), "profile": run.summary.get("profile")}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--workload", choices=list(CONFIGS), default="dqn")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--profile", type=int, default=50, help="steps in the profiled window (default 50)")
    p.add_argument("--json", type=Path, help="write every run here")
    args = p.parse_args()
    base = CONFIGS[args.workload]
    rows = {"off": [], "on": [], "profiled": []}
    for i in range(args.repeats):
        order = [("off", False, 0), ("on", True, 0), ("profiled", True, args.profile)]
        if i % 2:
            order.reverse()  # alternate which goes first
        for name, sampler, profile in order:
            rows[name].append(one_run(args.workload, base | ({"profile": profile} if profile else {}), sampler))
            last = rows[name][-1]
            print(f"repeat {i + 1} {name}: {last['speed']:,.1f} steps/s, run {last['run_wall']:.1f} s", file=sys.stderr,
                  flush=True)
    med = {k: statistics.median(r["speed"] for r in v) for k, v in rows.items()}
    wall = {k: statistics.median(r["run_wall"] for r in v) for k, v in rows.items()}
    paired_on = statistics.median(b["speed"] / a["speed"] for a, b in zip(rows["off"], rows["on"], strict=True))
    paired_prof = statistics.median(b["speed"] / a["speed"] for a, b in zip(rows["on"], rows["profiled"], strict=True))
    print(f"\n{args.workload} {json.dumps(base)}, medians of {args.repeats}, alternating\n")
    print("| run | speed (steps/s) | of the sampler-off run | paired | run's wall time (s) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| sampler off | {med['off']:,.1f} | 100% | | {wall['off']:.1f} |")
    print(f"| sampler on (the default) | {med['on']:,.1f} | {med['on'] / med['off']:.1%} | {paired_on:.1%} | "
          f"{wall['on']:.1f} |")
    print(f"| sampler on, profile={args.profile} | {med['profiled']:,.1f} | {med['profiled'] / med['off']:.1%} | "
          f"{paired_prof:.1%} of sampler on | {wall['profiled']:.1f} |")
    print(f"\nprofiling {args.profile} steps added {wall['profiled'] - wall['on']:+.1f} s to the run's wall time "
          "(the window, reading the capture with xprof)")
    verdicts = {r["profile"]["verdict"] for r in rows["profiled"] if r["profile"] and "verdict" in r["profile"]}
    print(f"verdicts: {', '.join(sorted(verdicts))}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, default=str))


if __name__ == "__main__":
    main()
