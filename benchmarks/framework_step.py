"""One training step of the seed's HJB network (batch 1, 100, 10,000; 3x8 tanh; its loss and Adam) in every
pattern of the framework-step bench: TensorFlow eager / tf.function / XLA / XLA with 100 steps per call, PyTorch
eager / torch.compile, JAX jit / jit with 100 steps per call (lax.fori_loop). The bench's own harness: the first
call (trace, compile) timed apart, then repeats of at least a second, results forced; medians.

    .venv/bin/python benchmarks/framework_step.py --json docs/measurements/framework_step.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.config import BenchConfig


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", default="1,100,10000")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    cfg = BenchConfig(workload="framework-step", batch=args.batch, repeats=args.repeats)
    summary = bench.run(cfg)
    cells = summary["cells"]
    batches = cfg.batch_list
    print(f"\nµs per training step (median of {args.repeats} repeats of ≥ 1 s); first call in brackets\n")
    print("| pattern | " + " | ".join(f"batch {b:,}" for b in batches) + " |")
    print("|---|" + "---:|" * len(batches))
    for pattern in cfg.pattern_list:
        row = []
        for b in batches:
            c = next((c for c in cells if c["pattern"] == pattern and c["batch"] == b), None)
            if c is None or "missing" in c:
                row.append("not installed")
            else:
                row.append(f"{1e6 / c['steps_per_second']:,.1f} ({c['first_call_seconds']:.2f} s)")
        print(f"| {pattern} | " + " | ".join(row) + " |")
    print(f"\nenvironment: {json.dumps(summary['environment'])}")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
