"""A comparison of chosen runs: the headline sentence, overlaid curves, the numbers and verdicts, what differs
in their settings, CSV; it refreshes itself while any of them lives."""

from __future__ import annotations

import streamlit as st

from rlcore import report, workloads
from rlcore.runs.store import Run, Store
from ui import charts, fmt, share, views

REFRESH_SECONDS = 2.0


def chart_style(name: str) -> tuple[bool, bool]:
    """(log axis, percent) for a metric, as the workloads that report it draw it."""
    for workload in workloads.all_workloads():
        for chart in workload.charts:
            if chart.metric == name:
                return chart.log_y, chart.percent
    return False, name in fmt.PERCENT_METRICS


def show(store: Store, ids: list[int]) -> None:
    """The comparison of runs ``ids``; reruns itself every few seconds while one of them is queued or running."""
    live = any(r.live for r in _runs(store, ids))

    @st.fragment(run_every=REFRESH_SECONDS if live else None)
    def body() -> None:
        runs = _runs(store, ids)
        if live and not any(r.live for r in runs):
            st.rerun()  # the last one just ended: a full rerun stops the timer
        _body(store, runs)

    body()


def _runs(store: Store, ids: list[int]) -> list[Run]:
    by_id = {r.id: r for r in store.list_runs()}
    return [by_id[i] for i in ids if i in by_id]


def _body(store: Store, runs: list[Run]) -> None:
    ids = [r.id for r in runs]
    waiting = [r for r in runs if r.live]
    if waiting:
        st.info(" · ".join(f"run {r.id}: {views.progress_text(r)}" for r in waiting)
                + f" — this comparison updates every {REFRESH_SECONDS:g} s.")
    sentence = views.comparison_sentence(runs)
    if sentence:
        st.markdown(f"#### {fmt.md(sentence, 400)}")
    metrics = store.metrics(ids)
    names = sorted(metrics["name"].unique()) if len(metrics) else []
    if not names:
        st.caption("These runs have no metrics yet.")
    else:
        left, mid, right = st.columns(3)
        # No format_func on bound widgets: the URL holds the formatted option, and links say metric=train/loss.
        name = left.selectbox("metric", names, index=names.index(report.LOSS) if report.LOSS in names else 0,
                              key="metric", bind="query-params")
        x = mid.radio("x axis", list(charts.X_AXES), horizontal=True, key="x", bind="query-params",
                      help="step: the run's own step count; wall: seconds of training (tests excluded).")
        smoothing = right.slider("smoothing", 0.0, 0.99, 0.6, key="smoothing", bind="query-params")
        share.share_button({"runs": ids, "metric": name, "x": x, "smoothing": smoothing}, "this comparison")
        log_y, percent = chart_style(name)
        labels = {r.id: f"{r.id}: {r.label}" for r in runs}
        st.plotly_chart(charts.metric_chart(metrics, name, labels=labels, x=x, smoothing=smoothing, log_y=log_y,
                                            percent=percent), key="compare_chart")
    st.dataframe(views.summary_table(runs), hide_index=True)
    diff = views.settings_diff(runs)
    if len(diff):
        st.caption("Settings that differ")
        st.dataframe(diff, hide_index=True)
    if len(metrics):
        st.download_button("Download these metrics (CSV)", metrics.to_csv(index=False), "metrics.csv", "text/csv")

