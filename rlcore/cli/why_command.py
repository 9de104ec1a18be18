"""``rlcore why PATH``: a capture made anywhere, read and said (``tracking.foreign``), stored as a run of the
workload that ``reads_captures`` (listed, its Why panel in the dashboard, comparable and shareable like any run)."""

from __future__ import annotations

import argparse

from rlcore.cli.common import fail, writable_path
from rlcore.contract import workloads
from rlcore.contract.params import ConfigError


def run_why(args: argparse.Namespace) -> int:
    from rlcore.cli.train import run_here

    workload = next((w for w in workloads.all_workloads() if w.reads_captures), None)
    if workload is None or workload.prepare is None:
        return fail("This lab has no workload that reads captures.")
    try:  # one sentence for what is no capture, before anything is stored
        values = workload.prepare({"source": args.path, "run": args.run or "", "name": args.name or ""})
        cfg = workload.make_config(values)
        json_path = writable_path(args.json, "--json") if args.json is not None else None
    except ConfigError as e:
        return fail(str(e))
    return run_here(workload, cfg, label=cfg.name, quiet=True, json_path=json_path)
