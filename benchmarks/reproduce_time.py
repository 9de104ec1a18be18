"""How long *Reproduce the seed's question* takes, click to comparison, and where the time goes (issue 52: ≤ 60 s).

Queues exactly what Home's button queues (ui.workloads.dqn's seed-question runs and bench) in a fresh store, hands
them to the local executor as the button does, and waits for all to end. Per run: its wait in the queue, its
process's time before training (start-up, imports, building the model), its training and the rest (the win-rate
test, the profile's reading, storing). Repeats give medians.

    .venv/bin/python benchmarks/reproduce_time.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one(timeout: float) -> dict:
    home = tempfile.mkdtemp(prefix="reproduce_")
    os.environ["RLCORE_HOME"] = home
    from rlcore.contract.status import RunStatus
    from rlcore.contract.summary import RunSummary
    from rlcore.runs import executor, service
    from rlcore.runs.store import Store
    from ui.workloads import dqn as seed

    store = Store(home)
    clicked = time.time()
    ids = [service.create_run(store, seed.KIND, seed.SEED_QUESTION | {seed.STYLE: str(style), "profile":
                                                                      seed.SEED_PROFILE.get(style, 0)},
                              label=f"seed question: {style}", executor="local")
           for style in seed.seed_question_styles()]
    ids.append(service.create_run(store, seed.BENCH, seed.SEED_BENCH, label="seed question: bench", executor="local"))
    executor.submit(store, ids)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        runs = [store.get_run(i) for i in ids]
        if all(r.status not in (RunStatus.QUEUED, RunStatus.RUNNING) for r in runs):
            break
        time.sleep(0.2)
    else:
        raise SystemExit(f"the seed question did not end within {timeout:g} s")
    rows = []
    for r in runs:
        summary = r.summary or RunSummary()
        rows.append({"label": r.label, "status": str(r.status), "queued_s": r.started - r.created,
                     "process_s": r.finished - r.started, "train_s": summary.train_seconds,
                     "steps": summary.steps, "steps_per_second": summary.steps_per_second})
    return {"total_s": max(r.finished for r in runs) - clicked, "runs": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=None, help="write the raw results here (JSON)")
    args = parser.parse_args()
    results = []
    for i in range(args.repeats):
        result = one(args.timeout)
        results.append(result)
        print(f"repeat {i + 1}: {result['total_s']:.1f} s click to comparison")
        for row in result["runs"]:
            print(f"  {row['label']:<40} queued {row['queued_s']:6.1f} s, its process {row['process_s']:6.1f} s "
                  f"(training {row['train_s']:6.2f} s), {row['steps']} steps")
    print(f"median {statistics.median(r['total_s'] for r in results):.1f} s over {len(results)} "
          f"({platform.processor() or platform.machine()}, {os.cpu_count()} cores)")
    if args.out:
        args.out.write_text(json.dumps({"machine": {"cores": os.cpu_count(), "node": platform.node()},
                                        "results": results}, indent=2))


if __name__ == "__main__":
    main()
