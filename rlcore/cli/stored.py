"""Runs and sweeps in the store: list, show, export, cancel, label, delete; a sweep launched and followed."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from rlcore.cli.common import (
    fail,
    printable,
    writable_dir,
    writable_path,
)
from rlcore.cli.train import write_result
from rlcore.contract import workloads
from rlcore.contract.params import LABEL_MAX, ConfigError, check_text, label_of, parse_float, parse_id, parse_int
from rlcore.contract.status import FINISHED, RunStatus
from rlcore.runs import finder


def _pairs(texts: list[str], flag: str) -> list[tuple[str, str]]:
    pairs = []
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{flag} needs NAME=VALUE, not {text[:40]!r}.", flag)
        pairs.append((name, value))
    return pairs


def run_sweep(args: argparse.Namespace) -> int:
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
        return fail(str(e))
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
                live = next((r for r in runs if r.status == RunStatus.RUNNING), None)
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
        return fail(f"sweep {sweep_id} does not exist in {store.path}.")
    workload = workloads.get(sweep.kind)
    runs = store.sweep_runs(sweep_id)
    rows = sweeps.results(store, sweep, runs)
    by, why = sweeps.ranked_by(workload, runs)
    top = search.best(workload, rows, by)
    document = {"sweep": sweeps.to_dict(sweep), "runs": {r.id: r.status for r in runs},
                "counts": sweeps.status_counts(runs), "results": sweeps.results_rows(sweep, rows),
                "best": top.setting if top else None, "best_by": by.key} | ({"best_by_why": why} if why else {})
    if json_path:
        write_result(json_path, json.dumps(document, indent=2).encode(), "--json")
    if as_json:
        print(json.dumps(document, indent=2))
        return 0
    counts = ", ".join(f"{n} {status}" for status, n in document["counts"].items())
    print(printable(f"sweep {sweep.id} ({sweep.kind}, {sweep.label}): {len(runs):,} runs — {counts}"))
    print(_results_text(workload, rows, top, by, why))
    return 0


def _results_text(workload: workloads.Workload, rows: list[Any], top: Any, by: workloads.Headline | None = None,
                  why: str = "") -> str:
    from rlcore.contract.text import number_text

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
        h = by or workload.headlines[0]
        text += (f"\nbest by {h.label} ({h.better} is better): {setting} "
                 f"({show(h, top.means[h.key], top.spreads[h.key])} over {number_text(top.done)} runs)"
                 + (f"; {why}" if why else ""))
    return text


def run_sweeps(args: argparse.Namespace) -> int:
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
        return fail(str(e))
    if store.get_sweep(sweep_id) is None:
        return fail(f"sweep {sweep_id} does not exist in {store.path}.")
    if args.sweeps_command == "show":
        return _show_sweep(store, sweep_id, as_json=args.json)
    if args.sweeps_command == "export":
        try:
            path = writable_path(args.csv, "--csv")
        except ConfigError as e:
            return fail(str(e))
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
        return fail(str(e))
    print(f"deleted sweep {sweep_id} and its runs")
    return 0


def _headline_text(run: Any) -> str:
    """A run's headline numbers in a line ("win rate: 90.0%; env steps/s: 250 steps/s; training time: 4.0 s")."""
    if not run.summary or not workloads.WORKLOADS.has(run.kind):
        return ""
    parts = []
    for h in workloads.get(run.kind).headlines:
        value = workloads.headline_value(run.summary, h)
        if value is not None:
            parts.append(f"{h.label}: {h.text(value)}")
    return "; ".join(parts)


def _query(args: argparse.Namespace) -> finder.RunQuery:
    speeds = [None if v is None else parse_float(v, flag) for v, flag in ((args.min_speed, "--min-speed"),
                                                                          (args.max_speed, "--max-speed"))]
    return finder.RunQuery(kinds=tuple(args.kind), statuses=tuple(args.status), styles=tuple(args.style),
                           tags=tuple(args.tag), cause=args.cause, script=args.script, label=args.label,
                           min_speed=speeds[0], max_speed=speeds[1])


def run_runs(args: argparse.Namespace) -> int:
    from rlcore.runs.store import Store

    store = Store()
    if args.runs_command == "list":
        return _list_runs(store, args)
    try:
        run_id = parse_id(args.id)
    except ConfigError as e:
        return fail(str(e))
    run = store.get_run(run_id)
    if run is None:
        return fail(f"run {run_id} does not exist in {store.path}.")
    handler = {"show": _show_run, "export": _export_run, "tag": _tag_run, "untag": _tag_run,
               "cancel": _cancel_run}.get(args.runs_command, _edit_run)
    return handler(store, run, args)


def _list_runs(store: Any, args: argparse.Namespace) -> int:
    try:
        query = _query(args)
    except ConfigError as e:
        return fail(str(e))
    runs = finder.matching(store.list_runs(), query)
    if args.json:
        print(json.dumps([_run_brief(r) for r in runs], indent=2))
    elif not runs and query != finder.RunQuery():
        print("no run matches these filters.")
    elif not runs:
        print(f"no runs yet in {store.path}; start one with --detach, e.g. python -m rlcore dqn --detach")
    else:
        print(f"{'id':>4}  {'kind':6}  {'status':9}  {'style':9}  {'cause':15}  label")
        for r in runs:
            style = workloads.get(r.kind).style_text(r.config) if workloads.WORKLOADS.has(r.kind) else ""
            tags = f"  [{', '.join(r.tags)}]" if r.tags else ""
            damage = finder.profile_damage(r)
            said = f"  ({damage}: rlcore runs show {r.id})" if damage else ""
            print(printable(f"{r.id:>4}  {r.kind:6}  {r.status:9}  {style:9}  {finder.leading_cause(r):15}  "
                            f"{r.label[:80]}{tags}{said}"))
    return 0


def _show_run(store: Any, run: Any, args: argparse.Namespace) -> int:
    verdict = _verdict(run)
    details = run.to_dict() | {"verdict": verdict, "metric_rows": store.metric_count(run.id)}
    if args.json:
        print(json.dumps(details, indent=2))
        return 0
    print(printable(f"run {run.id} ({run.kind}, {run.label}): {run.status}"
                    + (f" — {run.error}" if run.error else "") + f"; {details['metric_rows']:,} metric rows"))
    for line in (run.damaged, verdict and verdict["text"], _headline_text(run)):
        if line:
            print(printable(line))
    from rlcore.cli.train import print_profile

    print_profile(run.summary.profile if run.summary is not None else None)
    return 0


def _export_run(store: Any, run: Any, args: argparse.Namespace) -> int:
    if (args.csv is None) == (args.tensorboard is None):
        return fail("runs export needs one of --csv FILE or --tensorboard DIR.")
    try:
        path = writable_path(args.csv, "--csv") if args.csv is not None else writable_dir(args.tensorboard,
                                                                                           "--tensorboard")
    except ConfigError as e:
        return fail(str(e))
    from rlcore.export import ExportError, to_csv, to_tensorboard

    try:
        if args.csv is not None:
            to_csv(store.metrics(run.id), path)
            print(f"wrote {store.metric_count(run.id):,} metric rows of run {run.id} to {path}")
            return 0
        written = to_tensorboard(run, store.metrics(run.id), store.run_dir(run.id), path)
    except ExportError as e:
        return fail(str(e))
    print(f"wrote {written['scalars']:,} scalars of run {run.id}" + (
        f" and its profile ({written['profile_files']} files)" if written["profile_files"] else "") +
        f" to {written['logdir']}; open them with: tensorboard --logdir {path}")
    return 0


def _tag_run(store: Any, run: Any, args: argparse.Namespace) -> int:
    given = list(dict.fromkeys(t.strip() for text in args.tags for t in text.split(",") if t.strip()))
    now = [*run.tags, *given] if args.runs_command == "tag" else [t for t in run.tags if t not in given]
    try:
        store.set_tags(run.id, now)
    except ConfigError as e:
        return fail(str(e))
    print(printable(f"run {run.id}: tags {', '.join(dict.fromkeys(now)) or '(none)'}"))
    return 0


def _cancel_run(store: Any, run: Any, args: argparse.Namespace) -> int:
    from rlcore.runs.executor import cancel

    status = cancel(store, run.id)
    if status == "cancel asked":
        status = (f"cancel asked: it trains in its own process (pid {run.pid}), which the lab never kills; it "
                  "stops at its next step (model.fit, a script), or when the code reads run.stopped "
                  "(rlcore.init)")
    print(f"run {run.id}: {status}")
    return 0


def _edit_run(store: Any, run: Any, args: argparse.Namespace) -> int:
    """label, notes, delete."""
    try:
        if args.runs_command == "label":
            store.set_label(run.id, args.text)
        elif args.runs_command == "notes":
            store.set_notes(run.id, args.text)
        else:
            store.delete_run(run.id)
    except (ConfigError, ValueError) as e:
        return fail(str(e))
    print(f"{'deleted' if args.runs_command == 'delete' else 'updated'} run {run.id}")
    return 0


def _verdict(run: Any) -> dict[str, str] | None:
    if run.status not in FINISHED or not run.summary:
        return None
    workload = workloads.of_run(run.kind)  # a kind this lab does not have: its stand-in's one sentence
    if not workloads.WORKLOADS.has(run.kind):
        return dataclasses.asdict(workload.judge(None, run.summary))
    try:
        return dataclasses.asdict(workload.judge(workload.make_config(run.config), run.summary))
    except ConfigError as e:  # a stored config this version no longer reads
        return {"level": "info", "word": "unreadable", "text": f"Its stored settings cannot be read here: {e}"}


def _run_brief(run: Any) -> dict[str, Any]:
    return {k: getattr(run, k) for k in ("id", "kind", "status", "label", "preset", "created", "started", "finished",
                                         "error")} | {"verdict": _verdict(run)}


