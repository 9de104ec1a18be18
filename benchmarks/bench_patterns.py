"""The benchmark lab's README tables: every pattern of every workload, side by side, through `rlcore.bench`.

Tables (medians of --repeats runs of at least --min-seconds each, spread = interquartile range):
  1. dqn-act at batch 1: predict, eager, tf-function, xla (one move's action);
  2. dqn-train at the book's batch 200: naive, eager, graph, xla;
  3. hjb-step at the seed's batch 100, width 8: eager, graph, xla, graph-k100, xla-k100;
  4. the CPU side of the crossover: samples/s against batch for the compiled patterns.
Each workload runs as one bench (one device process), exactly what `python -m rlcore bench` does.

    .venv/bin/python benchmarks/bench_patterns.py --json docs/measurements/bench_patterns.json
    .venv/bin/python benchmarks/bench_patterns.py --only dqn-act --repeats 3
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.config import BenchConfig

TABLES = {
    "dqn-act": {"workload": "dqn-act", "batch": "1"},
    "dqn-train": {"workload": "dqn-train", "batch": "200"},
    "hjb-step": {"workload": "hjb-step", "batch": "100"},
    "sweep-dqn-train": {"workload": "dqn-train", "patterns": "eager,graph,xla", "batch": "1,16,256,4096"},
    "sweep-hjb-step": {"workload": "hjb-step", "patterns": "graph,xla-k100", "batch": "1,16,256,4096,65536"},
}


def markdown(cells: list[dict]) -> str:
    table = bench.cells_table(cells)
    lines = ["| pattern | batch | width | calls/s | steps/s | IQR | samples/s | build (incl. trace) | first call "
             "| speedup |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in table.itertuples(index=False):
        lines.append(f"| {row.pattern} | {row.batch:,} | {row.width} | {row.calls_per_second:,.1f} | "
                     f"{row.steps_per_second:,.1f} | {row.iqr:,.1f} | {row.samples_per_second:,.0f} | "
                     f"{row.setup_seconds:.2f} s | {row.first_call_seconds:.2f} s | {row.speedup:.1f}x |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--only", choices=list(TABLES), nargs="*", help="some tables only (default: all)")
    parser.add_argument("--json", type=Path, help="write every cell and the environment here")
    args = parser.parse_args()

    results = {}
    for name in args.only or TABLES:
        cfg = BenchConfig(**TABLES[name], repeats=args.repeats, min_seconds=args.min_seconds)
        summary = bench.run(cfg)
        results[name] = summary
        print(f"\n### {name} ({cfg.repeats} repeats of >= {cfg.min_seconds:g} s, device cpu)\n")
        print(markdown(summary["cells"]), flush=True)
    if args.json:
        env = next(iter(results.values()))["environment"]
        args.json.write_text(json.dumps({"environment": env, "tables": {k: v["cells"] for k, v in results.items()}},
                                        indent=2))


if __name__ == "__main__":
    main()
