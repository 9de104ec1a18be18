"""The Ray executor against the local one on the same 2 cores: an 8-member sweep of short book-loop DQN runs
(graph style), the same configs, on two 1-CPU Ray nodes (two runs at once) and through the local queue (one at a
time). Reports the sweep's wall time for each and their ratio, each run's env steps/s (the Ray path must keep
≥ 95% of the local per-run throughput), the Ray path's per-run overhead (queued → running, task end → result in
the store), and the head's memory (GCS, raylet and the service actor).

Ray probes outside addresses to find its own: run it only in a loopback-only network namespace:

    unshare -n sh -c 'ip link set lo up && RAY_USAGE_STATS_ENABLED=0 .venv/bin/python benchmarks/ray_vs_local.py'
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

from rlcore import search
from rlcore.runs import ray_executor, sweeps
from rlcore.runs.store import Store

CONFIG = {"epochs": 300, "eval_every": 0, "test_games": 100}


def run_sweep(store: Store, engine: str, members: int) -> list:
    space = search.Space(grid={"seed": list(range(members))})
    start = time.time()
    sweep_id, _ = sweeps.create(store, "dqn", CONFIG, space, engine=engine, label=f"{engine} sweep")
    while any(r.live for r in store.sweep_runs(sweep_id)):
        time.sleep(0.5)
    runs = store.sweep_runs(sweep_id)
    bad = [r for r in runs if r.status != "done"]
    if bad:
        raise RuntimeError(f"run {bad[0].id} ended {bad[0].status}: {bad[0].error}")
    return runs, max(r.finished for r in runs) - start


def rss_mib(words: tuple[str, ...]) -> float:
    """Resident memory of this machine's processes whose command line holds one of ``words``."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if any(w in cmd for w in words):
                status = Path(f"/proc/{pid}/status").read_text()
                total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")))
        except (OSError, StopIteration):
            continue
    return total / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--members", type=int, default=8)
    args = parser.parse_args()
    if {n for _, n in socket.if_nameindex()} != {"lo"}:
        raise SystemExit("run this inside a loopback-only network namespace (see the docstring)")
    import ray
    from ray.cluster_utils import Cluster

    with tempfile.TemporaryDirectory() as local_home:
        local_runs, local_wall = run_sweep(Store(local_home), "local", args.members)
    print(f"local: {local_wall:.1f} s", flush=True)

    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "resources": {ray_executor.HEAD_RESOURCE: 1}, "include_dashboard": False})
    os.environ[ray_executor.ADDRESS_ENV] = cluster.address
    try:
        with tempfile.TemporaryDirectory() as ray_home:
            store = Store(ray_home)
            ray_executor.service(store)
            time.sleep(2)
            head_mib = rss_mib(("gcs_server", "raylet", "rlcore-service", "Service"))
            for _ in range(2):
                cluster.add_node(num_cpus=1, resources={ray_executor.SLOT_RESOURCE: 1})
            ray_runs, ray_wall = run_sweep(store, "ray", args.members)
    finally:
        ray.shutdown()
        cluster.shutdown()
    print(f"ray: {ray_wall:.1f} s", flush=True)

    local_sps = [r.summary["steps_per_second"] for r in local_runs]
    ray_sps = [r.summary["steps_per_second"] for r in ray_runs]
    to_running = [r.started - r.created for r in ray_runs[:2]]  # the first wave: nothing ahead of them
    to_store = [r.finished - r.summary["ray"]["task_ended"] for r in ray_runs]
    print(f"\n| {args.members} runs, {CONFIG['epochs']} book games each (graph) | local executor, 2 cores | "
          "Ray, two 1-CPU nodes |\n|---|---:|---:|")
    print(f"| sweep wall time | {local_wall:.1f} s | {ray_wall:.1f} s ({local_wall / ray_wall:.2f}x) |")
    print(f"| env steps/s per run, median (min–max) | {statistics.median(local_sps):.0f} "
          f"({min(local_sps):.0f}–{max(local_sps):.0f}) | {statistics.median(ray_sps):.0f} "
          f"({min(ray_sps):.0f}–{max(ray_sps):.0f}); "
          f"{statistics.median(ray_sps) / statistics.median(local_sps):.1%} of local |")
    print(f"| queued → running, first wave (Ray) | – | {', '.join(f'{s:.1f} s' for s in to_running)} |")
    print(f"| task end → result in the store (Ray), median | – | {statistics.median(to_store) * 1000:.0f} ms |")
    print(f"| head's memory (GCS + raylet + service actor) | – | {head_mib:.0f} MiB |")


if __name__ == "__main__":
    main()
