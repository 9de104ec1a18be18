"""A comparison of chosen runs: the headline sentence, overlaid curves, the numbers and verdicts, what differs
in their settings, CSV; it refreshes itself while any of them lives."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rlcore.contract import profile_text, workloads
from rlcore.runs.store import Run, Store
from ui import charts, extras, fmt, link_table, plotly_live, router, share, views

REFRESH_SECONDS = 2.0


def chart_style(name: str) -> tuple[bool, bool]:
    """(log axis, percent) for a metric, as the workloads that report it draw it."""
    for workload in workloads.all_workloads():
        for chart in workload.charts:
            if chart.metric == name:
                return chart.log_y, chart.percent
    return False, name in fmt.PERCENT_METRICS


def default_metric(runs: list[Run], metrics: pd.DataFrame) -> str | None:
    """The metric a comparison opens on: the first chart of the first run's workload, whatever the runs have
    reported so far, so that a link's choice (which the URL omits when it is the default) means the same later."""
    charted = [c.metric for c in workloads.of_run(runs[0].kind).charts if c.kind == "line"] if runs else []
    if charted:
        return charted[0]
    return str(metrics["name"].iloc[0]) if len(metrics) else None


def metric_choices(metrics: pd.DataFrame, requested: str | None, default: str | None) -> list[str]:
    """The metrics a comparison offers: those its runs reported, its default, and one a link asks for by its key
    or title that they have not reported yet (a comparison opened as its runs are queued keeps the link's
    choice)."""
    names = set(metrics["name"].unique()) if len(metrics) else set()
    names |= {default} if default else set()
    known = set(fmt.METRIC_TITLES) | {c.metric for w in workloads.all_workloads() for c in w.charts
                                      if c.kind == "line"} | {k for w in workloads.all_workloads()
                                                              for k in w.metric_titles}
    by_title = {fmt.metric_title(k): k for k in known}
    if requested in known:
        names.add(requested)
    elif requested in by_title:
        names.add(by_title[requested])
    return sorted(names, key=fmt.metric_title)


def _accept_key(requested: str | None, options: list[str], key: str = "metric") -> None:
    """A bound picker's link holds the title it shows; a link holding the option's key instead (older links, and
    Home's) selects it too."""
    if requested in options and key not in st.session_state:
        st.session_state[key] = requested


def show(store: Store, ids: list[int]) -> None:
    """The comparison of runs ``ids``; reruns itself every few seconds while one of them is queued or running."""
    live = any(r.live for r in _runs(store, ids))

    @st.fragment(run_every=REFRESH_SECONDS if live else None)
    def body() -> None:
        runs = _runs(store, ids)
        if live and not any(r.live for r in runs):
            st.rerun()  # the last one just ended: a full rerun stops the timer
        _comparison(store, runs)

    body()


def _runs(store: Store, ids: list[int]) -> list[Run]:
    by_id = {r.id: r for r in store.list_runs()}
    return [by_id[i] for i in ids if i in by_id]


def _comparison(store: Store, runs: list[Run]) -> None:
    ids = [r.id for r in runs]
    with st.container(horizontal=True):
        for r in runs:  # real links (same tab): each run's own view
            st.page_link(router.page_of(r.kind) or "app_pages/runs.py", label=f"{r.id}: {fmt.md(r.label, 60)}",
                         query_params={"run": str(r.id)}, icon=":material/open_in_new:")
    waiting = [r for r in runs if r.live]
    if waiting:
        st.info(" · ".join(f"run {r.id}: {views.progress_text(r)}" for r in waiting)
                + f" — this comparison updates every {REFRESH_SECONDS:g} s.")
    sentence = views.comparison_sentence(runs)
    if sentence:
        st.markdown(f"#### {fmt.md(sentence, 400)}")
    kinds = list(dict.fromkeys(r.kind for r in runs))
    if len(kinds) > 1:
        titles = ", ".join(workloads.of_run(k).title for k in kinds)
        yours = any(workloads.of_run(k).from_code for k in kinds)
        st.info(f"These runs are of {len(kinds)} different workloads ({fmt.md(titles, 200)}): each measures its own "
                "thing, so their losses are not comparable, nor their speeds unless a step of one is a step of the "
                "other" + (" (your code's steps are what the lab found: optimizer updates, calls of a training "
                           "function, or batches; a DQN port's update per move is the lab's DQN's step)"
                           if yours else "")
                + ". The chart draws each metric only where a run reported it; the table keeps each run's own "
                  "headline numbers.", icon=":material/compare_arrows:")
    explained: set[int] = set()
    for kind in kinds:
        why = extras.of(kind).compare_why
        if why is not None:
            explained |= why(store, runs)
    _why(runs, explained)
    metrics = store.metrics(ids)
    default = default_metric(runs, metrics)
    names = metric_choices(metrics, st.query_params.get("metric"), default)
    if names:
        left, mid, right = st.columns(3)
        # The picker shows human titles, which the link then holds (metric=loss); a link naming a metric by its
        # key (metric=train/loss, as older links do) still opens it.
        _accept_key(st.query_params.get("metric"), names)
        _accept_key(st.query_params.get("x"), list(charts.X_AXES), "x")
        name = left.selectbox("metric", names, index=names.index(default) if default in names else 0,
                              key="metric", bind="query-params", format_func=fmt.metric_title)
        x = mid.radio("x axis", list(charts.X_AXES), horizontal=True, key="x", bind="query-params",
                      format_func=charts.X_AXES.get,
                      help="step: the run's own step count; training seconds: time spent training (tests "
                           "excluded).")
        smoothing = right.slider("smoothing", 0.0, 0.99, 0.6, key="smoothing", bind="query-params")
        share.share_button({"runs": ids, "metric": fmt.metric_title(name), "x": charts.X_AXES[x],
                            "smoothing": smoothing}, "this comparison")
        if not len(metrics) or name not in set(metrics["name"]):
            st.caption(f"No {fmt.metric_title(name)} reported yet; the chart starts with the first numbers."
                       if any(r.live for r in runs) else f"None of these runs reported {fmt.metric_title(name)}.")
        else:
            log_y, percent = chart_style(name)
            labels = {r.id: f"{r.id}: {r.label}" for r in runs}
            plotly_live.chart(charts.metric_chart(metrics, name, labels=labels, x=x, smoothing=smoothing, log_y=log_y,
                                                  percent=percent), key="compare_chart", title=fmt.metric_title(name))
    else:
        st.caption("These runs have no metrics yet.")
    _machine(runs, metrics)
    summary = views.summary_table(runs)
    summary["run"] = [views.link(router.view_path(r.kind), "run", r.id, r.label) for r in runs]
    link_table.show(summary, key="compare_summary")
    diff = views.settings_diff(runs)
    if len(diff):
        st.caption("Settings that differ")
        st.dataframe(diff, hide_index=True)
    if len(metrics):
        name = "runs-" + "-".join(map(str, ids[:8])) + ("-and-more" if len(ids) > 8 else "") + "-metrics.csv"
        st.download_button("Download these runs' metrics (CSV)", metrics.to_csv(index=False), name, "text/csv")



def _why(runs: list[Run], explained: set[int]) -> None:
    """Profiled runs side by side: what their profiles say of the speed ratio, one step's time split for each."""
    reading = views.profile_comparison(runs)
    if reading:
        st.markdown(fmt.md(reading, 600))
    profiled = views.profiled(runs)
    if profiled:
        for r, profile in profiled:
            if r.id not in explained:
                st.caption(fmt.md(f"{r.id}: {r.label} — {profile_text.sentence(profile)}", 600))
        st.plotly_chart(charts.step_time_chart({f"{r.id}: {r.label}": p for r, p in profiled}),
                        key="compare_step_time")


def _machine(runs: list[Run], metrics: pd.DataFrame) -> None:
    """Cores busy over each run's time, when the runs sampled them."""
    from rlcore.tracking import system_metrics

    rows = metrics[metrics["name"].isin([system_metrics.RUN_CORES, system_metrics.MACHINE_CORES])] \
        if len(metrics) else metrics
    if not len(rows):
        return
    cores = max(views.summary(r).machine_cores or int((r.environment or {}).get("cores") or 1)
                for r in runs)
    with st.expander("What the machine did"):
        for r in runs:
            sentence = views.machine_sentence(views.summary(r).system or None)
            if sentence:
                st.caption(fmt.md(f"{r.id}: {r.label} — {sentence}", 400))
        st.plotly_chart(charts.system_chart(rows, cores, {r.id: f"{r.id}: {r.label}" for r in runs}),
                        key="compare_system")
