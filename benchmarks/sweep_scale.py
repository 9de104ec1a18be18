"""Sweeps at scale: creating a 1,000-member sweep, the view of a finished 200-member sweep, and the Runs page
with 2,000 stored runs, timed on a served dashboard in Chromium (from navigation until the page has drawn)
and on the server alone (one script run in Streamlit's AppTest). Medians of --repeats.

    .venv/bin/python benchmarks/sweep_scale.py --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.stored_summaries import summary_of
from devtools.browser import chromium, served_app, wait_for_app
from rlcore import search
from rlcore.contract import reporting, workloads
from rlcore.runs import service
from rlcore.runs.store import Store

TINY = {"epochs": 4, "memory_size": 100, "batch_size": 16, "test_games": 20}


def create_big_sweep(home: str) -> float:
    """Validate 1,000 members and write them in one transaction (no launch): seconds."""
    store = Store(home)
    workload = workloads.get("dqn")
    start = time.perf_counter()
    members = search.members(workload, TINY, search.Space(grid={"learning_rate": [1e-3, 2e-3, 3e-3, 4e-3]},
                                                          seeds=list(range(250))))
    store.create_sweep("dqn", TINY, {}, [(m.config, m.label(workload)) for m in members])
    return time.perf_counter() - start


def seed_finished_sweep(store: Store, size: int = 200) -> int:
    """A finished sweep of ``size`` DQN members over two settings and seeds, each with 60 metric rows."""
    workload = workloads.get("dqn")
    space = search.Space(grid={"learning_rate": [1e-3, 2e-3, 3e-3, 4e-3, 5e-3],
                               "sync_every": [100, 200, 300, 400]}, seeds=list(range(size // 20)))
    members = search.members(workload, TINY, space)
    sweep_id, ids = store.create_sweep("dqn", TINY, space.to_dict(), [(m.config, m.label(workload)) for m in members])
    for i, run_id in enumerate(ids):
        store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, 1 / s) for s in range(1, 61)])
        store.finish(run_id, "done", summary={"win_rate": 0.5 + (i % 40) / 100, "steps_per_second": 300.0 + i,
                                              "train_seconds": 2.0, "steps": 100, "games": 4})
    return sweep_id


def seed_runs(store: Store, n: int) -> None:
    """``n`` finished runs of every kind (HJB summaries carry their 200-point solution, like real ones)."""
    for i in range(n):
        kind = ("dqn", "hjb", "bench")[i % 3]
        run_id = service.create_run(store, kind, {})
        summary = summary_of(kind)
        store.finish(run_id, "done", summary=summary)


def browser_seconds(context, url: str, ready: str) -> float:
    """From opening the link until the page has run and ``ready`` (a CSS selector) is visible, in a browser that
    has the app's scripts cached (as for anyone who used the dashboard before)."""
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    wait_for_app(page)
    page.locator(ready).first.wait_for(state="visible", timeout=60_000)
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def server_seconds(home: str, page: str, query: dict[str, str]) -> float:
    """One script run of a page in AppTest (the server's share of a render, without the browser)."""
    from streamlit.testing.v1 import AppTest

    sys.path.insert(0, str(ROOT / "tests"))
    import pagetest  # noqa: F401  (AppTest runs the app as `make run` serves it: the router first)

    os.environ["RLCORE_HOME"] = home
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    start = time.perf_counter()
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args()

    creates = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as home:
            creates.append(create_big_sweep(home))
    print(f"create a 1,000-member sweep (validate + one transaction): median {statistics.median(creates):.2f} s "
          f"({', '.join(f'{c:.2f}' for c in creates)})", flush=True)

    with tempfile.TemporaryDirectory() as home:
        store = Store(home)
        sweep_id = seed_finished_sweep(store)
        seed_runs(store, args.runs - 200)
        rows = {}
        from ui import sidebar

        sidebar.device_card = lambda wait=True: {"cpu": "bench", "cores": 2, "gpus": [], "tensorflow": "-"}
        rows["sweep view, 200 finished members (server)"] = [server_seconds(home, "sweeps", {"sweep": str(sweep_id)})
                                                            for _ in range(args.repeats)]
        rows[f"Runs page, {args.runs:,} runs (server)"] = [server_seconds(home, "runs", {})
                                                          for _ in range(args.repeats)]
        with served_app(Path(home)) as base, chromium() as browser:
            context = browser.new_context(viewport={"width": 1400, "height": 1600})
            browser_seconds(context, f"{base}/runs", "[data-testid='stDataFrame']")  # cache scripts, warm imports
            rows["an empty page for comparison: Home's shell commands (Chromium)"] = [
                browser_seconds(context, f"{base}/", "[data-testid='stCode']") for _ in range(args.repeats)]
            rows["sweep view, 200 finished members (Chromium)"] = [
                browser_seconds(context, f"{base}/sweeps?sweep={sweep_id}", "[data-testid='stTableStyledTable'] td")
                for _ in range(args.repeats)]
            rows[f"Runs page, {args.runs:,} runs (Chromium)"] = [
                browser_seconds(context, f"{base}/runs", "[data-testid='stDataFrame']") for _ in range(args.repeats)]
    print("\n| what | median (s) | runs (s) |\n|---|---:|---|")
    print(f"| create a 1,000-member sweep | {statistics.median(creates):.2f} | "
          f"{', '.join(f'{c:.2f}' for c in creates)} |")
    for name, values in rows.items():
        print(f"| {name} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |")


if __name__ == "__main__":
    main()
