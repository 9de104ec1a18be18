"""What `rlcore profile` costs a person's script by the script's own clock, over its whole run: the seed's HJB script
(its tqdm it/s over all its epochs) run as `python seed.py N` and as `rlcore profile --steps 20 seed.py N`,
alternating, pairs; the ratio of each pair, and their median. `--variant` runs the tracked side with one of the
lab's parts turned off (an environment knob read by the lab), to find where a cost goes.

    .venv/bin/python benchmarks/tracking_cost.py --pairs 5 --epochs 20000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripts import seed_hjb_script

RATE = re.compile(r"([0-9.]+)it/s\]")


def rate_of(command: list[str], env: dict[str, str], cwd: str) -> float:
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    rates = RATE.findall(done.stderr)
    if not rates:
        raise RuntimeError(f"no tqdm rate in: {done.stderr[-500:]}")
    return float(rates[-1])  # tqdm's last line: with TQDM_SMOOTHING=0, the whole run's average (n / elapsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=20000)
    parser.add_argument("--steps", type=int, default=20, help="the profile window (rlcore profile --steps)")
    parser.add_argument("--variant", action="append", default=[], metavar="ENV=VALUE",
                        help="an environment setting of the tracked side only (repeatable)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="tracking-cost-")
    script = Path(folder) / "seed_hjb.py"
    script.write_text(seed_hjb_script())
    # tqdm's shown rate is a moving average of its last updates unless smoothing is 0 (read from TQDM_SMOOTHING):
    # then its last line is the whole run's n / elapsed, what the issue asks for.
    base = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": str(Path(folder) / "home"),
                         "TQDM_SMOOTHING": "0"}
    tracked_env = base | dict(v.split("=", 1) for v in args.variant)
    plain = [sys.executable, str(script), str(args.epochs)]
    tracked = [sys.executable, "-m", "rlcore", "profile", "--steps", str(args.steps), str(script), str(args.epochs)]
    pairs = []
    for i in range(args.pairs):
        order = [("plain", plain, base), ("tracked", tracked, tracked_env)]
        if i % 2:
            order.reverse()  # alternate who goes first: the machine's drift falls on both
        rates = {name: rate_of(command, env, folder) for name, command, env in order}
        pairs.append(rates)
        print(f"pair {i + 1}: plain {rates['plain']:,.0f} it/s, tracked {rates['tracked']:,.0f} it/s, "
              f"ratio {rates['tracked'] / rates['plain']:.3f}", flush=True)
    ratios = [p["tracked"] / p["plain"] for p in pairs]
    result = {"machine": f"{platform.node()} {os.cpu_count()} cores", "epochs": args.epochs, "steps": args.steps,
              "variant": args.variant, "pairs": pairs, "median_ratio": statistics.median(ratios)}
    print(f"median ratio (tracked / plain): {result['median_ratio']:.3f} over {len(ratios)} pairs")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
