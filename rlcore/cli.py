"""Command line: ``python -m rlcore dqn | hjb | bench | runs | worker | devices``.

Arguments are validated by ``rlcore.config`` before TensorFlow is imported, so a bad value
costs nothing and prints one sentence (exit 2). The device is pinned before the import too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rlcore import report
from rlcore.config import HJB_PRESETS, BenchConfig, ConfigError, DQNConfig, HJBConfig, hjb_preset
from rlcore.execution import DeviceError, enable_xla_cache, pin_device

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one sentence and exit 2, without the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {message} (see {self.prog} --help)\n")


def _add_config_flags(parser: argparse.ArgumentParser, cls: type, *, unset: bool = False) -> None:
    """One flag per config field, with its help, default and choices from the field metadata.

    With ``unset`` a flag not given stays None, so a preset can fill it in.
    """
    for f in dataclasses.fields(cls):
        meta = f.metadata
        flag = "--" + (meta.get("flag") or f.name).replace("_", "-")
        kind = {"int": int, "float": float}.get(str(f.type), str)
        parser.add_argument(flag, dest=f.name, type=kind, default=None if unset else f.default,
                            choices=meta.get("choices"), metavar=None if meta.get("choices") else f.name.upper(),
                            help=f"{meta['help']} (default: {f.default if f.default != '' else 'empty'})")


def _config_from_args(cls: type, args: argparse.Namespace) -> Any:
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})


def _given(cls: type, args: argparse.Namespace) -> dict[str, Any]:
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name) is not None}


class TqdmReporter:
    """Progress bar for the CLI: games done, last loss, window throughput, last win rate."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.bar = None
        self.postfix: dict[str, str] = {}

    def on_start(self, info: report.RunInfo) -> None:
        if self.enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=info.total, unit=info.unit.rstrip("s"), dynamic_ncols=True, file=sys.stderr)

    def on_record(self, record: report.Record) -> bool:
        if self.bar is not None:
            m = record.metrics
            if report.LOSS in m:
                self.postfix["loss"] = f"{m[report.LOSS]:.4f}"
            if report.ENV_STEPS_PER_S in m:
                self.postfix["steps/s"] = f"{m[report.ENV_STEPS_PER_S]:.0f}"
            if report.STEPS_PER_S in m:
                self.postfix["steps/s"] = f"{m[report.STEPS_PER_S]:.0f}"
            if report.WIN_RATE in m:
                self.postfix["win"] = f"{m[report.WIN_RATE]:.1%}"
            if report.HJB_MAX_REL_ERR_C in m:
                self.postfix["err c"] = f"{m[report.HJB_MAX_REL_ERR_C]:.2%}"
            self.bar.n = round(record.progress * self.bar.total)
            self.bar.set_postfix(self.postfix, refresh=True)
        return True

    def on_end(self, summary: dict[str, Any]) -> None:
        if self.bar is not None:
            self.bar.close()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rlcore", description="TF Training Lab: train and measure from the shell.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    dqn = sub.add_parser(
        "dqn", help="train the book's Gridworld DQN (replay + target network)",
        description="Train the chapter-3 DQN of 'Deep Reinforcement Learning in Action' and run the "
                    "book's win-rate test. Defaults are the book's values.",
    )
    _add_config_flags(dqn, DQNConfig)
    dqn.add_argument("--json", metavar="FILE", help="write the result as JSON here (default: none)")
    dqn.add_argument("--save-model", metavar="FILE.keras", help="save the trained network here (default: none)")
    dqn.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    _add_detach_flags(dqn)

    hjb = sub.add_parser(
        "hjb", help="solve the growth model's HJB equation with the seed's network",
        description="Train the seed's value network on the HJB equation of the neoclassical growth model and "
                    "judge it against the exact saddle-path solution. Defaults are the seed's values; "
                    "--preset picks another starting point, explicit flags override it.",
    )
    hjb.add_argument("--preset", choices=list(HJB_PRESETS), default="seed",
                     help="named defaults: seed (the question's code) or accurate (default: seed)")
    _add_config_flags(hjb, HJBConfig, unset=True)
    hjb.add_argument("--json", metavar="FILE", help="write the result as JSON here (default: none)")
    hjb.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    _add_detach_flags(hjb)

    bench = sub.add_parser(
        "bench", help="time TensorFlow patterns (predict vs tf.function, eager vs graph vs XLA) per batch and device",
        description="The benchmark lab: time each pattern of a workload over batch sizes, widths and devices. "
                    "The first call (trace/compile) is timed apart; then --repeats runs of at least --min-seconds "
                    "each give the median and interquartile range. Each device runs in its own process.",
    )
    _add_config_flags(bench, BenchConfig)
    bench.add_argument("--json", metavar="FILE", help="write the cells and the environment as JSON here")
    bench.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
    bench.add_argument("--cells-jsonl", action="store_true", help=argparse.SUPPRESS)  # a device's child process
    _add_detach_flags(bench)

    runs = sub.add_parser("runs", help="list, show, export, cancel or delete stored runs ($RLCORE_HOME)")
    runs_sub = runs.add_subparsers(dest="runs_command", required=True, parser_class=_Parser)
    runs_list = runs_sub.add_parser("list", help="every run, newest first")
    runs_list.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    runs_show = runs_sub.add_parser("show", help="one run: status, error, config, summary")
    runs_show.add_argument("id", type=int)
    runs_show.add_argument("--json", action="store_true", help="print JSON (default: text)")
    runs_export = runs_sub.add_parser("export", help="a run's metrics as CSV")
    runs_export.add_argument("id", type=int)
    runs_export.add_argument("--csv", required=True, metavar="FILE", help="where to write the CSV")
    for name, text in (("cancel", "stop a queued or running run"), ("delete", "delete a run, its metrics and files")):
        runs_sub.add_parser(name, help=text).add_argument("id", type=int)

    worker = sub.add_parser("worker", help="execute one stored run (started by --detach and the dashboard)")
    worker.add_argument("--run", type=int, required=True, help="the run's id")

    devices = sub.add_parser("devices", help="show the CPU, GPUs and TensorFlow version this machine offers")
    devices.add_argument("--json", action="store_true", help="print JSON instead of text (default: off)")
    return parser


def _add_detach_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--detach", action="store_true",
                        help="queue the run for a background worker and print its id (default: run here)")
    parser.add_argument("--label", default="", help="a name for the stored run (default: none)")


def _detach(kind: str, cfg: Any, label: str) -> int:
    from rlcore.runs.store import Store
    from rlcore.runs.worker import launch

    store = Store()
    run_id = store.create_run(kind, cfg, label)
    launch(store, run_id)
    print(f"queued run {run_id} in {store.path}; follow it with: python -m rlcore runs show {run_id}")
    print(run_id)
    return 0


def _run_dqn(args: argparse.Namespace) -> int:
    try:
        cfg = _config_from_args(DQNConfig, args)
    except ConfigError as e:
        return _fail(str(e))
    if args.save_model and not args.save_model.endswith(".keras"):
        return _fail(f"--save-model must name a .keras file, not {args.save_model!r}.")
    if args.detach:
        return _detach("dqn", cfg, args.label)
    pin_device(cfg.device)
    if cfg.exec_mode == "turbo":
        from rlcore.runs.store import default_home

        enable_xla_cache(default_home() / "xla_cache")
    from rlcore import dqn
    from rlcore.environment import environment_card

    try:
        result = dqn.train(cfg, TqdmReporter(enabled=not args.quiet))
    except DeviceError as e:
        return _fail(str(e))
    summary = result.summary() | {"environment": environment_card()}
    if args.save_model:
        dqn.save_model(result.agent, args.save_model)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    if cfg.exec_mode == "turbo":
        print(f"compiled the loop in {result.compile_seconds:.1f} s (XLA cache: {result.xla_cache or 'off'}).")
    print(f"{result.games} games, {result.steps} steps in {result.train_seconds:.1f} s "
          f"({result.steps_per_second:.0f} steps/s, {cfg.exec_mode} on {cfg.device}); "
          f"win rate {result.win_rate:.1%} on {cfg.test_games} test games.")
    return 0


def _run_hjb(args: argparse.Namespace) -> int:
    try:
        cfg = hjb_preset(args.preset, **_given(HJBConfig, args))
    except ConfigError as e:
        return _fail(str(e))
    if args.detach:
        return _detach("hjb", cfg, args.label)
    pin_device(cfg.device)
    from rlcore import hjb
    from rlcore.environment import environment_card

    try:
        result = hjb.train(cfg, TqdmReporter(enabled=not args.quiet))
    except DeviceError as e:
        return _fail(str(e))
    if args.json:
        Path(args.json).write_text(json.dumps(result.summary() | {"environment": environment_card()}, indent=2))
    acc = result.accuracy
    print(f"{result.steps} steps in {result.train_seconds:.1f} s ({result.steps_per_second:.0f} steps/s, "
          f"{cfg.exec_mode}, {cfg.steps_per_call} per call, first call {result.first_call_seconds:.2f} s); "
          f"max relative error V {acc.max_rel_err_V:.3%}, c {acc.max_rel_err_c:.3%}.")
    return 0


def _run_bench(args: argparse.Namespace) -> int:
    try:
        cfg = _config_from_args(BenchConfig, args)
    except ConfigError as e:
        return _fail(str(e))
    if args.cells_jsonl:
        return _bench_device_cells(cfg)
    if args.detach:
        return _detach("bench", cfg, args.label)
    from rlcore import bench

    try:
        summary = bench.run(cfg, TqdmReporter(enabled=not args.quiet))
    except RuntimeError as e:
        return _fail(str(e))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    print(bench.cells_table(summary["cells"]).to_string(index=False))
    return 0


def _bench_device_cells(cfg: BenchConfig) -> int:
    """The child of one device: measure its cells here and print each as one JSON line."""
    (device,) = cfg.device_list
    pin_device(device)
    from rlcore import bench
    from rlcore.environment import environment_card
    from rlcore.execution import check_device

    try:
        placement = check_device(device)
    except DeviceError as e:
        return _fail(str(e))
    import tensorflow as tf

    print(json.dumps({"environment": environment_card()}), flush=True)
    with tf.device(placement):
        for result in bench.run_device_cells(cfg, device):
            print(json.dumps(result), flush=True)
    return 0


def _run_devices(args: argparse.Namespace) -> int:
    pin_device("gpu")  # look at everything TensorFlow can see
    from rlcore.environment import environment_card

    card = environment_card()
    if args.json:
        print(json.dumps(card, indent=2))
    else:
        print(f"CPU: {card['cpu']} ({card['cores']} cores)")
        print(f"GPU: {', '.join(card['gpus']) or 'no GPU visible to TensorFlow'}")
        print(f"TensorFlow {card['tensorflow']}, Keras {card['keras']}, Python {card['python']}")
    return 0


def _run_runs(args: argparse.Namespace) -> int:
    from rlcore.runs.store import Store
    from rlcore.runs.worker import cancel

    store = Store()
    if args.runs_command == "list":
        runs = store.list_runs()
        if args.json:
            print(json.dumps([_run_brief(r) for r in runs], indent=2))
        elif not runs:
            print(f"no runs yet in {store.path}; start one with --detach, e.g. python -m rlcore dqn --detach")
        else:
            print(f"{'id':>4}  {'kind':4}  {'status':9}  {'style':6}  {'device':6}  label")
            for r in runs:
                print(f"{r.id:>4}  {r.kind:4}  {r.status:9}  {r.config.get('exec_mode', ''):6}  "
                      f"{r.config.get('device', ''):6}  {r.label}")
        return 0
    run = store.get_run(args.id)
    if run is None:
        return _fail(f"run {args.id} does not exist in {store.path}.")
    if args.runs_command == "show":
        details = run.to_dict() | {"metric_rows": store.metric_count(run.id)}
        if args.json:
            print(json.dumps(details, indent=2))
        else:
            print(f"run {run.id} ({run.kind}, {run.label or 'no label'}): {run.status}"
                  + (f" — {run.error}" if run.error else "") + f"; {details['metric_rows']} metric rows")
        return 0
    if args.runs_command == "export":
        store.metrics(run.id).to_csv(args.csv, index=False)
        print(f"wrote {store.metric_count(run.id)} metric rows of run {run.id} to {args.csv}")
        return 0
    if args.runs_command == "cancel":
        print(f"run {run.id}: {cancel(store, run.id)}")
        return 0
    try:
        store.delete_run(run.id)
    except ValueError as e:
        return _fail(str(e))
    print(f"deleted run {run.id}")
    return 0


def _run_brief(run: Any) -> dict[str, Any]:
    return {k: getattr(run, k) for k in ("id", "kind", "status", "label", "created", "started", "finished", "error")}


def _run_worker(args: argparse.Namespace) -> int:
    from rlcore.runs.worker import run_worker

    return run_worker(args.run)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    commands = {"dqn": _run_dqn, "hjb": _run_hjb, "bench": _run_bench, "devices": _run_devices, "runs": _run_runs,
                "worker": _run_worker}
    return commands[args.command](args)
