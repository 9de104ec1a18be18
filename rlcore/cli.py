"""Command line: ``python -m rlcore <workload> | runs | worker | devices`` (one command per registered workload).

Arguments, labels and output paths are checked before TensorFlow is imported, so bad input costs nothing and
prints one sentence (exit 2). The device is pinned before the import too.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rlcore import report, workloads
from rlcore.config import (
    LABEL_MAX,
    ConfigError,
    amount_text,
    check_text,
    label_of,
    parse_id,
    parse_int,
    percent_text,
)
from rlcore.config import style_of as style_of_config
from rlcore.execution import DeviceError, prepare_process, quiet_native_logs
from rlcore.runs import executor as executors

EXIT_BAD_INPUT = 2
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one sentence and exit 2, without the usage block, and a flag is never
    guessed from its first letters (``--epoch`` is not ``--epochs``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {printable(message)} (see {self.prog} --help)\n")


def printable(text: Any) -> str:
    """Text for a terminal: control characters (escape sequences among them) shown as �."""
    return _CONTROL.sub("\ufffd", str(text))


def _style_note(styles: tuple[str, ...] | None) -> str:
    return f" ({' / '.join(styles)} only)" if styles else ""


def _add_config_flags(parser: argparse.ArgumentParser, workload: workloads.Workload) -> None:
    """One flag per config field, grouped as the form groups them, with help, default, choices and the styles a
    field applies to. A flag not given stays None, so presets and defaults fill it in and only what the user
    typed is checked against the style."""
    cls = workload.config
    groups: dict[str, list[dataclasses.Field]] = {}
    for f in dataclasses.fields(cls):
        groups.setdefault(f.metadata.get("group") or "Settings", []).append(f)
    for title, members in groups.items():
        shared = {f.metadata.get("styles") for f in members}
        group_styles = shared.pop() if len(shared) == 1 else None
        group = parser.add_argument_group(title + _style_note(group_styles))
        for f in members:
            meta = f.metadata
            note = "" if group_styles else _style_note(meta.get("styles"))
            default = f.default if f.default != "" else "empty"
            metavar = None if meta.get("choices") else label_of(f).upper()
            group.add_argument("--" + label_of(f).replace("_", "-"), dest=f.name, default=None,
                               choices=meta.get("choices"), metavar=metavar,
                               help=f"{meta['help']}{note} (default: {default})")


def _given(cls: type, args: argparse.Namespace) -> dict[str, Any]:
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name) is not None}


def writable_dir(text: str, flag: str) -> Path:
    """An output folder checked before any work: named, not a file, made if missing, writable."""
    if not text.strip():
        raise ConfigError(f"{flag} needs a folder name, not an empty one.")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{flag} names a file, not a folder: {text}.")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{flag} cannot be made: {e.strerror or e}.") from None
    if not os.access(path, os.W_OK):
        raise ConfigError(f"{flag} cannot be written: {text} is not writable.")
    return path


def writable_path(text: str, flag: str, suffix: str | None = None) -> Path:
    """An output file checked before any work is done: named, in an existing directory, writable."""
    if not text.strip():
        raise ConfigError(f"{flag} needs a file name, not an empty one.")
    path = Path(text)
    shown = printable(text if len(text) <= 80 else text[:80] + "…")
    if suffix and path.suffix != suffix:
        raise ConfigError(f"{flag} must name a {suffix} file, not {shown!r}.")
    try:
        if path.is_dir():
            raise ConfigError(f"{flag} names a directory ({shown}); give a file name in it.")
        if not path.parent.is_dir():
            raise ConfigError(f"{flag} cannot be written: the directory {path.parent} does not exist.")
        existed = path.exists()
        if existed and not path.is_file():  # a pipe or a device: opening it could block, or write anywhere
            raise ConfigError(f"{flag} names something that is not a regular file ({shown}); give a file name.")
        with open(path, "a"):
            pass
    except OSError as e:  # a name too long, no permission, a read-only disk
        raise ConfigError(f"{flag} cannot be written: {e.strerror or e} ({shown}).") from None
    if not existed:
        path.unlink(missing_ok=True)
    return path


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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m rlcore", description="TF Training Lab: train and measure from the shell.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    for workload in workloads.all_workloads():
        cmd = sub.add_parser(workload.kind, help=workload.title, description=workload.description)
        fields = {f.name for f in dataclasses.fields(workload.config)}
        if workload.presets and workload.preset_param not in fields:
            cmd.add_argument(f"--{workload.preset_param}", choices=list(workload.presets),
                             default=workload.default_preset,
                             help=f"named defaults; explicit flags override them (default: {workload.default_preset})")
        _add_config_flags(cmd, workload)
        out = cmd.add_argument_group("Output")
        out.add_argument("--json", metavar="FILE", help="write the result as JSON here (default: none)")
        for output in workload.outputs:
            out.add_argument(output.flag, metavar="FILE" + output.suffix, help=f"{output.help} (default: none)")
        out.add_argument("--quiet", action="store_true", help="no progress bar (default: off)")
        out.add_argument("--detach", action="store_true",
                         help="queue the run for a background worker and print its id (default: run here)")
        out.add_argument("--label", default="", help="a name for the stored run (default: made from its settings)")
        out.add_argument("--executor", choices=executors.names(), default=None,
                         help="with --detach: where the run executes (default: $RLCORE_EXECUTOR, else local)")

    kinds = [w.kind for w in workloads.all_workloads()]
    sweep = sub.add_parser(
        "sweep", help="run a grid or random search over settings x seeds, and say which setting wins",
        description="A sweep is one workload, fixed values (--set), value lists whose product is the grid (--grid), "
                    "ranges drawn --random times (--range), times a list of seeds. Names are the workload's flag "
                    "names (exec, lr, turbo-lr); values are checked like the flags'. Every member is validated "
                    "before anything is queued. Free-text fields (the bench's batch list) separate values with |.",
        epilog="example: python -m rlcore sweep dqn --set exec=turbo --grid turbo-lr=3e-3,1e-2,3e-2 "
               "--grid turbo-games=128,512 --seeds 0,1,2")
    sweep.add_argument("kind", choices=kinds, help="the workload")
    sweep.add_argument("--preset", help="named defaults of the workload (HJB: seed, accurate)")
    sweep.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a fixed value")
    sweep.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                       help="values to try; several --grid give their product")
    sweep.add_argument("--random", default="0", metavar="N", help="random draws from the --range settings")
    sweep.add_argument("--range", action="append", default=[], metavar="NAME=SCALE:LO:HI",
                       help="where a draw comes from: uniform:0:1, log:1e-4:1e-2, int:32:256, logint:16:1024, "
                            "choice:static,player")
    sweep.add_argument("--seeds", default="", metavar="0,1,2", help="run every setting once per seed")
    sweep.add_argument("--sweep-seed", default="0", metavar="S", help="seed of the random draws (default: 0)")
    sweep.add_argument("--label", default="", help="a name for the sweep")
    sweep.add_argument("--executor", choices=executors.names(), default=None,
                       help="where the members execute (default: $RLCORE_EXECUTOR, else local)")
    sweep.add_argument("--detach", action="store_true", help="queue the members and print the sweep's id")
    sweep.add_argument("--json", metavar="FILE", help="write the sweep and its results per setting as JSON here")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")

    sweeps = sub.add_parser("sweeps", help="list, show, cancel, export or delete stored sweeps")
    sweeps_sub = sweeps.add_subparsers(dest="sweeps_command", required=True, parser_class=_Parser)
    sweeps_sub.add_parser("list", help="every sweep, newest first").add_argument("--json", action="store_true")
    sweeps_show = sweeps_sub.add_parser("show", help="a sweep's members and its results per setting")
    sweeps_show.add_argument("id")
    sweeps_show.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    sweeps_export = sweeps_sub.add_parser("export", help="a sweep's results per setting as CSV")
    sweeps_export.add_argument("id")
    sweeps_export.add_argument("--csv", required=True, metavar="FILE")
    for name, text in (("cancel", "cancel every live member"), ("delete", "delete the sweep and its runs")):
        sweeps_sub.add_parser(name, help=text).add_argument("id")

    runs = sub.add_parser("runs", help="list, show, export, cancel, label or delete stored runs ($RLCORE_HOME)")
    runs_sub = runs.add_subparsers(dest="runs_command", required=True, parser_class=_Parser)
    runs_list = runs_sub.add_parser("list", help="every run, newest first")
    runs_list.add_argument("--json", action="store_true", help="print JSON (default: a table)")
    runs_show = runs_sub.add_parser("show", help="one run: status, verdict, error, config, summary")
    runs_show.add_argument("id")
    runs_show.add_argument("--json", action="store_true", help="print JSON (default: text)")
    runs_export = runs_sub.add_parser("export", help="a run's metrics as CSV, or as TensorBoard event files (with "
                                                     "its profile) for tensorboard --logdir")
    runs_export.add_argument("id")
    runs_export.add_argument("--csv", metavar="FILE", help="where to write the CSV")
    runs_export.add_argument("--tensorboard", metavar="DIR",
                             help="a folder to write the run's scalars and profile into (made if missing)")
    for name, text in (("cancel", "stop a queued or running run"), ("delete", "delete a run, its metrics and files")):
        runs_sub.add_parser(name, help=text).add_argument("id")
    for name, text in (("label", "rename a run"), ("notes", "replace a run's notes")):
        cmd = runs_sub.add_parser(name, help=text)
        cmd.add_argument("id")
        cmd.add_argument("text")

    sub.add_parser("operator-hash", help="ask for an operator passphrase and print the hash line the dashboard needs",
                   description="Reads a passphrase (twice at a terminal, one line from a pipe) and prints the line "
                               "to set (RLCORE_OPERATOR_HASH=...) or to paste into .streamlit/secrets.toml. The "
                               "passphrase itself is never printed or stored.")

    cluster = sub.add_parser("cluster", help="show the Ray cluster the Ray executor uses (nodes, CPUs, GPUs)")
    cluster.add_argument("--address", help="the cluster (default: $RLCORE_RAY_ADDRESS, else the local one)")
    cluster.add_argument("--json", action="store_true", help="print JSON")

    devices = sub.add_parser("devices", help="show the CPU, GPUs and TensorFlow version this machine offers")
    devices.add_argument("--json", action="store_true", help="print JSON instead of text (default: off)")
    for name in (*kinds, "sweep", "devices", "cluster"):
        sub.choices[name].add_argument("--verbose", action="store_true",
                                       help="show TensorFlow's own log lines on stderr (default: hidden)")
    return parser


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


def _pairs(texts: list[str], flag: str) -> list[tuple[str, str]]:
    pairs = []
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{flag} needs NAME=VALUE, not {text[:40]!r}.", flag)
        pairs.append((name, value))
    return pairs


def _run_sweep(args: argparse.Namespace) -> int:
    from rlcore import search
    from rlcore.runs import sweeps
    from rlcore.runs.store import Store

    workload = workloads.get(args.kind)
    try:
        if args.preset is not None and args.preset not in workload.presets:
            raise ConfigError(f"--preset must be one of {', '.join(workload.presets) or 'nothing here'}, not "
                              f"{args.preset!r}.")
        base, parsed = search.collect(workload, _pairs(args.set, "--set"), _pairs(args.grid, "--grid"),
                                      _pairs(args.range, "--range"), args.seeds)
        space = search.Space(parsed.grid, parsed.ranges, parse_int(args.random, "--random"), parsed.seeds,
                             parse_int(args.sweep_seed, "--sweep-seed"))
        label = check_text(args.label, "label", LABEL_MAX)
        json_path = writable_path(args.json, "--json") if args.json is not None else None
        store = Store()
        sweep_id, run_ids = sweeps.create(store, workload.kind, base, space, label=label, preset=args.preset,
                                          engine=args.executor)
    except ConfigError as e:
        return _fail(str(e))
    print(f"queued sweep {sweep_id}: {len(run_ids):,} runs ({run_ids[0]}–{run_ids[-1]}) in {store.path}; follow it "
          f"with: python -m rlcore sweeps show {sweep_id}")
    if args.detach:
        print(sweep_id)
        return 0
    _follow_sweep(store, sweep_id, run_ids, quiet=args.quiet)
    return _show_sweep(store, sweep_id, as_json=False, json_path=json_path)


def _follow_sweep(store: Any, sweep_id: int, run_ids: list[int], quiet: bool) -> None:
    """One progress bar over the members until every one has ended; Ctrl-C cancels the sweep."""
    import time

    from tqdm import tqdm

    bar = None if quiet else tqdm(total=len(run_ids), unit="run", dynamic_ncols=True, file=sys.stderr)
    try:
        while True:
            runs = store.sweep_runs(sweep_id)
            ended = sum(not r.live for r in runs)
            if bar is not None:
                bar.n = ended
                live = next((r for r in runs if r.status == "running"), None)
                bar.set_postfix_str(printable(f"now: {live.label}" if live else ""), refresh=True)
            if ended == len(runs):
                break
            time.sleep(0.5)
    except KeyboardInterrupt:
        store.cancel_sweep(sweep_id)
        print(f"\ncancelled sweep {sweep_id}", file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()


def _show_sweep(store: Any, sweep_id: int, *, as_json: bool, json_path: Path | None = None) -> int:
    from rlcore import search
    from rlcore.runs import sweeps

    sweep = store.get_sweep(sweep_id)
    if sweep is None:
        return _fail(f"sweep {sweep_id} does not exist in {store.path}.")
    workload = workloads.get(sweep.kind)
    runs = store.sweep_runs(sweep_id)
    rows = sweeps.results(store, sweep, runs)
    top = search.best(workload, rows)
    document = {"sweep": sweeps.to_dict(sweep), "runs": {r.id: r.status for r in runs},
                "counts": sweeps.status_counts(runs), "results": sweeps.results_rows(sweep, rows),
                "best": top.setting if top else None, "best_by": workload.headlines[0].key}
    if json_path:
        _write(json_path, json.dumps(document, indent=2).encode(), "--json")
    if as_json:
        print(json.dumps(document, indent=2))
        return 0
    counts = ", ".join(f"{n} {status}" for status, n in document["counts"].items())
    print(printable(f"sweep {sweep.id} ({sweep.kind}, {sweep.label}): {len(runs):,} runs — {counts}"))
    print(_results_text(workload, rows, top))
    return 0


def _results_text(workload: workloads.Workload, rows: list[Any], top: Any) -> str:
    from rlcore.config import number_text

    def show(h: workloads.Headline, mean: float | None, spread: float | None) -> str:
        return "–" if mean is None else f"{h.text(mean)} ± {h.text(spread or 0.0)}"

    names = {f.name: label_of(f) for f in dataclasses.fields(workload.config)}
    header = [*(names.get(k, k) for k in (rows[0].setting if rows else {})), "runs",
              *(h.label for h in workload.headlines)]
    lines = [header]
    for r in rows:
        lines.append([*(str(v) for v in r.setting.values()), f"{r.done}/{r.runs}",
                      *(show(h, r.means[h.key], r.spreads[h.key]) for h in workload.headlines)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    text = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)) for line in lines)
    if top is not None:
        setting = " ".join(f"{names.get(k, k)}={v}" for k, v in top.setting.items())
        h = workload.headlines[0]
        text += (f"\nbest by {h.label} ({h.better} is better): {setting} "
                 f"({show(h, top.means[h.key], top.spreads[h.key])} over {number_text(top.done)} runs)")
    return text


def _run_sweeps(args: argparse.Namespace) -> int:
    from rlcore.runs import sweeps
    from rlcore.runs.store import Store

    store = Store()
    if args.sweeps_command == "list":
        listed = store.list_sweeps()
        if args.json:
            print(json.dumps([sweeps.to_dict(s) for s in listed], indent=2))
        elif not listed:
            print(f"no sweeps yet in {store.path}; start one with: python -m rlcore sweep --help")
        if listed and not args.json:
            print(f"{'id':>4}  {'kind':5}  {'runs':>10}  {'status':30}  label")
        for s in [] if args.json else listed:
            counts = sweeps.status_counts(store.sweep_runs(s.id))
            print(printable(f"{s.id:>4}  {s.kind:5}  {sum(counts.values()):>5} runs  "
                            f"{', '.join(f'{n} {k}' for k, n in counts.items()):30}  {s.label[:60]}"))
        return 0
    try:
        sweep_id = parse_id(args.id, "sweep")
    except ConfigError as e:
        return _fail(str(e))
    if store.get_sweep(sweep_id) is None:
        return _fail(f"sweep {sweep_id} does not exist in {store.path}.")
    if args.sweeps_command == "show":
        return _show_sweep(store, sweep_id, as_json=args.json)
    if args.sweeps_command == "export":
        try:
            path = writable_path(args.csv, "--csv")
        except ConfigError as e:
            return _fail(str(e))
        sweep = store.get_sweep(sweep_id)
        rows = sweeps.results(store, sweep)
        path.write_text(sweeps.export_csv(sweep, rows))
        print(f"wrote the results of {len(rows):,} settings of sweep {sweep_id} to {path}")
        return 0
    if args.sweeps_command == "cancel":
        running = store.cancel_sweep(sweep_id)
        print(f"sweep {sweep_id}: queued members cancelled" + (f"; runs {', '.join(map(str, running))} stop at their "
                                                              "next report" if running else ""))
        return 0
    try:
        store.delete_sweep(sweep_id)
    except ValueError as e:
        return _fail(str(e))
    print(f"deleted sweep {sweep_id} and its runs")
    return 0


def _run_operator_hash(args: argparse.Namespace) -> int:
    import getpass

    from rlcore.passphrase import hash_passphrase

    if sys.stdin.isatty():
        first = getpass.getpass("operator passphrase: ")
        if getpass.getpass("the same again: ") != first:
            return _fail("the two passphrases differ; nothing printed.")
    else:
        first = sys.stdin.readline().rstrip("\n")
    try:
        line = hash_passphrase(first)
    except ValueError as e:
        return _fail(str(e))
    print(f"RLCORE_OPERATOR_HASH='{line}'")
    print(f'# or, in .streamlit/secrets.toml:  operator_hash = "{line}"')
    return 0


def _run_cluster(args: argparse.Namespace) -> int:
    from rlcore.runs import ray_executor

    try:
        card = ray_executor.cluster_card(args.address)
    except ConfigError as e:
        return _fail(str(e))
    print(json.dumps(card, indent=2) if args.json else "\n".join(ray_executor.card_lines(card)))
    return 0


def _run_devices(args: argparse.Namespace) -> int:
    from rlcore.execution import pin_device

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
    from rlcore.runs.executor import cancel
    from rlcore.runs.store import Store

    store = Store()
    if args.runs_command == "list":
        runs = store.list_runs()
        if args.json:
            print(json.dumps([_run_brief(r) for r in runs], indent=2))
        elif not runs:
            print(f"no runs yet in {store.path}; start one with --detach, e.g. python -m rlcore dqn --detach")
        else:
            print(f"{'id':>4}  {'kind':5}  {'status':9}  {'style':9}  {'device':6}  label")
            for r in runs:
                style = workloads.style_column(r.config)
                print(printable(f"{r.id:>4}  {r.kind:5}  {r.status:9}  {style:9}  {r.config.get('device', ''):6}  "
                                f"{r.label[:80]}"))
        return 0
    try:
        run_id = parse_id(args.id)
    except ConfigError as e:
        return _fail(str(e))
    run = store.get_run(run_id)
    if run is None:
        return _fail(f"run {run_id} does not exist in {store.path}.")
    if args.runs_command == "show":
        verdict = _verdict(run)
        details = run.to_dict() | {"verdict": verdict, "metric_rows": store.metric_count(run.id)}
        if args.json:
            print(json.dumps(details, indent=2))
        else:
            print(printable(f"run {run.id} ({run.kind}, {run.label}): {run.status}"
                            + (f" — {run.error}" if run.error else "") + f"; {details['metric_rows']:,} metric rows"))
            if verdict:
                print(printable(verdict["text"]))
        return 0
    if args.runs_command == "export":
        if (args.csv is None) == (args.tensorboard is None):
            return _fail("runs export needs one of --csv FILE or --tensorboard DIR.")
        try:
            path = writable_path(args.csv, "--csv") if args.csv is not None else writable_dir(args.tensorboard,
                                                                                               "--tensorboard")
        except ConfigError as e:
            return _fail(str(e))
        if args.csv is not None:
            store.metrics(run.id).to_csv(path, index=False)
            print(f"wrote {store.metric_count(run.id):,} metric rows of run {run.id} to {path}")
            return 0
        from rlcore.export import to_tensorboard

        written = to_tensorboard(run, store.metrics(run.id), store.run_dir(run.id), path)
        print(f"wrote {written['scalars']:,} scalars of run {run.id}" + (
            f" and its profile ({written['profile_files']} files)" if written["profile_files"] else "") +
            f" to {written['logdir']}; open them with: tensorboard --logdir {path}")
        return 0
    if args.runs_command == "cancel":
        print(f"run {run.id}: {cancel(store, run.id)}")
        return 0
    try:
        if args.runs_command == "label":
            store.set_label(run.id, args.text)
        elif args.runs_command == "notes":
            store.set_notes(run.id, args.text)
        else:
            store.delete_run(run.id)
    except (ConfigError, ValueError) as e:
        return _fail(str(e))
    print(f"{'deleted' if args.runs_command == 'delete' else 'updated'} run {run.id}")
    return 0


def _verdict(run: Any) -> dict[str, str] | None:
    if run.status not in ("done", "cancelled") or not run.summary:
        return None
    workload = workloads.get(run.kind)
    return dataclasses.asdict(workload.judge(workload.make_config(run.config), run.summary))


def _run_brief(run: Any) -> dict[str, Any]:
    return {k: getattr(run, k) for k in ("id", "kind", "status", "label", "preset", "created", "started", "finished",
                                         "error")} | {"verdict": _verdict(run)}


def _fail(message: str) -> int:
    print(f"error: {printable(message)}", file=sys.stderr)
    return EXIT_BAD_INPUT


VERBOSE_ENV = "RLCORE_VERBOSE"  # 1: TensorFlow's own log lines stay on stderr (as --verbose)


def main(argv: Sequence[str] | None = None, *, process: bool = False) -> int:
    """The command line; ``process``: this is the process's own entry (``python -m rlcore``), whose stderr is
    then kept free of TensorFlow's C++ log lines."""
    from rlcore.runs.store import StoreError

    args = build_parser().parse_args(argv)
    if process and not (getattr(args, "verbose", False) or os.environ.get(VERBOSE_ENV) == "1"):
        quiet_native_logs()  # before TensorFlow is imported: its C++ start-up lines are noise to a user
    commands = {"devices": _run_devices, "runs": _run_runs, "sweep": _run_sweep,
                "sweeps": _run_sweeps, "cluster": _run_cluster, "operator-hash": _run_operator_hash}
    try:
        if args.command in commands:
            return commands[args.command](args)
        return _run_workload(workloads.get(args.command), args)
    except StoreError as e:
        return _fail(str(e))
