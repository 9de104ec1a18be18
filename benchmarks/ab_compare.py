"""Before/after: the same CLI runs from two checkouts, alternating, so a refactor's effect on speed is measured on
a shared, noisy machine rather than guessed. Each run is a fresh process; the table shows medians and every run.

    .venv/bin/python benchmarks/ab_compare.py --before f62a835 --repeats 5

The "before" checkout is a git worktree of the given revision (made in a temporary folder and removed after);
both use this checkout's .venv. Cases: the book loop in graph style (1,000 games), turbo (1 s, 512 games), the HJB
solver in graph style with 100 steps per call, and the PyTorch original (300 games); ``--cases`` picks some.
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
CASES = {
    "DQN graph, 1,000 games": ["dqn", "--exec", "graph", "--epochs", "1000", "--eval-every", "0", "--test-games",
                               "100"],
    # turbo's own command since store version 11 (before: dqn --exec turbo); compare checkouts on the same side of it
    "DQN turbo, 1 s": ["turbo", "--train-seconds", "1", "--test-games", "100"],
    "HJB graph, K=100": ["hjb", "--exec", "graph", "--steps-per-call", "100", "--steps", "30000", "--eval-every", "0"],
    "PyTorch original, 300 games": ["dqn", "--exec", "pytorch", "--epochs", "300", "--eval-every", "0",
                                    "--test-games", "100"],
}


def run(tree: Path, args: list[str], home: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": home}
        subprocess.run([sys.executable, "-m", "rlcore", *args, "--quiet", "--json", str(out)], cwd=tree, env=env,
                       check=True, capture_output=True, timeout=600)
        return json.loads(out.read_text())["steps_per_second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the revision to compare this checkout against")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--cases", nargs="*", choices=list(CASES), default=list(CASES))
    args = parser.parse_args()
    cases = {name: CASES[name] for name in args.cases}
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            trees = {"before": before, "after": ROOT}
            results = {case: {name: [] for name in trees} for case in cases}
            for i in range(args.repeats):
                for case, case_args in cases.items():
                    # alternate, and swap who goes first every repeat: before, after; after, before; ...
                    for name, tree in (list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]):
                        home = str(Path(tmp) / f"home-{name}")  # each tree keeps its own warm XLA cache
                        results[case][name].append(run(tree, case_args, home))
                print(f"repeat {i + 1}: " + "; ".join(f"{c}: " + ", ".join(f"{n} {v[-1]:,.0f}" for n, v in r.items())
                                                     for c, r in results.items()), flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    print(f"\n| case | before ({args.before}) steps/s | after | after / before |\n|---|---:|---:|---:|")
    for case, r in results.items():
        b, a = statistics.median(r["before"]), statistics.median(r["after"])
        print(f"| {case} | {b:,.0f} ({', '.join(f'{v:,.0f}' for v in r['before'])}) | "
              f"{a:,.0f} ({', '.join(f'{v:,.0f}' for v in r['after'])}) | {a / b:.1%} |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
