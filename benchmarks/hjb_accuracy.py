"""HJB accuracy against the exact solution: the seed's run, the levers tried, and the 'accurate' preset.

Each row trains one configuration (seed 1234) and reports wall time (training + polish; the first
call's compile is listed apart), the max relative errors of V and c on 200 points of [0.1, 10], and
where the error of c peaks. Every row is a preset plus overrides, so any row can be rerun alone:

    .venv/bin/python benchmarks/hjb_accuracy.py              # all rows (about 9 minutes on 2 cores)
    .venv/bin/python benchmarks/hjb_accuracy.py --rows accurate
    python -m rlcore hjb --preset accurate                   # the same as the last row, from the CLI
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlcore.contract import workloads
from rlcore.contract.text import percent_text
from rlcore.workloads.hjb import solver as hjb

FAST = {"exec_mode": "xla", "derivative": "tangent", "steps_per_call": 1000, "eval_every": 0}
DECAY = FAST | {"batch_size": 1000, "lr_schedule": "cosine", "lr_final": 1e-5, "steps": 200_000}
ROWS: dict[str, tuple[str, str, dict]] = {
    "seed": ("seed's code: graph, 1 step per call, batch 100, fixed lr, 100k steps", "seed", {"eval_every": 0}),
    "decay": ("batch 1000, cosine lr 1e-3 to 1e-5, 200k steps (xla, tangent, K=1000)", "seed", DECAY),
    "exponential": ("the same with exponential decay", "seed", DECAY | {"lr_schedule": "exponential"}),
    "mixed": ("the same, half the k log-uniform (denser near k_min)", "seed", DECAY | {"sampling": "mixed"}),
    "wide": ("the same, width 16", "seed", DECAY | {"width": 16}),
    "float64": ("the same in float64", "seed", DECAY | {"dtype": "float64"}),
    "polish32": ("float32, 150k steps, then L-BFGS (1000 iterations at most)", "seed",
                 DECAY | {"steps": 150_000, "polish_iters": 1000}),
    "accurate-flat": ("float64, 120k steps, L-BFGS 1000, from the seed's flat start", "accurate",
                      {"eval_every": 0, "init": "flat"}),
    "accurate": ("preset 'accurate': the same from the fitted guess", "accurate", {"eval_every": 0}),
    "accurate-flat-20k": ("the flat start with 20k steps (the cosine decays over 20k)", "accurate",
                          {"eval_every": 0, "init": "flat", "steps": 20_000}),
    "accurate-20k": ("preset 'accurate' with 20k steps", "accurate", {"eval_every": 0, "steps": 20_000}),
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", nargs="+", default=list(ROWS), choices=list(ROWS), help="rows to run (default: all)")
    p.add_argument("--seed", type=int, default=1234, help="seed of every run (default 1234)")
    p.add_argument("--json", help="write every result's numbers here")
    args = p.parse_args()

    out = []
    for name in args.rows:
        label, preset, overrides = ROWS[name]
        cfg = workloads.get("hjb").make_config(overrides | {"seed": args.seed}, preset)
        result = hjb.train(cfg)
        acc = result.accuracy
        verdict = workloads.get("hjb").judge(cfg, result.summary())
        out.append({"row": name, "label": label, "train_seconds": result.train_seconds,
                    "first_call_seconds": result.first_call_seconds, "steps": result.steps,
                    "max_rel_err_V": acc.max_rel_err_V, "max_rel_err_c": acc.max_rel_err_c,
                    "c_error_peaks_at_k": float(acc.k[acc.rel_err_c.argmax()]), "polish": result.polish,
                    "verdict": verdict.word})
        print(json.dumps(out[-1]), file=sys.stderr, flush=True)

    print("\n| configuration | wall time (s) | first call (s) | max rel err V | max rel err c | c error peaks at k | "
          "verdict |")
    print("|---|---|---|---|---|---|---|")
    for r in out:
        print(f"| {r['label']} | {r['train_seconds']:.1f} | {r['first_call_seconds']:.1f} | "
              f"{percent_text(r['max_rel_err_V'])} | {percent_text(r['max_rel_err_c'])} | "
              f"{r['c_error_peaks_at_k']:.2f} | {r['verdict']} |")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
