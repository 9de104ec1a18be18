"""Pages under load (issue 26, item 7): a store of 2,007 runs with two 500-member sweeps, served, opened in
Chromium. Times from opening the link until the page has drawn what matters; the server's memory as sessions come
and go. Works on any checkout of the lab (``--tree``), so a before and an after run the same measurement.

    .venv/bin/python benchmarks/page_load.py --repeats 3                      # this checkout
    .venv/bin/python benchmarks/page_load.py --repeats 3 --tree /tmp/before   # another one (its own code)

- /runs cold: a server just started, a browser with nothing cached, the first page anyone opens;
- /runs warm, the 500-member sweep whose one varied setting draws every member's curve, a 50-run comparison:
  the same browser again (scripts cached), medians of ``--repeats``;
- the floor: a one-table Streamlit app served and opened the same way (cold), what any Streamlit page costs here;
- memory: the server's resident set when started, with five sessions open (each on /runs, the sweep and the
  comparison), and after they closed (Streamlit forgets a closed session's state at once) and a minute passed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--tree", type=Path, default=HERE, help="the checkout whose store, pages and server are timed")
parser.add_argument("--repeats", type=int, default=3)
parser.add_argument("--json", type=Path, help="write the numbers here")
ARGS = parser.parse_args()
TREE = ARGS.tree.resolve()
sys.path.insert(0, str(TREE))
sys.path.insert(1, str(HERE))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import psutil

from benchmarks.stored_summaries import summary_of
from devtools import browser as served
from rlcore import search
from rlcore.contract import reporting, workloads
from rlcore.runs import service
from rlcore.runs.store import Store

ROWS_PER_RUN = 200
READY = {"runs": "[data-testid='stDataFrame']",
         "sweep": "[data-testid='rlcoreChart'] .main-svg, [data-testid='stPlotlyChart'] .main-svg, "
                  "[data-testid='stVegaLiteChart'] canvas",
         "compare": "[data-testid='rlcoreChart'] .main-svg, [data-testid='stPlotlyChart'] .main-svg, "
                    "[data-testid='stVegaLiteChart'] canvas"}


def fill(store: Store) -> tuple[list[int], list[int]]:
    """Two finished 500-member sweeps (one varied setting, 5 values x 100 seeds) and 1,007 more runs of every
    kind, every run with its loss curve. Returns the sweeps' ids and 50 runs to compare."""
    sweeps = []
    for sweep in range(2):
        workload = workloads.get("dqn")
        space = search.Space(grid={"learning_rate": [1e-3, 2e-3, 3e-3, 4e-3, 5e-3]}, seeds=list(range(100)))
        members = search.members(workload, {"epochs": 300}, space)
        sweep_id, ids = store.create_sweep("dqn", {"epochs": 300}, space.to_dict(),
                                           [(m.config, m.label(workload)) for m in members], label=f"load {sweep}")
        for i, run_id in enumerate(ids):
            store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, (1 + i % 7) / s) for s in range(1, ROWS_PER_RUN)])
            store.finish(run_id, "done", summary={"win_rate": 0.5 + (i % 40) / 100, "steps_per_second": 300.0 + i,
                                                  "train_seconds": 2.0, "steps": 100, "games": 4})
        sweeps.append(sweep_id)
    others = []
    for i in range(1007):
        kind = ("dqn", "hjb", "bench")[i % 3]
        run_id = service.create_run(store, kind, {}, label=f"run {i}")
        store.append_metrics(run_id, [(s, s / 10, reporting.LOSS, 1 / s) for s in range(1, ROWS_PER_RUN)])
        summary = summary_of(kind)
        store.finish(run_id, "done", summary=summary)
        if kind == "dqn":
            others.append(run_id)
    return sweeps, others[:50]


def opened(context, url: str, ready: str) -> float:
    """Seconds from opening ``url`` until the app has run and ``ready`` is visible."""
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    served.wait_for_app(page)
    try:
        page.locator(ready).first.wait_for(state="visible", timeout=120_000)
    except Exception:
        shot = "/tmp/page_load_timeout.png"
        page.screenshot(path=shot, full_page=True)
        raise RuntimeError(f"{url}: nothing matching {ready} became visible (screenshot: {shot})") from None
    seconds = time.perf_counter() - start
    page.close()
    return seconds


def server_mb(url: str) -> float:
    """The resident memory of the Streamlit process serving ``url`` (found by its port), in MB."""
    port = int(url.rsplit(":", 1)[1])
    for proc in psutil.process_iter(["cmdline"]):
        if "streamlit" in " ".join(proc.info["cmdline"] or []) and str(port) in (proc.info["cmdline"] or []):
            return proc.memory_info().rss / 2**20
    raise RuntimeError("the server's process was not found")


def main() -> None:
    served.ROOT = TREE  # serve the measured checkout's app.py
    numbers: dict[str, object] = {"tree": str(TREE)}
    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        sweeps, compared = fill(Store(home))
        print(f"filled {len(Store(home).list_runs()):,} runs in {time.perf_counter() - started:.0f} s", flush=True)
        pages = {"runs": "/runs", "sweep": f"/sweeps?sweep={sweeps[0]}",
                 "compare": f"/runs?runs={','.join(map(str, compared))}"}
        cold = []
        for _ in range(ARGS.repeats):
            with served.served_app(Path(home), timeout=120) as base, served.chromium() as browser:
                cold.append(opened(browser.new_context(), base + pages["runs"], READY["runs"]))
        numbers["runs_cold"] = cold
        floor = []
        with tempfile.TemporaryDirectory() as bare:  # the same server and browser, an app of one table
            (Path(bare) / "app.py").write_text("import streamlit as st\nst.dataframe({'a': [1, 2, 3]})\n")
            served.ROOT = Path(bare)
            try:
                for _ in range(ARGS.repeats):
                    with served.served_app(Path(home), timeout=120) as base, served.chromium() as browser:
                        floor.append(opened(browser.new_context(), base, READY["runs"]))
            finally:
                served.ROOT = TREE
        numbers["floor_cold"] = floor
        with served.served_app(Path(home), timeout=120) as base, served.chromium() as browser:
            numbers["mb_started"] = server_mb(base)
            context = browser.new_context(viewport={"width": 1400, "height": 1600})
            for name, path in pages.items():
                numbers[name] = [opened(context, base + path, READY[name]) for _ in range(ARGS.repeats)]
            context.close()
            numbers["mb_after_one_session"] = server_mb(base)
            sessions = []
            for _ in range(5):
                context = browser.new_context(viewport={"width": 1400, "height": 1600})
                for name, path in pages.items():
                    page = context.new_page()
                    page.goto(base + path)
                    served.wait_for_app(page)
                    page.locator(READY[name]).first.wait_for(state="visible", timeout=120_000)
                sessions.append(context)
            numbers["mb_five_sessions_open"] = server_mb(base)
            for context in sessions:
                context.close()
            time.sleep(60)
            numbers["mb_a_minute_after_they_closed"] = server_mb(base)
    print(f"\n| {TREE.name} | median (s) | runs (s) |\n|---|---:|---|")
    for name in ("floor_cold", "runs_cold", "runs", "sweep", "compare"):
        values = numbers[name]
        print(f"| {name} | {statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)} |")
    for name in ("mb_started", "mb_after_one_session", "mb_five_sessions_open", "mb_a_minute_after_they_closed"):
        print(f"| {name} | {numbers[name]:.0f} MB | |")
    if ARGS.json:
        ARGS.json.write_text(json.dumps(numbers, indent=1))


if __name__ == "__main__":
    main()
