"""What watching costs: the same DQN run through the worker with nobody watching, and with its live view
open in Chromium on the same machine, refreshing every 1 s (the default: the fragment reads new metrics
and redraws four charts) or every 5 s.

Runs alternate (unwatched, watched 1 s, watched 5 s, ...) on one seed and one store; the table compares
the training steps/s the worker reports. With --screenshots DIR it also saves the finished run's page and the
comparison of all runs (the README's pictures).

    .venv/bin/python benchmarks/live_view_cost.py --repeats 3 --epochs 600 --screenshots docs
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from devtools.browser import chromium, served_app, wait_for_app  # noqa: E402
from rlcore.config import DQNConfig  # noqa: E402
from rlcore.runs.store import ACTIVE, Store  # noqa: E402
from rlcore.runs.worker import launch  # noqa: E402
from ui import views  # noqa: E402


def one_run(store: Store, cfg: DQNConfig, label: str, watch=None) -> dict:
    """Launch through the worker; with ``watch`` (a browser context factory) keep its live view open."""
    run_id = store.create_run("dqn", cfg, label)
    launch(store, run_id)
    page = watch(run_id) if watch else None
    while store.get_run(run_id).status in ACTIVE:
        time.sleep(0.5)
    run = store.get_run(run_id)
    if run.status != "done":
        raise RuntimeError(f"run {run_id} ended {run.status}: {run.error}")
    return {"id": run_id, "label": label, "page": page, **run.summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--screenshots", type=Path, help="save the run page and the comparison here")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    args = parser.parse_args()
    cfg = DQNConfig(epochs=args.epochs, eval_every=max(1, args.epochs // 6), test_games=300, seed=args.seed)

    with tempfile.TemporaryDirectory() as tmp, served_app(Path(tmp)) as base, chromium() as browser:
        store = Store(tmp)
        context = browser.new_context(viewport={"width": 1400, "height": 2100})

        def watcher(refresh: str):
            def watch(run_id: int):
                page = context.new_page()
                page.goto(f"{base}/dqn?run={run_id}&refresh={refresh}")
                return page
            return watch

        kinds = {"unwatched": None, "watched 1s": watcher("1s"), "watched 5s": watcher("5s")}
        results = {kind: [] for kind in kinds}
        for i in range(args.repeats):
            for kind, watch in kinds.items():
                results[kind].append(one_run(store, cfg, f"{kind} {i + 1}", watch))
            print(f"repeat {i + 1}: " + ", ".join(f"{k} {v[-1]['steps_per_second']:.1f}" for k, v in results.items()),
                  flush=True)

        table = {k: statistics.median(r["steps_per_second"] for r in v) for k, v in results.items()}
        print(f"\nmedian of {args.repeats}, {args.epochs} games, graph style, seed {args.seed}:")
        for kind, speed in table.items():
            each = ", ".join(f"{r['steps_per_second']:.1f}" for r in results[kind])
            print(f"  {kind:12} {speed:7.1f} env steps/s  {speed / table['unwatched']:6.1%}   ({each})")

        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
            last = results["watched 1s"][-1]["page"]
            last.reload()
            wait_for_app(last)
            last.get_by_text("Watch the agent play").wait_for()
            time.sleep(2)  # Plotly draws after the script state settles
            last.screenshot(path=args.screenshots / "screenshot_dqn_run.png", full_page=True)
            # The comparison picture: the seed's question (the Home page's button), naive against graph.
            ids = [one_run(store, DQNConfig(**views.SEED_QUESTION, exec_mode=style), f"seed question: {style}")["id"]
                   for style in views.SEED_QUESTION_STYLES]
            compare = context.new_page()
            compare.goto(f"{base}/runs?runs={ids[0]},{ids[1]}&metric=progress/games&x=wall&smoothing=0")
            wait_for_app(compare)
            compare.get_by_role("heading", name=re.compile("Comparing runs")).wait_for()
            time.sleep(2)
            compare.screenshot(path=args.screenshots / "screenshot_compare.png", full_page=True)
            print(f"screenshots in {args.screenshots}/")
        if args.json:
            for kind in results:
                for r in results[kind]:
                    r.pop("page", None)
            args.json.write_text(json.dumps({"median_steps_per_second": table, "runs": results}, indent=2))


if __name__ == "__main__":
    main()
