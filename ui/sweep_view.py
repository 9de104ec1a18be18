"""A sweep's view (?sweep=ID): its members with status and progress, cancel all; the results per setting (mean ±
spread over seeds of each headline, training time), the best setting with a link that opens it in the workload's
form, a heatmap when two settings vary, parallel coordinates when more do, every member's curve when one does;
CSV and a share link. It updates itself while members live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import ConfigError, label_of, parse_id
from rlcore.runs import sweeps
from rlcore.runs.store import Run, Store, StoreError, Sweep
from ui import access, charts, fmt, link_table, plotly_live, router, runs_table, share, views

REFRESH_SECONDS = 2.0
GROUP_ABOVE = 20  # members: above it, the curves are grouped by setting (W&B's grouped runs)


def show_from_url(store: Store) -> bool:
    if "sweep" not in st.query_params:
        return False
    try:
        sweep_id = parse_id(st.query_params["sweep"], "sweep")
    except ConfigError as e:
        st.warning(fmt.md(str(e), 400))
        return True
    sweep = store.get_sweep(sweep_id)
    if sweep is None:
        st.warning(f"sweep {sweep_id} does not exist (it may have been deleted).")
        return True
    live = any(r.live for r in store.sweep_runs(sweep_id))

    @st.fragment(run_every=REFRESH_SECONDS if live else None)
    def body() -> None:
        runs = store.sweep_runs(sweep_id)
        if live and not any(r.live for r in runs):
            st.rerun()
        _show(store, sweep, runs)

    body()
    return True


def listing(store: Store) -> None:
    """Every sweep, newest first, each a link to its view, with its status, members ended and best setting."""
    stored = store.list_sweeps()
    if not stored:
        return
    st.subheader("Sweeps so far")
    members: dict[int, list[Run]] = {}
    for run in store.list_runs():
        if run.sweep_id is not None:
            members.setdefault(run.sweep_id, []).append(run)
    table = views.sweeps_table(stored, members, "sweeps")
    link_table.show(table, key="sweeps_list")


def _names(workload: workloads.Workload) -> dict[str, str]:
    import dataclasses

    return {f.name: label_of(f) for f in dataclasses.fields(workload.config)}


def _show(store: Store, sweep: Sweep, runs: list[Run]) -> None:
    workload = workloads.get(sweep.kind)
    names = _names(workload)
    counts = sweeps.status_counts(runs)
    ended = sum(not r.live for r in runs)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.subheader(f"Sweep {sweep.id}: {fmt.md(sweep.label, 120)} — {workload.title}", width="content")
        share.share_button({"sweep": sweep.id}, f"sweep {sweep.id}")
        if access.is_operator() and ended < len(runs) and st.button("Cancel the sweep", key="cancel_sweep") \
                and access.require_operator("cancel a sweep"):
            try:
                store.cancel_sweep(sweep.id)
            except StoreError as e:
                st.error(fmt.md(str(e), 400))
            st.rerun()
    st.progress(ended / max(len(runs), 1), text=f"{ended:,} of {len(runs):,} runs ended — "
                + ", ".join(f"{n:,} {status}" for status, n in counts.items()))
    space = sweeps.space_of(sweep)
    results = sweeps.results(store, sweep, runs)
    h, why = sweeps.ranked_by(workload, runs)
    top = search.best(workload, results, h)
    if why:
        st.caption(fmt.md(why[0].upper() + why[1:] + ".", 300))
    if top is not None:
        setting = " ".join(f"{names.get(k, k)}={v}" for k, v in top.setting.items())
        finding = (f"{h.label} ({h.better} is better): {setting} — {h.text(top.means[h.key])} ± "
                   f"{h.text(top.spreads[h.key])} over {top.done} run{'s' if top.done != 1 else ''}")
        if ended < len(runs):  # a partial best is not a finding yet
            st.info(fmt.md(f"Best so far by {finding}; {ended:,} of {len(runs):,} runs have ended, the best is "
                           "named when all have.", 400))
        else:
            st.success(fmt.md(f"Best by {finding}.", 400))
        page = router.page_of(sweep.kind)
        if page:
            params = {names.get(k, k): v for k, v in (sweep.base | top.setting).items()}
            if sweep.preset and workload.preset_param not in params:
                params[workload.preset_param] = sweep.preset
            st.page_link(page, label="Open the best setting in the form", icon=":material/tune:",
                         query_params={k: str(v) for k, v in params.items()})
    _chart(store, workload, names, space, results, runs)
    # A static table: it draws at once, where the interactive grid first loads its own scripts (about a second).
    st.table(_results_table(workload, names, results), hide_index=True)
    st.download_button("Results per setting (CSV)", sweeps.export_csv(sweep, results), f"sweep{sweep.id}.csv",
                       "text/csv", key="sweep_csv")
    if st.toggle(f"show the {len(runs):,} members", value=ended < len(runs), key="sweep_members"):
        runs_table.table_of(views.runs_table(runs), key="members")


def _results_table(workload: workloads.Workload, names: dict[str, str],
                   results: list[search.SettingResult]) -> pd.DataFrame:
    rows = []
    for r in results:
        row = {names.get(k, k): str(v) for k, v in r.setting.items()} | {"runs done": f"{r.done}/{r.runs}"}
        for h in workload.headlines:
            mean = r.means[h.key]
            spread = r.spreads[h.key]
            row[h.label] = "–" if mean is None else f"{h.text(mean)} ± {h.text(spread) if spread else '0'}"
        rows.append(row)
    return pd.DataFrame(rows)


def _chart(store: Store, workload: workloads.Workload, names: dict[str, str], space: search.Space,
           results: list[search.SettingResult], runs: list[Run]) -> None:
    varied = space.varied
    h = workload.headlines[0]
    title = f"mean {h.label} per setting"
    if len(varied) == 2:
        x, y = varied
        st.markdown(f"**{title}** (colour: {'higher' if h.better == 'higher' else 'lower'} is better at the "
                    f"{'yellow' if h.better == 'higher' else 'dark'} end)")
        cells = [(r.setting[x], r.setting[y], r.means[h.key], h.text(r.means[h.key])) for r in results]
        st.table(charts.heatmap_table(names.get(x, x), names.get(y, y), cells))
    elif len(varied) > 2:
        columns = {names.get(k, k): [r.setting[k] for r in results] for k in varied}
        columns[h.label] = [r.means[h.key] for r in results]
        st.plotly_chart(charts.parallel_coordinates(columns, h.label, title), key="sweep_parcoords")
    if len(varied) == 1 and workload.charts:
        chart = workload.charts[0]
        metrics = store.metrics([r.id for r in runs], names=[chart.metric])
        if len(metrics) and len(runs) > GROUP_ABOVE:  # hundreds of lines read as none: a line per setting
            field = varied[0]
            groups = {r.id: f"{names.get(field, field)}={fmt.value_text(r.config.get(field))}" for r in runs}
            title = f"{chart.title}: each setting's mean over its members (band: lowest to highest)"
            plotly_live.chart(charts.grouped_metric_chart(metrics, chart.metric, groups, title=title,
                                                          log_y=chart.log_y, percent=chart.percent,
                                                          smoothing=0.6 if chart.smooth else 0.0),
                              key="sweep_curves", title=title)
        elif len(metrics):
            labels = {r.id: f"{r.id}: {r.label}" for r in runs}
            title = f"{chart.title}: every member"
            plotly_live.chart(charts.metric_chart(metrics, chart.metric, labels=labels, title=title, log_y=chart.log_y,
                                                  percent=chart.percent, smoothing=0.6 if chart.smooth else 0.0),
                              key="sweep_curves", title=title)
