"""What watching costs: the same run through the worker with nobody watching, and with its live view open in
Chromium on the same machine, refreshing every 1 s, 2 s (the default) or 5 s.

Two workloads: the 600-game book DQN (graph style) and an HJB run (graph, K=100 steps per compiled call).
Runs alternate (unwatched, watched 1 s, watched 2 s, watched 5 s, ...) on one seed and one store; the table
compares the throughput the worker reports, and the share of a core the Streamlit server and the browser used
meanwhile (from /proc: their CPU seconds over the run's wall time).

    .venv/bin/python benchmarks/live_view_cost.py --repeats 3 --json docs/measurements/live_view_cost.json
    .venv/bin/python benchmarks/live_view_cost.py --workloads hjb --pool docs/measurements/live_view_cost.json
    .venv/bin/python benchmarks/live_view_cost.py --synthetic 30      # the view alone, no training
    .venv/bin/python benchmarks/live_view_cost.py --page-opens 4      # what opening the view costs the browser
    .venv/bin/python benchmarks/live_view_cost.py --workloads dqn --epochs 3000   # a DQN as long as the HJB run

The 600-game DQN trains for about 7 s on a fast day, about as long as a page takes to open, so it measures the
page's opening as much as watching; 3,000 games train for about 30 s.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from devtools.browser import chromium, served_app
from rlcore.contract import reporting
from rlcore.runs import service
from rlcore.runs.local import launch
from rlcore.runs.store import ACTIVE, Store
from rlcore.workloads.dqn import metrics as dqn_metrics
from rlcore.workloads.dqn.config import DQNConfig
from rlcore.workloads.hjb.config import HJBConfig

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pattern: str) -> float:
    """CPU seconds (user + system) used so far by every live process whose command line matches ``pattern``."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if not re.search(pattern, cmdline):
                continue
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return total


def one_run(store: Store, kind: str, cfg, label: str, port: int, watch=None) -> dict:
    """Launch through the worker; with ``watch`` keep its live view open. CPU shares are over the run's life."""
    server, browser = rf"(streamlit run app\.py|ui\.serve).*--server\.port {port}", r"chromium"
    before, start = (cpu_seconds(server), cpu_seconds(browser)), time.monotonic()
    run_id = service.create_run(store, kind, cfg, label)
    launch(store, run_id)
    page = watch(run_id) if watch else None
    while store.get_run(run_id).status in ACTIVE:
        time.sleep(0.5)
    wall = time.monotonic() - start
    shares = {"server_cores": (cpu_seconds(server) - before[0]) / wall,
              "browser_cores": (cpu_seconds(browser) - before[1]) / wall}
    if page is not None:
        page.close()
    run = store.get_run(run_id)
    if run.status != "done":
        raise RuntimeError(f"run {run_id} ended {run.status}: {run.error}")
    return {"id": run_id, "label": label, **shares, "steps_per_second": run.summary["steps_per_second"]}


WORKLOADS = {
    "dqn": ("dqn", lambda a: DQNConfig(epochs=a.epochs, eval_every=max(1, a.epochs // 6), test_games=300,
                                       seed=a.seed), "dqn", "env steps/s"),
    "hjb": ("hjb", lambda a: HJBConfig(exec_mode="graph", steps_per_call=100, steps=a.hjb_steps,
                                       eval_every=a.hjb_steps // 20, seed=a.seed), "hjb", "steps/s"),
}


def measure(name: str, args, store: Store, base: str, context) -> dict:
    kind, make_config, page_path, unit = WORKLOADS[name]
    cfg = make_config(args)
    port = int(base.rsplit(":", 1)[1])

    def watcher(refresh: str):
        def watch(run_id: int):
            page = context.new_page()
            page.goto(f"{base}/{page_path}?run={run_id}&refresh={refresh}")
            return page
        return watch

    kinds = {"unwatched": None} | {f"watched {r}": watcher(r) for r in args.refreshes.split(",")}
    results: dict[str, list[dict]] = {k: [] for k in kinds}
    for i in range(args.repeats):
        for how, watch in kinds.items():
            results[how].append(one_run(store, kind, cfg, f"{name} {how} {i + 1}", port, watch))
        print(f"{name} repeat {i + 1}: " + ", ".join(f"{k} {v[-1]['steps_per_second']:,.1f}"
                                                     for k, v in results.items()), flush=True)
    if args.pool:  # an earlier session's runs of the same protocol, counted with these
        for how, runs in json.loads(args.pool.read_text()).get(name, {}).get("runs", {}).items():
            if how in results:
                results[how] = runs + results[how]
    return {"median": summarise(name, results, unit, args.seed), "runs": results}


def summarise(name: str, results: dict[str, list[dict]], unit: str, seed: int) -> dict:
    """Medians per way of watching; "paired" is the median over repeats of watched / unwatched within the same
    repeat (runs next to each other in time), which the machine's drift disturbs less than a ratio of medians."""
    base = results["unwatched"]
    table = {k: {"steps_per_second": statistics.median(r["steps_per_second"] for r in v),
                 "paired": statistics.median(w["steps_per_second"] / u["steps_per_second"]
                                             for w, u in zip(v, base, strict=True)),
                 "server_cores": statistics.median(r["server_cores"] for r in v),
                 "browser_cores": statistics.median(r["browser_cores"] for r in v)} for k, v in results.items()}
    print(f"\n{name}: median of {len(base)}, seed {seed}")
    for how, row in table.items():
        each = ", ".join(f"{r['steps_per_second']:,.1f}" for r in results[how])
        print(f"  {how:12} {row['steps_per_second']:10,.1f} {unit}  "
              f"{row['steps_per_second'] / table['unwatched']['steps_per_second']:6.1%} (paired {row['paired']:6.1%})  "
              f"server {row['server_cores']:.2f} core, browser {row['browser_cores']:.2f} core   ({each})", flush=True)
    return table


def dqn_like_rows(step: int) -> list[tuple]:
    """The rows a DQN worker flushes about every 0.5 s (150 env steps at 300 env steps/s), ending at ``step``."""
    wall = step / 300
    rows = [(step, wall, reporting.LOSS, 2.0 * 0.995 ** (step / 150)), (step, wall, dqn_metrics.ENV_STEPS_PER_S, 300.0),
            (step, wall, dqn_metrics.GAMES, step / 15), (step, wall, dqn_metrics.EPSILON, 0.3)]
    rows += [(step, wall, reporting.PHASE_PREFIX + p, wall / 5) for p in ("env", "act", "replay", "train", "sync")]
    if step % 3000 == 0:
        rows.append((step, wall, dqn_metrics.WIN_RATE, 0.5))
    return rows


def page_opens(count: int, store: Store, base: str, context) -> list[dict]:
    """What opening a live run view costs the browser: ``count`` opens in a row in one browser of a run whose rows
    arrive as the DQN's do; CPU seconds in the first 6 s after the address is entered, then the cores used by 10 s
    of watching at the default refresh."""
    run_id = service.create_run(store, "dqn", DQNConfig(epochs=100_000), "page opens")
    store.mark_running(run_id, os.getpid(), {})
    stop = threading.Event()

    def write() -> None:
        step = 0
        while not stop.wait(0.5):
            step += 150
            store.report(run_id, dqn_like_rows(step), progress=0.1)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    time.sleep(3)
    out = []
    try:
        for _ in range(count):
            page = context.new_page()
            before = cpu_seconds("chromium")
            page.goto(f"{base}/dqn?run={run_id}")
            time.sleep(6)
            opened = cpu_seconds("chromium")
            time.sleep(10)
            out.append({"open_cpu_seconds": opened - before, "watching_cores": (cpu_seconds("chromium") - opened) / 10})
            page.close()
    finally:
        stop.set()
        writer.join(timeout=5)
        store.finish(run_id, "cancelled")
    return out


def synthetic(seconds: float, refresh: str, store: Store, base: str, context, write: bool = True) -> dict:
    """The view's own cost, without training: a run whose rows arrive as the DQN's do (a record every 0.5 s,
    flushed every 0.5 s; or none, to see what an idle tick costs) watched for ``seconds``; the cores the server
    and the browser use meanwhile."""
    run_id = service.create_run(store, "dqn", DQNConfig(epochs=100_000), f"synthetic {refresh}")
    store.mark_running(run_id, os.getpid(), {})
    port = int(base.rsplit(":", 1)[1])
    page = context.new_page()
    page.goto(f"{base}/dqn?run={run_id}&refresh={refresh}")
    server, browser = rf"(streamlit run app\.py|ui\.serve).*--server\.port {port}", r"chromium"
    time.sleep(3)
    before, start = (cpu_seconds(server), cpu_seconds(browser)), time.monotonic()
    step = 0
    while time.monotonic() - start < seconds:
        step += 150
        progress = (time.monotonic() - start) / 100 % 1  # the bar moves as a 100 s run's does
        store.report(run_id, dqn_like_rows(step) if write else [], progress=progress)
        time.sleep(0.5)
    wall_seconds = time.monotonic() - start
    out = {"server_cores": (cpu_seconds(server) - before[0]) / wall_seconds,
           "browser_cores": (cpu_seconds(browser) - before[1]) / wall_seconds}
    page.close()
    store.finish(run_id, "cancelled")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workloads", default="dqn,hjb", help="comma-separated: dqn, hjb")
    parser.add_argument("--epochs", type=int, default=600, help="DQN games")
    parser.add_argument("--hjb-steps", type=int, default=200_000, help="HJB training steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--refreshes", default="1s,2s,5s", help="comma-separated live refresh periods to watch at")
    parser.add_argument("--synthetic", type=float, metavar="SECONDS",
                        help="instead: the view's own cost over SECONDS, no training (rows arrive as the DQN's do)")
    parser.add_argument("--page-opens", type=int, metavar="N",
                        help="instead: what opening a live run view costs the browser, N opens in a row")
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--pool", type=Path, help="count an earlier --json's runs (same protocol) with these")
    args = parser.parse_args()

    # ignore_cleanup_errors: a worker that just ended may still be closing its log as the directory goes.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp, served_app(Path(tmp)) as base, \
            chromium() as browser:
        store = Store(tmp)
        context = browser.new_context(viewport={"width": 1400, "height": 2100})
        if args.page_opens:
            for i, cost in enumerate(page_opens(args.page_opens, store, base, context), 1):
                print(f"open {i}: {cost['open_cpu_seconds']:.2f} CPU seconds in its first 6 s, then "
                      f"{cost['watching_cores']:.3f} of a core watching", flush=True)
            return
        if args.synthetic:
            refreshes = args.refreshes.split(",")
            for refresh, write in [(r, True) for r in refreshes] + [(refreshes[0], False), ("paused", True)]:
                cost = synthetic(args.synthetic, refresh, store, base, context, write)
                what = f"watching at {refresh:6} {'' if write else '(no new rows)':13}"
                print(f"{what}: server {cost['server_cores']:.3f} core, browser {cost['browser_cores']:.3f} core",
                      flush=True)
            return
        out = {name: measure(name, args, store, base, context) for name in args.workloads.split(",")}

        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
