"""Whether the ``where`` count leaves anything behind: the naive port's eager step timed before and after a count
of 3 steps (op callbacks added, then removed), against the same pair with nothing between them (the control: how
far this machine moves one block of steps from the next on its own).

    .venv/bin/python benchmarks/where_leak.py --pairs 8 --steps 60
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from where_cost import eager_step

from rlcore.tracking.hooks import Instruments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()
    step = eager_step()
    for _ in range(20):
        step()

    def steps_per_second() -> float:
        started = time.perf_counter()
        for _ in range(args.steps):
            step()
        return args.steps / (time.perf_counter() - started)

    after_count, control = [], []
    for pair in range(2 * args.pairs):
        before = steps_per_second()
        if pair % 2 == 0:  # alternate: a count between the blocks, then nothing between them
            instruments = Instruments()
            instruments.locate()
            for _ in range(3):
                step()
            instruments.remove()
        (after_count if pair % 2 == 0 else control).append(steps_per_second() / before)
    print(f"after a count / before: median {statistics.median(after_count):.3f} "
          f"({', '.join(f'{r:.3f}' for r in after_count)})")
    print(f"control, nothing between: median {statistics.median(control):.3f} "
          f"({', '.join(f'{r:.3f}' for r in control)})")


if __name__ == "__main__":
    main()
