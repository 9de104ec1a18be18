"""Turbo's levers against its defaults, seed by seed, alternating: the book's test and every valid board.

The book's test plays 1,000 random boards, so it moves by about ±0.4 points from its boards alone at 98%; a
lever worth half a point hides in that. Beside it this plays the trained network greedily, under the test's rules
(noise /10, at most 16 moves), from every one of the 43,616 valid start boards, and says how the games it lost
ended: in a loop (still moving at the last move) or in the pit. Every training is a fresh process; for each seed
the lever and the defaults run one after the other, so a busy stretch of the machine falls on both.

    .venv/bin/python benchmarks/turbo_levers.py --lever '{"tau": 0}' --seeds 3 4 5 6 7
    .venv/bin/python benchmarks/turbo_levers.py --lever '{"updates": 4}' --seconds 5 --json out.json
    git worktree add /tmp/before HEAD~1 && .venv/bin/python benchmarks/turbo_levers.py --defaults-from /tmp/before
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def every_board(q_values, noise: float = 0.1, max_moves: int = 16, seed: int = 1) -> dict[str, float]:
    """Greedy games from every valid start board under the book's test rules: won, looping, in the pit."""
    from rlcore.workloads.dqn import gridworld as gw
    from rlcore.workloads.dqn import gridworld_tf as gtf

    rng = np.random.default_rng(seed)
    boards = gtf.valid_boards().copy()  # player, goal, pit, wall as cells
    active, won = np.ones(len(boards), bool), np.zeros(len(boards), bool)
    moves, offsets = np.array(gw.MOVES), np.array([0, 16, 32, 48])
    for _ in range(max_moves):
        idx = np.flatnonzero(active)
        if not idx.size:
            break
        states = rng.random((idx.size, 64), dtype=np.float32) * noise
        states[np.arange(idx.size)[:, None], boards[idx] + offsets] += 1.0
        action = q_values(states).argmax(axis=1)
        here = boards[idx]
        row, col = here[:, 0] // 4 + moves[action, 0], here[:, 0] % 4 + moves[action, 1]
        blocked = (row < 0) | (row > 3) | (col < 0) | (col > 3) | (row * 4 + col == here[:, 3])
        player = np.where(blocked, here[:, 0], row * 4 + col)
        boards[idx, 0] = player
        goal, pit = player == here[:, 1], player == here[:, 2]
        won[idx[goal]] = True
        active[idx[goal | pit]] = False
    return {"won": float(won.mean()), "looping": float(active.mean()), "pit": float((~won & ~active).mean())}


def child(spec: dict) -> None:
    """One training in this process; prints one JSON line."""
    from rlcore.workloads.dqn.turbo import loop
    from rlcore.workloads.dqn.turbo.config import TurboConfig

    result = loop.train(TurboConfig(**spec))
    print(json.dumps({"test": result.win_rate, "updates": result.updates, "train_seconds": result.train_seconds,
                      **every_board(result.agent.q_values)}))


def machine() -> str:
    from rlcore.tracking.machine import cpu_model

    return f"{cpu_model() or platform.machine()}, {os.cpu_count()} CPUs"


def train(spec: dict, code: Path | None = None) -> dict:
    """One training in a fresh process, of this checkout's rlcore or of ``code`` (another checkout's)."""
    env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"}
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], cwd=code or ROOT, check=True,
                         capture_output=True, text=True, env=env, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lever", default="{}", help="turbo settings of the lever, as JSON (against the defaults)")
    parser.add_argument("--base", default="{}", help="settings both sides share, as JSON")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--defaults-from", type=Path, metavar="CHECKOUT",
                        help="the defaults side runs another checkout's code (git worktree add DIR COMMIT): a change "
                             "of code, before against after")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    base = {"train_seconds": args.seconds, **json.loads(args.base)}
    # The side under test first; with --defaults-from the other side is another checkout's defaults ("before").
    lever, other = ("now", "before") if args.defaults_from else ("lever", "defaults")
    sides = {lever: {**base, **json.loads(args.lever)}, other: base}
    against = f" against the code at {args.defaults_from}" if args.defaults_from else ""
    print(f"machine: {machine()}; lever {args.lever}{against}, {args.seconds:g} s of training\n")
    print("| seed | side | book's test | every board | looping | pit | updates |\n|---:|---|---:|---:|---:|---:|---:|")
    rows = {name: [] for name in sides}
    for seed in args.seeds:
        for name, spec in sides.items():
            got = train({**spec, "seed": seed}, args.defaults_from if name == other else None)
            rows[name].append({"seed": seed, **got})
            print(f"| {seed} | {name} | {got['test']:.1%} | {got['won']:.2%} | {got['looping']:.2%} | "
                  f"{got['pit']:.2%} | {got['updates']:,} |", flush=True)
    print("\n| side | book's test, median | every board, median | looping, median | seeds better on every board |")
    print("|---|---:|---:|---:|---:|")
    wins = sum(a["won"] > b["won"] for a, b in zip(rows[lever], rows[other], strict=True))
    for name, runs in rows.items():
        better = f"{wins} of {len(runs)}" if name == lever else ""
        print(f"| {name} | {statistics.median(r['test'] for r in runs):.1%} | "
              f"{statistics.median(r['won'] for r in runs):.2%} | "
              f"{statistics.median(r['looping'] for r in runs):.2%} | {better} |")
    if args.json:
        args.json.write_text(json.dumps({"lever": args.lever, "base": base, "runs": rows, "machine": machine(),
                                         "defaults_from": str(args.defaults_from or "")}, indent=2))


if __name__ == "__main__":
    main()
