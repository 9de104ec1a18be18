"""What the pages show, computed without Streamlit: run tables, settings, comparisons, link values.

Pages stay thin: they read widgets and call these. Every bad value from a URL raises ``ValueError`` with one
sentence that the page shows as a warning. Everything here iterates the workload registry; nothing branches
on a kind's name.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from rlcore.contract import profile_text, workloads
from rlcore.contract.params import ConfigError, applies, label_of, parse_id
from rlcore.contract.profile import Finding, Profile, of_summary
from rlcore.contract.reporting import PHASE_PREFIX
from rlcore.contract.status import FINISHED, RunStatus
from rlcore.contract.summary import RunSummary
from rlcore.contract.summary import of as summary_of
from rlcore.contract.text import count_text
from rlcore.runs import finder
from rlcore.runs.store import Run
from rlcore.tracking import system_metrics
from ui import fmt

MAX_COMPARED = 50

def parse_run_ids(text: str, known: Iterable[int]) -> list[int]:
    """'3,5,8' -> [3, 5, 8], every id an existing run."""
    parts = [p for p in (p.strip() for p in text.split(",")) if p]
    try:
        ids = list(dict.fromkeys(parse_id(p) for p in parts))
    except ConfigError:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise ValueError(f"runs must be run ids separated by commas, like 3,5,8, not {shown!r}.") from None
    if len(ids) > MAX_COMPARED:
        raise ValueError(f"runs can name at most {MAX_COMPARED} runs to compare, not {len(ids):,}.")
    missing = sorted(set(ids) - set(known))
    if missing:
        raise ValueError(f"run {missing[0]} does not exist.")
    return ids


def verdict(run: Run) -> workloads.Verdict | None:
    """The run judged by its workload's yardstick; None while it has no result to judge."""
    if not run.summary or run.status not in FINISHED:
        return None
    workload = workloads.of_run(run.kind)
    if not workloads.WORKLOADS.has(run.kind):  # no config to read: the stand-in says why in one sentence
        return workload.judge(None, run.summary)
    try:
        cfg = workload.make_config(run.config)
    except ConfigError:
        return None
    return workload.judge(cfg, run.summary)


VERDICT_MARKS = {"ok": "✓", "rough": "~", "fail": "✗"}  # an "info" verdict (a tracked run) has no mark


def no_runs_yet() -> str:
    """What an empty store says, naming every registered workload's page (your code's too)."""
    pages = [w.title for w in workloads.all_workloads()]
    named = ", ".join(pages[:-1]) + f" or {pages[-1]}" if len(pages) > 1 else "".join(pages)
    return (f"No runs yet. Start one on the {named} page, profile a script of your own (`rlcore profile "
            "train.py`), or from the shell: `.venv/bin/python -m rlcore dqn --detach`.")


def summary(run: Run) -> RunSummary:
    """A run's summary, typed (an empty one for a run that has none yet)."""
    return summary_of(run.summary) or RunSummary()


def verdict_word(run: Run) -> str:
    v = verdict(run)
    return f"{VERDICT_MARKS.get(v.level, '')} {v.word}".strip() if v else ""


def headline_columns(kinds: Iterable[str]) -> dict[str, workloads.Headline]:
    """The headline columns of a table holding runs of these kinds, by column title (first one wins)."""
    columns: dict[str, workloads.Headline] = {}
    for kind in dict.fromkeys(kinds):
        for h in workloads.of_run(kind).headlines:
            columns.setdefault(h.label, h)
    return columns


BASE_COLUMNS = ["id", "label", "kind", "status", "verdict"]
DETAIL_COLUMNS = ["cause", "tags", "preset", "style", "device", "node", "sweep", "watched", "created", "progress",
                  "error"]


WATCHED_MARK = " (watched)"


def watched_mark(run: Run, headline: workloads.Headline) -> str:
    """" (watched)" after a speed or a time of a run that had a live view open while it ran, else nothing."""
    return WATCHED_MARK if headline.timed and run.watched_seconds > 0 else ""


def watched_text(run: Run, now: float | None = None) -> str | None:
    """How long a live view was open while the run ran, or None when nobody watched it."""
    if run.watched_seconds <= 0:
        return None
    end = run.finished or (now or time.time())
    ran = max(end - run.started, run.watched_seconds) if run.started else None
    share = f" of its {fmt.seconds(ran)}" if ran else ""
    refresh = f", refreshing every {run.watch_refresh:g} s" if run.watch_refresh else ""
    return (f"A live view was open for {fmt.seconds(run.watched_seconds)}{share} while it ran{refresh}; on a small "
            "machine watching takes CPU from the run, so its speed and times may read worse than unwatched.")


def runs_table(runs: Iterable[Run]) -> pd.DataFrame:
    """One row per run with what a user filters and compares on; percent headlines in percent (95.8, not 0.958)."""
    runs = list(runs)
    columns = headline_columns(r.kind for r in runs)
    rows = []
    for r in runs:
        row = {
            "id": r.id, "kind": r.kind, "status": r.status, "verdict": verdict_word(r), "label": r.label,
            "cause": finder.leading_cause(r), "tags": ", ".join(r.tags),
            "preset": r.preset or "", "style": workloads.of_run(r.kind).style_text(r.config),
            "device": str(r.config.get("device", "")), "node": r.host or "", "sweep": str(r.sweep_id or ""),
            "created": pd.Timestamp(r.created, unit="s").floor("s"),
            "progress": progress(r), "error": r.error or finder.profile_damage(r), "watched": r.watched_seconds > 0,
        }
        mine = {h.label for h in workloads.of_run(r.kind).headlines}  # a column holds its own workload's number only
        for title, h in columns.items():
            value = workloads.headline_value(r.summary, h) if title in mine else None
            if value is not None:
                value = value * 100 if h.unit == "%" else value  # a rate reads to three digits (9.09, 1,504)
            row[title] = value
        rows.append(row)
    table = pd.DataFrame(rows, columns=[*BASE_COLUMNS, *columns, *DETAIL_COLUMNS])
    empty = [c for c in columns if table[c].isna().all()]
    table = table.drop(columns=empty)
    # The speed first, then the numbers most of the shown runs have (one bench run must not lead with its own
    # columns, blank for every other row): by how many rows fill them, the rates before the rest.
    shown = [c for c in columns if c not in empty]
    ranked = sorted(shown, key=lambda c: (not columns[c].unit.endswith("/s"), -int(table[c].notna().sum()),
                                          shown.index(c)))
    return table[[*BASE_COLUMNS, *ranked, *DETAIL_COLUMNS]]


# A link cell shows the text after "#": the view's address, then the run's id and name, which the browser keeps
# as the address's fragment (never sent to the server).
LINK_TEXT = r"^[^#]*#(.*)$"


def link(path: str, param: str, row_id: int, name: str) -> str:
    """A table cell's link to a run's or a sweep's view, showing "id: name"."""
    return f"{path}?{param}={row_id}#{row_id}: {' '.join(name.split())}"


def sweeps_table(sweeps: Iterable[Any], members: Mapping[int, list[Run]], path: str) -> pd.DataFrame:
    """One row per sweep, newest first: its link, workload, status, members ended, and the best setting so far by
    the workload's first headline (only once every member has ended: a partial best is not a finding)."""
    from rlcore import search
    from rlcore.runs import sweeps as sweep_results

    rows = []
    for sweep in sorted(sweeps, key=lambda s: s.id, reverse=True):
        runs = members.get(sweep.id, [])
        workload = workloads.get(sweep.kind)
        ended = sum(not r.live for r in runs)
        counts = sweep_results.status_counts(runs)
        status = (RunStatus.RUNNING if counts.get(RunStatus.RUNNING) else RunStatus.QUEUED) if ended < len(runs) \
            else RunStatus.DONE if counts.get(RunStatus.DONE) == len(runs) \
            else ", ".join(f"{n:,} {k}" for k, n in counts.items())
        best = ""
        if runs and ended == len(runs):
            h, _ = sweep_results.ranked_by(workload, runs)
            top = search.best(workload, sweep_results.results_of(sweep, runs), h)
            if top is not None:
                names = {f.name: label_of(f) for f in dataclasses.fields(workload.config)}
                setting = " ".join(f"{names.get(k, k)}={v}" for k, v in top.setting.items())
                best = f"{h.text(top.means[h.key])} {h.label}" + (f" with {setting}" if setting else "")
        rows.append({"sweep": link(path, "sweep", sweep.id, sweep.label), "workload": workload.title,
                     "status": status, "runs ended": f"{ended:,} of {len(runs):,}", "best": best,
                     "created": pd.Timestamp(sweep.created, unit="s").floor("s")})
    return pd.DataFrame(rows, columns=["sweep", "workload", "status", "runs ended", "best", "created"])


def progress(run: Run) -> float:
    if run.status == RunStatus.DONE:
        return 1.0
    return float(run.progress or 0.0)


def progress_text(run: Run, now: float | None = None, steps_done: int = 0) -> str:
    """'running — training, 45% (180 of 400 games), about 12 s left' from what the run itself reported; a run of
    unknown length (your code) by the steps it has done: 'running · training · 80 steps so far'."""
    now = now or time.time()
    share = progress(run)
    parts = [run.status]
    if run.cancel_requested and run.live:
        parts.append("cancel requested")
    if run.phase:
        parts.append(run.phase)
    if run.status == RunStatus.RUNNING and not share and steps_done:
        parts.append(f"{steps_done:,} step{'s' if steps_done != 1 else ''} so far")
    elif run.status == RunStatus.RUNNING:
        parts.append(f"{share:.0%}")
        elapsed = now - (run.started or now)
        if 0.02 < share < 1 and elapsed > 1:
            parts.append(f"about {fmt.rough_duration(elapsed * (1 - share) / share)} left")
    quiet = run.unresponsive_for(now)
    if quiet:
        parts.append(f"unresponsive: no heartbeat for {fmt.seconds(quiet)} (its process still exists)")
    return " · ".join(parts)


def filter_runs(table: pd.DataFrame, label_contains: str = "", **chosen: list[str]) -> pd.DataFrame:
    """Keep rows whose column value is among the chosen ones (an empty choice keeps everything; a run's tags: any
    of them) and whose label contains the given text, ignoring case."""
    if label_contains.strip():
        table = table[table["label"].str.contains(label_contains.strip(), case=False, regex=False)]
    for column, values in chosen.items():
        if values and column == "tags":
            wanted = set(values)
            table = table[table["tags"].map(lambda text, wanted=wanted: bool(set(text.split(", ")) & wanted))]
        elif values:
            table = table[table[column].isin(values)]
    return table


def filter_options(table: pd.DataFrame, column: str) -> list[str]:
    """What a filter offers: the column's values (each of a run's tags on its own)."""
    values = table[column] if len(table) else []
    if column == "tags":
        return sorted({t for text in values for t in text.split(", ") if t})
    return sorted(v for v in set(values) if v)


def share_url(base: str | None, params: Mapping[str, Any]) -> str:
    """The absolute link to a view: the page's address plus its query, empty values left out."""
    query = urlencode({k: ",".join(map(str, v)) if isinstance(v, list | tuple) else str(v)
                       for k, v in params.items() if v not in ("", None)})
    return f"{base or ''}?{query}" if query else (base or "")


# ---------------------------------------------------------------- a run's charts


def charts_to_draw(declared: Sequence[workloads.Chart], logged: Iterable[str]) -> list[tuple[workloads.Chart,
                                                                                             list[str]]]:
    """The charts of a run and the metric names each one draws, found from what the run logged, as TensorBoard's
    scalars plugin finds its tags: a line chart its one metric, once logged; a phases chart every metric under its
    prefix; an auto chart one line chart per metric under its prefix that no other chart shows (a user's
    ``val_loss``); the machine's cores last."""
    names = list(dict.fromkeys(logged))
    out: list[tuple[workloads.Chart, list[str]]] = []
    shown: set[str] = set()
    for chart in declared:
        drawn = ([chart.metric] if chart.metric in names else []) if chart.kind == "line" else \
            [n for n in names if n.startswith(chart.metric)] if chart.kind == "phases" else []
        if drawn:
            out.append((chart, drawn))
            shown.update(drawn)
    own = (system_metrics.PREFIX, PHASE_PREFIX)
    for chart in (c for c in declared if c.kind == "auto"):
        for name in names:
            if name.startswith(chart.metric) and name not in shown and not name.startswith(own):
                out.append((workloads.Chart(name, fmt.metric_title(name), smooth=True), [name]))
                shown.add(name)
    system = [n for n in (system_metrics.RUN_CORES, system_metrics.MACHINE_CORES) if n in names]
    if system:
        out.append((workloads.Chart(system_metrics.PREFIX, "CPU cores busy", kind="system"), system))
    return out


CHART_CAP = 24  # charts of a run's own metrics drawn at once; more are found by a search (TensorBoard's tag filter)


def capped_charts(pairs: list[tuple[workloads.Chart, list[str]]], declared_charts: Sequence[workloads.Chart],
                  query: str = "", cap: int = CHART_CAP
                  ) -> tuple[list[tuple[workloads.Chart, list[str]]], int, dict[str, int]]:
    """The charts to draw of a run that logged many metrics: the workload's declared ones always, the run's own
    (one per metric it logged) that match ``query`` (a part of the name, any case) up to ``cap``; how many more
    match; the own metrics' prefixes ("layer1/": 40) to search by."""
    declared = [p for p in pairs if p[0] in declared_charts or p[0].kind == "system"]
    own = [p for p in pairs if p not in declared]
    if len(own) <= cap and not query:
        return pairs, 0, {}
    wanted = query.strip().lower()
    matching = [p for p in own if wanted in p[0].metric.lower()]
    prefixes: dict[str, int] = {}
    for chart, _ in own:
        prefix = chart.metric.split("/")[0] + "/" if "/" in chart.metric else "(no prefix)"
        prefixes[prefix] = prefixes.get(prefix, 0) + 1
    return declared + matching[:cap], max(0, len(matching) - cap), dict(sorted(prefixes.items(),
                                                                                 key=lambda kv: -kv[1]))


# ---------------------------------------------------------------- settings


def settings(run: Run) -> pd.DataFrame:
    """Every setting that applies to the run's style: name, value, the default it would have (preset's first),
    and whether it differs; the differing ones first."""
    workload = workloads.of_run(run.kind)
    base = workload.defaults(run.preset)
    style = run.config.get(workload.style_field) if workload.style_field else None
    rows = []
    for f in dataclasses.fields(workload.config):
        if not applies(f, style) or f.name not in run.config:
            continue
        value = run.config[f.name]
        rows.append({"setting": label_of(f), "value": fmt.value_text(value),
                     "default": fmt.value_text(base.get(f.name)), "changed": value != base.get(f.name),
                     "meaning": f.metadata.get("help", "")})
    table = pd.DataFrame(rows, columns=["setting", "value", "default", "changed", "meaning"])
    return table.sort_values("changed", ascending=False, kind="stable").reset_index(drop=True)


ENVIRONMENT_NAMES = {
    "python": "Python", "tensorflow": "TensorFlow", "keras": "Keras", "cpu": "CPU", "cores": "CPU cores",
    "gpus": "GPUs", "gpu": "GPU", "cuda_visible_devices": "CUDA_VISIBLE_DEVICES",
    "intra_op_threads": "TensorFlow threads in an op", "inter_op_threads": "TensorFlow threads between ops",
    "hostname": "host", "platform": "platform", "executable": "Python executable", "node": "Ray node",
}


def environment_rows(environment: Mapping[str, Any] | None) -> pd.DataFrame:
    """What a run ran on, one row per item with a human name (a nested item, the Ray node, flattened)."""
    rows = []
    for key, value in (environment or {}).items():
        items = value.items() if isinstance(value, Mapping) else [("", value)]
        for sub, item in items:
            name = ENVIRONMENT_NAMES.get(key, key.replace("_", " "))
            if isinstance(item, list | tuple):
                item = ", ".join(map(str, item)) or "none"
            rows.append({"item": fmt.readable(f"{name}: {sub.replace('_', ' ')}" if sub else name),
                         "value": "–" if item is None else fmt.value_text(item) if isinstance(item, int | float)
                         else fmt.readable(str(item))})
    return pd.DataFrame(rows, columns=["item", "value"])


def relaunch_values(run: Run) -> dict[str, Any]:
    """The form's values that reproduce a run: every applicable field, by field name."""
    workload = workloads.of_run(run.kind)
    style = run.config.get(workload.style_field) if workload.style_field else None
    return {f.name: run.config[f.name] for f in dataclasses.fields(workload.config)
            if applies(f, style) and f.name in run.config}


def settings_diff(runs: list[Run]) -> pd.DataFrame:
    """The settings on which compared runs differ: one row per setting, one column per run."""
    names: dict[str, str] = {}
    for r in runs:
        for f in dataclasses.fields(workloads.of_run(r.kind).config):
            names.setdefault(f.name, label_of(f))
    rows = []
    for name, label in names.items():
        values = [r.config.get(name, "–") for r in runs]
        if len({repr(v) for v in values}) > 1:
            rows.append({"setting": label} | {f"{r.id}: {r.label}": fmt.value_text(v)
                                              for r, v in zip(runs, values, strict=True)})
    if len({r.kind for r in runs}) > 1:
        rows.insert(0, {"setting": "kind"} | {f"{r.id}: {r.label}": r.kind for r in runs})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- comparisons


# Two runs of the same settings on one machine differ this much in speed by chance: single runs of the same DQN
# spread 258-548 env steps/s within one session on this shared 2-core machine (docs/measurements/live_view_cost.md).
# A ratio below this is not stated as a finding.
NOISE_RATIO = 1.3


def differing_settings(a: Run, b: Run) -> list[str]:
    """The names of the settings two runs of one workload differ in."""
    names = {f.name: label_of(f) for f in dataclasses.fields(workloads.of_run(a.kind).config)}
    return [names.get(k, k) for k in dict.fromkeys([*a.config, *b.config]) if a.config.get(k) != b.config.get(k)]


def comparison_sentence(runs: list[Run]) -> str | None:
    """The headline of a comparison of finished runs of one workload: how much more throughput the fastest has
    than the slowest, said as a finding only when it exceeds this machine's run-to-run noise, with what else the
    two runs differ in than the execution style, and, when style is all they differ in, how long each trained."""
    done = [r for r in runs if r.status == RunStatus.DONE and r.summary]
    if len(done) < 2 or len({r.kind for r in done}) > 1:
        return None
    workload = workloads.of_run(done[0].kind)
    rate = next((h for h in workload.headlines if h.unit.endswith("/s")), None)
    rated = [(workloads.headline_value(r.summary, rate), r) for r in done] if rate else []
    rated = [(v, r) for v, r in rated if v]
    if len(rated) < 2:
        return None
    from ui import extras  # a workload's own headline, when it has one (the seed question against the original)

    special = extras.of(workload.kind).compare
    headline = special(done, rated, rate) if special is not None else None
    if headline:
        return headline
    (slow, slow_run), (fast, fast_run) = min(rated, key=lambda p: p[0]), max(rated, key=lambda p: p[0])
    ratio = fast / slow
    numbers = f"({fmt.number(fast)} against {fmt.number(slow)})"
    fast_name, slow_name = named(fast_run), named(slow_run)
    if ratio < NOISE_RATIO:
        sentence = (f"{fast_name} and {slow_name} ran at about the same {rate.label} {numbers}: "
                    f"{ratio:.2g}x is within what two runs of the same settings differ by on one machine.")
    else:
        shown = f"{ratio:,.0f}x" if ratio >= 10 else f"{ratio:,.2g}x"
        sentence = f"{fast_name} ran {shown} the {rate.label} of {slow_name} {numbers}."
    watched = dict.fromkeys(r.id for r in (fast_run, slow_run) if r.watched_seconds > 0)
    if watched:
        sentence += (f" Watched live while it ran, so its speed may read low: "
                     f"{', '.join(f'run {i}' for i in watched)}.")
    shared = [r.id for r in (fast_run, slow_run) if summary(r).shared_machine]
    if shared and NOISE_RATIO <= ratio < 2:
        what = "setting" if workload.style_field else "code"
        sentence += (f" Other work shared the machine while {' and '.join(f'run {i}' for i in shared)} ran: a "
                     f"difference this small may be that work, not the {what}.")
    style = workload.style_field
    style_label = label_of(workload.field(style)) if style else None
    other = [n for n in differing_settings(fast_run, slow_run) if n not in (style_label, "seed")]
    times = [summary(r).train_seconds for r in done]
    apart_from_style = [{k: v for k, v in r.config.items() if k != style} for r in done]
    if not style:  # runs of code: the same script or not, changed or not, is what a person compares
        sentence += _scripts_compared(fast_run, slow_run)
    elif other and ratio >= NOISE_RATIO:
        differ = f"{', '.join(other[:4])}{' and more' if len(other) > 4 else ''}"
        sentence += f" They differ in {differ} too, not only in style."
    elif all(c == apart_from_style[0] for c in apart_from_style) and all(times):
        quick, slow_r = min(done, key=lambda r: summary(r).train_seconds), max(
            done, key=lambda r: summary(r).train_seconds)
        sentence += (f" Same settings but the style: {named(slow_r)} trained for "
                     f"{fmt.seconds(summary(slow_r).train_seconds)}, {named(quick)} for "
                     f"{fmt.seconds(summary(quick).train_seconds)}.")
    return sentence


def named(run: Run) -> str:
    """A run as a sentence names it: its label and its id ("train.py (run 12)"), so two runs of one file differ."""
    return f"{run.label} (run {run.id})" if run.label else f"run {run.id}"


def _scripts_compared(a: Run, b: Run) -> str:
    """" The same script, unchanged between them." / " The same script, changed between them." / two scripts."""
    def code(r: Run) -> dict:
        card = (r.environment or {}).get("code") if isinstance(r.environment, dict) else None
        return card if isinstance(card, dict) else {}

    if not code(a).get("path") or code(a).get("path") != code(b).get("path"):
        return " They ran different scripts."
    if code(a).get("sha256") and code(a).get("sha256") == code(b).get("sha256"):
        return (" The same script, unchanged between them: the difference is the machine's and the arguments', "
                "not the code's." if a.config.get("args") != b.config.get("args") else
                " The same script, unchanged, with the same arguments.")
    return " The same script, changed between them."


def summary_table(runs: list[Run]) -> pd.DataFrame:
    """The compared runs' headline numbers as text, with their verdicts."""
    rows = []
    for r in runs:
        # A profiled run's first word is why it is as fast as it is (the seed's port: "predict-bound"), the
        # workload's own verdict beside it ("speed test": too few games to learn).
        cause = finder.leading_cause(r)
        word = verdict_word(r)
        row = {"run": r.id, "status": r.status,
               "verdict": f"{cause} ({word})" if cause and not word.startswith(cause) else word}
        for h in workloads.of_run(r.kind).headlines:
            text = fmt.headline(h, workloads.headline_value(r.summary, h))
            row[h.label] = text + watched_mark(r, h) if text != "–" else text
        row["watched live"] = fmt.seconds(r.watched_seconds) if r.watched_seconds > 0 else "no"
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


# ---------------------------------------------------------------- why (profiles) and the machine

# Means over the profiled steps: a count per step reads as a whole number where it is large.
PROFILE_NUMBERS = (("ops_per_step", "ops (per step, mean)", "{:,.0f}"),
                   ("eager_ops_per_step", "launched one by one (per step, mean)", "{:,.0f}"),
                   ("function_calls_per_step", "function calls (per step, mean)", "{:,.2f}"),
                   ("xla_ops_per_step", "ops in XLA clusters (per step, mean)", "{:,.0f}"),
                   ("retraces", "retracings", "{:,}"))


def profile_numbers(profile: Profile) -> list[tuple[str, str]]:
    """The profile's counts per training step as (label, text), for the row of numbers under its verdict (a device's
    capture read by xprof has no Python-level ops: its kernels and copies a step instead)."""
    if not profile.ops_per_step and profile.device_kernels_per_step:
        estimate = profile.gpu_estimate
        return [("kernels a step (the device)", f"{profile.device_kernels_per_step:,.0f}"),
                ("copies a step", f"{estimate.copies_per_step:,.0f}" if estimate else "–"),
                ("the device's compute", fmt.seconds(profile.device_busy_seconds)),
                ("step time", fmt.seconds(profile.step_seconds))]
    out = [(label, text.format(getattr(profile, key)).removesuffix(".0").removesuffix(".00"))
           for key, label, text in PROFILE_NUMBERS]
    out.append(("step time", fmt.seconds(profile.step_seconds)))
    return out


def findings_table(found: Iterable[Finding]) -> pd.DataFrame:
    """A profile's findings as people read them: the cause, its time per step and share, the fix, the evidence."""
    rows = [{"cause": f.title, "per step": fmt.seconds(f.seconds_per_step), "share": profile_text.share_text(f),
             "the change to make": f.fix + (f" (in effect already: {f.in_effect})" if f.in_effect else ""),
             "seen": f.evidence, "read more": f.guide} for f in found]
    return pd.DataFrame(rows, columns=["cause", "per step", "share", "the change to make", "seen", "read more"])


def where_lines(found: Iterable[Finding]) -> str:
    """The person's lines behind the findings, one per line under the finding's title ("" when none was seen)."""
    blocks = [f"{f.title}:\n" + "\n".join(f"  {profile_text.where_line(w)}" for w in f.where)
              for f in found if f.where]
    return "\n".join(blocks)


def tries_table(tries: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Fixes tried on a run's code: the change, its run, its status, its speed against the run's, the loss."""
    rows = [{"the change": t["change"], "run": f"runs?run={t['run_id']}", "status": t["status"],
             "speed": f"{t['ratio']:,.2f}x" if t.get("ratio") else "–", "loss": t.get("loss") or "–"} for t in tries]
    return pd.DataFrame(rows, columns=["the change", "run", "status", "speed", "loss"])


def top_ops_table(profile: Profile) -> pd.DataFrame:
    rows = [{"op": op.name, "self time per step": fmt.seconds(op.self_seconds_per_step),
             "share of the ops' time": fmt.percent(op.share)} for op in profile.top_ops]
    return pd.DataFrame(rows, columns=["op", "self time per step", "share of the ops' time"])


def machine_sentence(system: Mapping[str, Any] | None) -> str | None:
    """The run's use of the machine at a glance: "It kept 1.0 of the machine's 2 cores busy on average (peak 1.1),
    the whole machine 1.3; GPU 3% busy." None when nothing was sampled."""
    if not system or "run_cpu_cores_mean" not in system:
        return None
    cores = system.get("machine_cores") or 1
    text = (f"It kept {system['run_cpu_cores_mean']:.1f} of the machine's {cores} cores busy on average (peak "
            f"{system['run_cpu_cores_max']:.1f}); the whole machine {system.get('machine_cpu_cores_mean', 0):.1f}")
    if "run_memory_mb_max" in system:
        text += f"; at most {fmt.number(system['run_memory_mb_max'])} MB of memory"
    if "gpu_utilization_mean" in system:
        text += f"; GPU {fmt.percent(system['gpu_utilization_mean'])} busy"
    return text + "."


def profiled(runs: Iterable[Run]) -> list[tuple[Run, Profile]]:
    """The finished runs that hold a readable profile, each with it."""
    out = []
    for r in runs:
        p = of_summary(r.summary) if r.status == RunStatus.DONE else None
        if p is not None and p.ok and p.step_seconds:
            out.append((r, p))
    return out


def profile_comparison(runs: list[Run]) -> str | None:
    """What two profiled runs' profiles explain of their speed ratio: "graph runs 12x the env steps/s of naive;
    per profiled step naive launches 4,250 ops one by one, graph 1.7 function calls: its step takes 88x less"."""
    found = profiled(runs)
    if len(found) < 2 or len({r.kind for r, _ in found}) > 1:
        return None
    workload = workloads.of_run(found[0][0].kind)
    rate = next((h for h in workload.headlines if h.unit.endswith("/s")), None)
    ranked = sorted(found, key=lambda rp: rp[1].step_seconds)
    (fast, pf), (slow, ps) = ranked[0], ranked[-1]
    step_ratio = ps.step_seconds / pf.step_seconds if pf.step_seconds else float("inf")

    def how(p: Profile) -> str:
        if p.eager_ops_per_step >= 20:
            return f"launches {p.eager_ops_per_step:,.0f} ops one by one"
        calls = p.function_calls_per_step
        return f"makes {count_text(calls, 'function call')} ({p.ops_per_step:,.0f} ops)"

    sentence = (f"Per profiled step {named(slow)} {how(ps)} ({fmt.seconds(ps.step_seconds)}), {named(fast)} "
                f"{how(pf)} ({fmt.seconds(pf.step_seconds)}): a step {step_ratio:,.1f}x shorter")
    if rate is not None:
        a, b = workloads.headline_value(fast.summary, rate), workloads.headline_value(slow.summary, rate)
        if a and b:
            measured = a / b
            sentence += (f", of the {measured:,.1f}x measured in {rate.label}" + (
                "; the rest is what the profile's steps leave out (the work between the profiled steps, reports)"
                if step_ratio < 0.8 * measured else ""))
    return sentence + "."
