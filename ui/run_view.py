"""One run's view, for every workload: status and progress from the run itself, cancel, the workload's live charts;
when it ends, its verdict, headline numbers, settings, files, name and notes, and Launch again."""

from __future__ import annotations

import contextlib
from typing import Any

import pandas as pd
import streamlit as st

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError, parse_id
from rlcore.contract.status import RunStatus
from rlcore.runs import history
from rlcore.runs.store import Run, Store, StoreError
from ui import access, charts, extras, fmt, forms, plotly_live, router, share, views, why

REFRESH_SECONDS = {"1s": 1.0, "2s": 2.0, "5s": 5.0, "paused": None}
# Every 2 s by default: the view then takes a quarter less CPU than at 1 s (0.17 against 0.23 of a core beside an
# HJB run on 2 cores; README, "What watching costs"), the charts redraw as often (CHART_SECONDS), and a metric still
# shows within a couple of seconds of its writing.
DEFAULT_REFRESH = "2s"
# While a run lives its status ticks every refresh period, its charts at most this often: redrawing a chart whose
# data changed costs the browser, and so the run on a small machine, several times what a status tick does
# (docs/measurements/live_view_cost.md).
CHART_SECONDS = 2.0
HIDDEN_FILES = {"worker.log", ".space-reserve"}
VERDICT_BOX = {"ok": st.success, "rough": st.warning, "fail": st.error, "info": st.info}


def show_from_url(store: Store, page_kind: str | None = None) -> bool:
    """Show the run named by ?run=ID (or warn about a bad id); True when the URL named one."""
    if "run" not in st.query_params:
        return False
    try:
        run_id = parse_id(st.query_params["run"])
    except ConfigError as e:
        st.warning(fmt.md(str(e), 400))
        return True
    show_run(store, run_id, page_kind)
    return True


def open_from_elsewhere(store: Store) -> None:
    """A page that does not show runs opened with ?run=ID (``/?run=3``): switch to the page that shows it (its
    workload's, else Runs), or say in one sentence why not and stay."""
    try:
        run_id = parse_id(st.query_params["run"])
    except ConfigError as e:
        st.warning(fmt.md(str(e), 400))
        return
    run = store.get_run(run_id)
    if run is None:
        st.warning(f"run {run_id} does not exist (it may have been deleted); the Runs page lists every run.")
        return
    # The address's other values go along (a view's refresh, say).
    st.switch_page(router.page_of(run.kind) or "app_pages/runs.py", query_params=st.query_params.to_dict())


def live_metrics(store: Store, run_id: int) -> pd.DataFrame:
    """The run's metrics so far; each call reads only the rows appended since the previous one (per session)."""
    key = f"_metrics_{run_id}"
    seen = st.session_state.get(key)
    last = int(seen["rowid"].iloc[-1]) if seen is not None and len(seen) else 0
    new = store.metrics_after(run_id, last)
    if seen is None or seen.empty:
        seen = new
    elif not new.empty:
        seen = pd.concat([seen, new], ignore_index=True)
    st.session_state[key] = seen
    return seen


def show_run(store: Store, run_id: int, page_kind: str | None = None) -> None:
    run = store.get_run(run_id)
    if run is None:
        st.warning(f"run {run_id} does not exist (it may have been deleted); the Runs page lists every run.")
        st.page_link("app_pages/runs.py", label="All runs", icon=":material/table_rows:")
        return
    own_page = router.page_of(run.kind)
    if page_kind is not None and page_kind != run.kind and own_page is not None:
        st.switch_page(own_page, query_params=st.query_params.to_dict())  # /dqn?run=13 of an HJB run: its page

    every = None
    if run.live:
        # Watching is not free on a small machine (each redraw costs the browser CPU the run would use; see the
        # README), so the refresh period is the user's choice.
        refresh = st.radio("live refresh", list(REFRESH_SECONDS), list(REFRESH_SECONDS).index(DEFAULT_REFRESH),
                           horizontal=True, key="refresh", bind="query-params",
                           help="How often the view below updates while the run lives. On a small machine each "
                                "update takes CPU from the run: at 1 s its speed reads lower than unwatched.")
        every = REFRESH_SECONDS[refresh]
    _heading(run)
    headline = extras.of(run.kind).headline
    if headline is not None and not run.live:  # the question a finished run answers, before its charts
        headline(store, run)

    if every is not None and every < CHART_SECONDS:
        # Two timers: the status (progress, time left, cancel) every refresh period, the charts at most every
        # CHART_SECONDS, because redrawing a changed chart costs the browser several status ticks.
        @st.fragment(run_every=every)
        def status() -> None:
            _status(store, run, every)

        @st.fragment(run_every=CHART_SECONDS)
        def charts_every_few_seconds() -> None:
            current = store.get_run(run_id)
            if current is not None:
                _charts(current, live_metrics(store, run_id))

        status()
        charts_every_few_seconds()
    else:
        # One timer for both: every rerun costs the browser (Streamlit re-renders the page) even if nothing changed.
        @st.fragment(run_every=every)
        def status_and_charts() -> None:
            current = _status(store, run, every)
            if current is not None:
                _charts(current, live_metrics(store, run_id))

        status_and_charts()
    if not run.live:
        _finished(store, run, live_metrics(store, run_id), page_kind)


def _status(store: Store, run: Run, every: float | None) -> Run | None:
    """The live run's status as it is now: its error, progress and Cancel; it counts as watched meanwhile. A full
    rerun when its status changed (queued -> running, or it ended), which retitles it and stops the timers."""
    current = store.get_run(run.id)
    if current is None:
        st.warning(f"run {run.id} was deleted.")
        return None
    if current.status != run.status:
        st.rerun()
    if every is not None and current.status == RunStatus.RUNNING:
        with contextlib.suppress(StoreError):  # a read-only store: the run is not ours to mark
            store.note_watched(run.id, every)
    if current.error:
        st.error(fmt.md(current.error, 400))
    if current.live:
        steps = store.last_step(run.id) if not current.progress else 0  # a run of unknown length: its steps
        st.progress(views.progress(current), text=views.progress_text(current, steps_done=steps))
        if (access.is_operator() and not current.cancel_requested
                and st.button("Cancel this run", key=f"cancel_{run.id}")
                and access.require_operator("cancel a run")):
            try:
                store.request_cancel(run.id)  # the worker stops at its next report, or after a grace period
            except StoreError as e:
                st.error(fmt.md(str(e), 400))
            else:
                st.rerun()
    return current


def _heading(run: Run) -> None:
    with st.container(horizontal=True, vertical_alignment="center"):
        named = run.preset and run.preset in run.label.split()  # "xla accurate" needs no "(accurate)"
        preset = f" ({fmt.md(run.preset)})" if run.preset and not named else ""
        st.subheader(f"Run {run.id}: {fmt.md(run.label, 120)}{preset} — {run.status}", width="content")
        share.share_button({"run": run.id}, f"run {run.id}")
    if run.damaged:
        st.warning(fmt.md(run.damaged, 300), icon=":material/warning:")


def _charts(run: Run, metrics: pd.DataFrame) -> None:
    workload = workloads.of_run(run.kind)
    special = extras.of(run.kind).charts
    if special is not None:
        special(run, metrics)
        return
    if not len(metrics):
        if run.live:
            st.caption(f"{(run.phase or 'starting').capitalize()}… the first numbers follow (TensorFlow starts in a "
                       "few seconds, and a compiled style traces and compiles first).")
        return
    present = set(metrics["name"].unique())
    smoothing = 0.0
    if any(c.smooth and c.metric in present for c, _ in views.charts_to_draw(workload.charts, metrics["name"])):
        smoothing = st.slider("smoothing (EMA)", 0.0, 0.99, 0.6, key=f"smooth_{run.id}",
                              help="TensorBoard's debiased moving average; the raw values stay faint behind it.")
    pairs = views.charts_to_draw(workload.charts, metrics["name"])
    query = ""
    if len(pairs) - len(workload.charts) > views.CHART_CAP:  # thousands of logged keys: a search, as TensorBoard's
        query = st.text_input("find a metric", key=f"find_metric_{run.id}", placeholder="a part of its name",
                              help="This run logged more metrics than a page draws at once; type part of a name.")
    pairs, more, prefixes = views.capped_charts(pairs, workload.charts, query)
    if prefixes:
        st.caption(fmt.md(f"{sum(prefixes.values()):,} metrics of the run's own, by prefix: " + ", ".join(
            f"{p} {n:,}" for p, n in list(prefixes.items())[:12]) + (f"; {more:,} more match than are drawn: narrow "
                                                                     "the search." if more else "."), 600))
    columns = st.columns(2)
    for drawn, (key, title, figure) in enumerate(_figures(run, metrics, pairs, smoothing)):
        with columns[drawn % 2]:
            plotly_live.chart(figure, key=key, title=title)


def _figures(run: Run, metrics: pd.DataFrame, pairs: list[tuple[workloads.Chart, list[str]]],
             smoothing: float) -> list[tuple[str, str, Any]]:
    """The run's charts as (key, title, Plotly figure), each drawn in place by ui/plotly_live.py. While it lives, a
    chart whose data did not change since the last tick is sent again as it was, not built anew."""
    cache_key = f"_figures_{run.id}"
    cache = st.session_state.get(cache_key) if run.live else None
    old = cache["figures"] if cache and cache["smoothing"] == smoothing else {}
    figures = {}
    for i, (chart, names) in enumerate(pairs):
        rows = metrics[metrics["name"].isin(names)]
        signature = (chart.metric, chart.title, len(rows))
        if signature in old:
            figures[signature] = old[signature]
            continue
        if chart.kind == "system":
            cores = int((run.environment or {}).get("cores") or 1)
            figure = charts.system_chart(rows.assign(run_id=run.id), cores)
        elif chart.kind == "phases":
            phases = {n[len(chart.metric):]: _last(rows, n) for n in names}
            figure = charts.phase_chart(phases, int(metrics["step"].max()), chart.title)
        else:
            figure = charts.metric_chart(rows.assign(run_id=run.id), chart.metric, title=chart.title,
                                         labels={run.id: chart.title},
                                         smoothing=smoothing if chart.smooth else 0.0, log_y=chart.log_y,
                                         percent=chart.percent)
        figures[signature] = (f"chart_{run.id}_{i}", chart.title, plotly_live.figure_data(figure))
    if run.live:
        st.session_state[cache_key] = {"figures": figures, "smoothing": smoothing}
    return list(figures.values())


def _last(metrics: pd.DataFrame, name: str) -> float:
    rows = metrics[metrics["name"] == name]
    return float(rows["value"].iloc[-1]) if len(rows) else 0.0


def _finished(store: Store, run: Run, metrics: pd.DataFrame, page_kind: str | None) -> None:
    workload = workloads.of_run(run.kind)
    verdict = views.verdict(run)
    if verdict is not None:
        VERDICT_BOX[verdict.level](fmt.md(verdict.text, 400))
    watched = views.watched_text(run)
    if run.summary and workload.headlines:
        columns = st.columns(len(workload.headlines))
        for box, h in zip(columns, workload.headlines, strict=True):
            mark = views.watched_mark(run, h)
            box.metric(h.label + mark, fmt.headline(h, workloads.headline_value(run.summary, h)),
                       help=watched if mark else None)
    if watched:
        st.caption(f":material/visibility: {watched}")
    shared = views.summary(run).shared_machine
    if shared:
        st.warning(fmt.md(shared, 400), icon=":material/group:")
    since = history.since_sentence(run, store.list_runs())
    if since:
        st.info(fmt.md(since, 400), icon=":material/history:")
    why.panel(store, run)
    why.machine(run, metrics)
    special = extras.of(run.kind).finished
    if special is not None:
        special(store, run, metrics)
    _settings(run)
    _files(store, run, metrics)
    _again(run, workload, page_kind, store)
    _name_and_notes(store, run)


def _settings(run: Run) -> None:
    table = views.settings(run)
    changed = table[table["changed"]]
    base = f"the preset {fmt.md(run.preset)}" if run.preset else "the defaults"
    with st.expander(f"Settings ({len(changed)} changed from {base})"):
        show_all = st.toggle("show every setting", key=f"all_settings_{run.id}")
        shown = table if show_all else changed
        if shown.empty:
            st.caption(f"Every setting is as {base} {'has' if run.preset else 'have'} it.")
        else:
            st.dataframe(shown.drop(columns="changed"), hide_index=True, width="stretch")


def _files(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    with st.expander("Environment and files"):
        st.dataframe(views.environment_rows(run.environment), hide_index=True, width="stretch")
        columns = st.columns(3)
        columns[0].download_button("Metrics (CSV)", metrics.drop(columns="rowid").to_csv(index=False),
                                   f"run{run.id}_metrics.csv", "text/csv", key=f"csv_{run.id}")
        run_dir = store.run_dir(run.id)
        files = sorted(p for p in run_dir.iterdir() if p.is_file() and p.name not in HIDDEN_FILES) \
            if run_dir.is_dir() else []
        workload = workloads.WORKLOADS.find(run.kind)
        for i, path in enumerate(files, start=1):
            if access.may_download(workload.artifact_kind(path.name) if workload else "model"):
                try:
                    data = path.read_bytes()
                except OSError as e:  # an unreadable file is named, the rest of the view stands
                    columns[i % 3].caption(fmt.md(f"{path.name}: cannot be read ({e.strerror or e})", 200))
                    continue
                columns[i % 3].download_button(path.name, data, f"run{run.id}_{path.name}",
                                               key=f"file_{run.id}_{path.name}")


def _again(run: Run, workload: workloads.Workload, page_kind: str | None, store: Store) -> None:
    if not access.is_operator() or workload.from_code:  # a run of your code is run again by its own view
        return
    why.profile_again(store, run)
    if page_kind != run.kind:
        page = router.page_of(run.kind)
        if page:
            st.page_link(page, label="Open this run on its workload's page to launch it again",
                         query_params={"run": str(run.id)}, icon=":material/replay:")
        return
    if st.button("Launch again with these settings", key=f"again_{run.id}", icon=":material/replay:",
                 help="Opens the form filled with this run's settings; nothing runs until you press Launch."):
        # The form's own link: its address then holds what it shows (a reload or Share gives the same form).
        forms.forget_values()
        st.switch_page(router.page_of(run.kind),
                       query_params=forms.link_of(workload, run.preset, views.relaunch_values(run), ""))


def _name_and_notes(store: Store, run: Run) -> None:
    if not access.is_operator():
        if run.tags:
            st.caption(fmt.md("Tags: " + ", ".join(run.tags), 300))
        if run.notes:
            st.caption("Notes")
            st.text(run.notes)
        return
    with st.expander("Name, tags and notes", expanded=bool(run.notes or run.tags)):
        label = st.text_input("name", value=run.label, key=f"edit_label_{run.id}")
        tags = st.text_input("tags", value=", ".join(run.tags), key=f"edit_tags_{run.id}",
                             placeholder="baseline, after the fix",
                             help="Comma-separated; the Runs page finds runs by them (?tag=baseline).")
        notes = st.text_area("notes", value=run.notes, key=f"edit_notes_{run.id}",
                             placeholder="What this run was for, what you saw.")
        if st.button("Save", key=f"save_{run.id}") and access.require_operator("rename a run or edit its notes"):
            try:
                store.set_label(run.id, label)
                store.set_tags(run.id, [t.strip() for t in tags.split(",")])
                store.set_notes(run.id, notes)
            except (ConfigError, StoreError) as e:
                st.error(fmt.md(str(e), 400))
            else:
                st.rerun()

