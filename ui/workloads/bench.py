"""The benchmark lab's own views: a run's cells as they land, then the bars with their "why", the crossover, the
table; and on the form, the chosen suite's patterns and why they differ."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from rlcore.contract import profile_text
from rlcore.contract.params import from_dict
from rlcore.contract.profile import Profile
from rlcore.runs.store import Run
from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.catalogue import SUITES, pattern
from rlcore.workloads.bench.config import BenchConfig
from ui import charts, extras, plotly_live

KIND = "bench"

BARS_TITLE = "Speed of each pattern"  # how the page names its in-place bar chart (the figure's title says more)
# The cells table as people read it: titles with units, counts with thousands separators.
_RATE = {"format": "localized"}
CELL_COLUMNS = {
    "calls_per_second": st.column_config.NumberColumn("calls/s", **_RATE),
    "steps_per_second": st.column_config.NumberColumn("steps/s", **_RATE),
    "samples_per_second": st.column_config.NumberColumn("samples/s", format="localized"),
    "iqr": st.column_config.NumberColumn("spread of steps/s (IQR)", **_RATE,
                                         help="Interquartile range of the repeats' steps/s."),
    "setup_seconds": st.column_config.NumberColumn("build (s)", format="%.3f",
                                                   help="Building the call: networks, optimizer, the trace."),
    "first_call_seconds": st.column_config.NumberColumn("first call (s)", format="%.3f",
                                                        help="Timed on its own: XLA compiles here."),
    "calls": st.column_config.NumberColumn("calls timed", format="localized"),
    "speedup": st.column_config.NumberColumn("vs slowest at this batch", format="%.1fx"),
    "us_per_step": st.column_config.NumberColumn("µs per step", format="localized"),
    "missing": st.column_config.TextColumn("not measured because"),
}


def cells_so_far(run: Run, metrics: pd.DataFrame) -> list[dict]:
    cfg = from_dict(BenchConfig, run.config)
    return bench.cells_from_metrics(cfg, metrics[["step", "name", "value"]].itertuples(index=False))


def live(run: Run, metrics: pd.DataFrame) -> None:
    show(run, cells_so_far(run, metrics))


def patterns_why(workload: str | None) -> None:
    """The form's explanation of the chosen workload's patterns."""
    if workload is None:
        return
    with st.expander(f"The patterns of {workload} and why they differ"):
        for name in SUITES[workload].patterns:
            st.markdown(f"**{name}** — {pattern(workload, name.replace('kN', 'k100')).why}")


def show(run: Run, cells: list[dict]) -> None:
    """Bars for one batch and width, the crossover across batches, the why of each pattern, the table."""
    if not cells:
        st.caption("No cell measured yet: the first call of each pattern traces and compiles it.")
        return
    batches = sorted({c["batch"] for c in cells})
    widths = sorted({c["width"] for c in cells})
    left, right = st.columns(2)
    batch = left.select_slider("batch for the bars", batches, value=batches[-1] if len(batches) > 1 else batches[0],
                               key=f"bars_batch_{run.id}") if len(batches) > 1 else batches[0]
    width = right.select_slider("width", widths, key=f"bars_width_{run.id}") if len(widths) > 1 else widths[0]
    chosen = [c for c in cells if c["batch"] == batch and c["width"] == width]
    bars, why = st.columns([3, 2])
    with bars:
        figure = bench_bar_chart(chosen, f"{cells[0]['workload']} at batch {batch:,}, width {width}")
        plotly_live.chart(figure, key=f"bars_{run.id}", title=BARS_TITLE)
    measured = {(c["pattern"], c["batch"], c["width"], c["device"]): Profile.from_json(c["profile"])
                for c in (run.summary or {}).get("cells", []) if isinstance(c.get("profile"), dict)}
    with why:
        st.markdown("**Why**")
        for cell in {c["pattern"]: c for c in chosen}.values():
            name = cell["pattern"]
            profile = measured.get((name, cell["batch"], cell["width"], cell["device"]))
            if profile is not None and profile.ok:  # the profile of this very cell, where the bench recorded one
                st.markdown(f"**{name}**, measured: {profile_text.sentence(profile)}")
            else:
                st.markdown(f"**{name}**: {pattern(cells[0]['workload'], name).why}")
    same_width = [c for c in cells if c["width"] == width]
    crossovers = {p: bench.crossover(same_width, p) for p in dict.fromkeys(c["pattern"] for c in same_width)}
    if len(batches) > 1:
        plotly_live.chart(crossover_chart(same_width, crossovers), key=f"crossover_{run.id}",
                          title="Samples per second against batch size")
    for name in crossovers:
        if "gpu" not in {c["device"] for c in same_width}:
            st.info(bench.crossover_sentence(same_width, name))
            break
        st.caption(bench.crossover_sentence(same_width, name))
    table = bench.cells_table(cells)
    st.dataframe(table.drop(columns="workload"), hide_index=True, width="stretch", column_config=CELL_COLUMNS)
    st.download_button("Cells (CSV)", table.to_csv(index=False), f"bench{run.id}.csv", "text/csv",
                       key=f"bench_csv_{run.id}")


# ---------------------------------------------------------------- its charts

def bench_bar_chart(cells: list[Mapping], title: str = "Speed of each pattern") -> go.Figure:
    """Steps per second of each pattern (log axis), one bar group per device, the speedup over the slowest
    bar written on each bar. Pass the cells of one batch size and width."""
    if not cells:
        raise ValueError("a bar chart needs at least one measured cell.")
    slowest = min(c["steps_per_second"] for c in cells)
    fig = go.Figure()
    for device in dict.fromkeys(c["device"] for c in cells):
        mine = [c for c in cells if c["device"] == device]
        fig.add_trace(go.Bar(
            x=[c["pattern"] for c in mine], y=[c["steps_per_second"] for c in mine], name=device,
            text=[f"{c['steps_per_second'] / slowest:,.1f}x" for c in mine], textposition="inside",
            error_y={"type": "data", "array": [c.get("iqr") or 0 for c in mine], "visible": True},
            hovertemplate="%{x}: %{y:,.1f} steps/s<extra>" + device + "</extra>"))
    yaxis = charts.log_axis([c["steps_per_second"] for c in cells]) | {
        "title": {"text": "steps (calls × steps per call) per second"}}
    fig.update_layout(modebar=charts.MODEBAR, title=title, yaxis=yaxis, barmode="group",
                      margin=charts.MARGIN_WITH_LEGEND, legend=charts.LEGEND)
    return fig


def crossover_chart(cells: list[Mapping], crossovers: Mapping[str, int | None] | None = None,
                    title: str = "Samples per second against batch size") -> go.Figure:
    """Samples/s (batch × steps/s) against batch, one line per device × pattern, log-log; where the GPU
    overtakes the CPU for a pattern, a dashed vertical line marks the batch."""
    fig = go.Figure()
    keys = dict.fromkeys((c["device"], c["pattern"]) for c in cells)
    for device, name in keys:
        mine = sorted((c for c in cells if (c["device"], c["pattern"]) == (device, name)), key=lambda c: c["batch"])
        fig.add_trace(go.Scatter(x=[c["batch"] for c in mine], y=[c["samples_per_second"] for c in mine],
                                 mode="lines+markers", name=f"{name} on {device}",
                                 line={"dash": "solid" if device == "cpu" else "dot"}))
    for name, batch in (crossovers or {}).items():
        if batch is not None:
            fig.add_vline(x=batch, line_dash="dash", line_color="#888", annotation_text=f"{name}: GPU from {batch:,}")
    fig.update_layout(modebar=charts.MODEBAR, title=title, xaxis=charts.log_axis([c["batch"] for c in cells]) | {
        "title": {"text": "batch size"}}, yaxis=charts.log_axis([c["samples_per_second"] for c in cells]) | {
        "title": {"text": "samples per second"}}, margin=charts.legend_margin(len(keys)), legend=charts.LEGEND)
    return fig


extras.register(KIND, extras.WorkloadViews(charts=live, intro=patterns_why))
