"""A workload's command: run it here with a progress bar and its verdict, or queue it (--detach)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any

from rlcore import report, workloads
from rlcore.cli.common import (
    _fail,
    _given,
    writable_path,
)
from rlcore.config import (
    LABEL_MAX,
    ConfigError,
    amount_text,
    check_text,
    percent_text,
)
from rlcore.config import style_of as style_of_config
from rlcore.execution import DeviceError, prepare_process


class TqdmReporter:
    """Progress bar for the CLI: the phase, then progress with the last loss, window throughput and result."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bar = None
        self.postfix: dict[str, str] = {}

    def on_start(self, info: report.RunInfo) -> None:
        if self.enabled:
            from tqdm import tqdm

            if info.unit == "ms":  # a time budget (turbo): progress in milliseconds of training, no rate
                self.bar = tqdm(total=info.total, dynamic_ncols=True, file=sys.stderr,
                                bar_format="{l_bar}{bar}| {n:,}/{total:,} ms of training [{elapsed}{postfix}]")
            else:
                self.bar = tqdm(total=info.total, unit=" " + info.unit.removesuffix("s"), dynamic_ncols=True,
                                file=sys.stderr)

    def on_record(self, record: report.Record) -> bool:
        if self.bar is not None:
            m = record.metrics
            shown = ((report.LOSS, "loss", "{:.3g}".format), (report.ENV_STEPS_PER_S, "steps/s", amount_text),
                     (report.STEPS_PER_S, "steps/s", amount_text), (report.WIN_RATE, "win", percent_text),
                     (report.HJB_MAX_REL_ERR_C, "err c", percent_text))
            for key, name, text in shown:
                if key in m:
                    self.postfix[name] = text(m[key])
            if record.phase:
                self.bar.set_description(record.phase)
            self.bar.n = round(record.progress * self.bar.total)
            self.bar.set_postfix(self.postfix, refresh=True)
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        if self.bar is not None:
            self.bar.close()


def _run_workload(workload: workloads.Workload, args: argparse.Namespace) -> int:
    from rlcore.runs.store import default_home

    fields = {f.name for f in dataclasses.fields(workload.config)}
    preset = getattr(args, workload.preset_param, None) if workload.preset_param not in fields else None
    try:
        cfg = workload.make_config(_given(workload.config, args), preset)
        label = check_text(args.label, "label", LABEL_MAX)
        json_path = writable_path(args.json, "--json") if args.json is not None else None
        outputs = {o: writable_path(getattr(args, _dest(o.flag)), o.flag, o.suffix)
                   for o in workload.outputs if getattr(args, _dest(o.flag)) is not None}
    except ConfigError as e:
        return _fail(str(e))
    missing = workload.unavailable(cfg)
    if missing:
        return _fail(missing)
    style = style_of_config(cfg)
    for output in outputs:
        if output.styles and style not in output.styles:
            return _fail(f"{output.flag} does not apply to the {style} style: {output.help}.")
    if args.detach:
        return _detach(workload.kind, cfg, label, preset, args.executor)
    profile_dir = None
    if getattr(cfg, "profile", 0):
        import time

        profile_dir = default_home() / "profiles" / f"{workload.kind}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    prepare_process(",".join(workloads.devices_of(cfg)), default_home(), threads=workloads.threads_of(cfg),
                    profile_dir=profile_dir)
    from rlcore.environment import card_for

    try:
        outcome = workload.train(cfg, TqdmReporter(enabled=not args.quiet))
    except DeviceError as e:
        return _fail(str(e))
    verdict = workload.judge(cfg, outcome.summary)
    summary = outcome.summary | {"verdict": dataclasses.asdict(verdict), "environment": card_for(cfg)}
    for output, path in outputs.items():
        _write(path, outcome.artifacts[output.artifact], output.flag)
    if json_path:
        _write(json_path, json.dumps(summary, indent=2).encode(), "--json")
    if workload.describe:
        print(workload.describe(cfg, summary))
    print(verdict.text)
    profile = summary.get("profile")
    if profile:
        print(f"Profile: {profile['sentence']}" if "sentence" in profile else f"No profile: {profile['error']}")
        if "logdir" in profile:
            print(f"  the capture: {profile['capture']}\n  open it with: {profile['open_with']}")
    return 0


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _write(path: Path, data: bytes, flag: str) -> None:
    """Write a result; if the file became unwritable during training, say so and keep the result in the store's
    home instead of losing it."""
    try:
        path.write_bytes(data)
    except OSError as e:
        from rlcore.runs.store import default_home

        keep = default_home() / "unsaved" / path.name
        try:
            keep.parent.mkdir(parents=True, exist_ok=True)
            keep.write_bytes(data)
        except OSError as kept:
            print(f"error: {flag} could not be written ({e.strerror or e}), nor kept in {keep} "
                  f"({kept.strerror or kept}).", file=sys.stderr)
            return
        print(f"error: {flag} could not be written ({e.strerror or e}); the result is kept in {keep}.",
              file=sys.stderr)


def _detach(kind: str, cfg: Any, label: str, preset: str | None, engine: str | None = None) -> int:
    from rlcore.runs import executor
    from rlcore.runs.store import Store

    store = Store()
    run_id = store.create_run(kind, cfg, label, preset=preset, executor=executor.current(engine))
    executor.submit(store, [run_id])
    run = store.get_run(run_id)
    if run is not None and run.status == "failed":
        return _fail(f"run {run_id} could not start: {run.error}")
    print(f"queued run {run_id} in {store.path}; follow it with: python -m rlcore runs show {run_id}")
    print(run_id)
    return 0


