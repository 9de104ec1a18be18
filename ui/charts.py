"""Plotly figure builders for the dashboard: data in, go.Figure out. Pure (no Streamlit), so tested on their own.
Live charts are drawn in place by ui/plotly_live.py (Plotly.react on a node that stays mounted).

Metrics arrive in the store's long format (run_id, step, wall, name, value). Long series are thinned
to at most ``MAX_POINTS`` per trace so charts stay responsive on long runs.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from rlcore.contract.profile import Profile
from ui import fmt

MAX_POINTS = 2000
X_AXES = {"step": "step", "wall": "training seconds"}
# One colour per run id, the same on every chart and in every comparison (Plotly's qualitative palette).
PALETTE = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3", "#ff6692", "#b6e880", "#ff97ff",
           "#fecb52")
MARGIN = {"t": 40, "b": 40, "l": 60, "r": 10}
# A legend in a row above the plot, under the title: at the bottom it covered the x axis's title.
LEGEND = {"orientation": "h", "yanchor": "bottom", "y": 1.0, "xanchor": "left", "x": 0}
MARGIN_WITH_LEGEND = MARGIN | {"t": 70}
# Plotly's mode bar stands in a column at the chart's right edge, not in a row over its title (where it hid it).
MODEBAR = {"orientation": "v"}
# The hover rule: a thin line across the chart at the pointer.
SPIKES = {"showspikes": True, "spikemode": "across", "spikesnap": "cursor", "spikethickness": 1, "spikecolor": "#888",
          "spikedash": "solid"}


# Past ten runs the colours come round again: the next ten dashed, the ten after dotted, so runs 1 and 11 differ.
DASHES = ("solid", "dash", "dot")
# Runs whose lengths differ by more than this, drawn over training seconds, share a log axis: on a linear one
# every run but the slowest is a sliver at the left.
WIDE_SPREAD = 20.0


def run_color(run_id: int) -> str:
    return PALETTE[(run_id - 1) % len(PALETTE)]


def run_line(run_id: int) -> dict:
    """A run's line: its colour, and its dash once the palette has come round."""
    return {"color": run_color(run_id), "dash": DASHES[(run_id - 1) // len(PALETTE) % len(DASHES)]}


def plain(text: str, limit: int = 60) -> str:
    """User text for a Plotly label, legend or hover: its HTML shown as characters, a hover template's %{...} too,
    at most ``limit`` of them."""
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return html.escape(text, quote=False).replace("%", "&#37;")


def downsample(frame: pd.DataFrame, max_points: int = MAX_POINTS) -> pd.DataFrame:
    """Every n-th row so that at most ``max_points`` remain; the last row is always kept."""
    if len(frame) <= max_points:
        return frame
    idx = np.unique(np.append(np.linspace(0, len(frame) - 1, max_points - 1).astype(int), len(frame) - 1))
    return frame.iloc[idx]


def ema(values: pd.Series, smoothing: float) -> pd.Series:
    """TensorBoard's debiased exponential moving average; smoothing 0 returns the values."""
    if smoothing <= 0:
        return values
    # last = s·last + (1-s)·v divided by its weight s·w + (1-s) is Σ sⁱ·v₋ᵢ / Σ sⁱ: pandas' adjusted EWM.
    return values.astype(float).ewm(alpha=1 - smoothing, adjust=True).mean()


def y_axis(values: pd.Series, *, log_y: bool, percent: bool) -> dict:
    """A y axis that reads well: on a log axis one labelled tick per decade (10⁻³, 10⁻², ... or 0.1%, 1%, ...)
    over whole decades; percent ticks for rates; rates and counts from zero, so noise is not magnified."""
    axis: dict = {"type": "log" if log_y else "linear", "separatethousands": True}
    positive = values[values > 0] if len(values) else values
    if log_y and len(positive):
        low, high = math.floor(math.log10(positive.min())), math.ceil(math.log10(positive.max()))
        high = max(high, low + 1)
        axis |= {"range": [low, high], "dtick": 1 if high - low <= 8 else 2, "exponentformat": "power",
                 "showexponent": "all", "tickformat": "~p" if percent else ""}
    elif percent:
        axis |= {"tickformat": ".0%", "range": [0, max(1.0, float(values.max()) if len(values) else 1.0) * 1.02]}
    else:
        # 1.2k, 250k where thousands are read at a glance; below, plain numbers (an accuracy's 0.2, never "200m")
        large = len(values) and float(values.abs().max()) >= 1000
        axis |= {"tickformat": ",.3~s" if large else ",.3~g", "rangemode": "tozero"}
    return axis


def smooth(values: pd.Series, smoothing: float, log_y: bool) -> pd.Series:
    """The EMA of a series; on a log axis of the logarithm (a loss falling by decades would otherwise be drawn
    for long as its early, largest values)."""
    if log_y and len(values) and (values > 0).all():
        return 10 ** ema(np.log10(values), smoothing)
    return ema(values, smoothing)


def x_axis(xs: pd.Series, x: str, ends: pd.Series | None = None) -> dict:
    """The x axis; over training seconds, a log one when the runs' lengths (`ends`, one a run) differ by more
    than WIDE_SPREAD times."""
    axis: dict = {"title": {"text": X_AXES[x]}, "rangemode": "tozero", "separatethousands": True}
    top = float(xs.max()) if len(xs) else 0.0
    spread = ends[ends > 0] if ends is not None else pd.Series(dtype=float)
    if x == "wall" and len(spread) > 1 and spread.max() / spread.min() > WIDE_SPREAD:
        return log_axis(xs) | {"title": {"text": f"{X_AXES[x]} (log: the runs' lengths differ "
                                                  f"{spread.max() / spread.min():,.0f}x)"}}
    if x == "step":
        axis["tickformat"] = ",d"
        if top < 10:
            axis["dtick"] = 1  # no fractional steps on a short run
    if len(xs) and xs.nunique() == 1:
        axis["range"] = [0, max(top * 1.05, 1.0)]  # a lone point sits on a readable axis from 0
    return axis


def legend_margin(entries: int, per_row: int = 3) -> dict:
    """Room above the plot for a legend in rows under the title: a long legend grows down, never over it."""
    rows = max(1, math.ceil(entries / per_row))
    return MARGIN | {"t": 48 + 24 * rows}


def _lines_layout(title: str, xaxis: dict, yaxis: dict, legend: bool, entries: int = 1) -> dict:
    """The layout of a metric's lines: the hover rule across at the pointer with every line's value, the wheel
    zooming x only (y fixed), a legend above the plot when there is more than one line."""
    return {"title": {"text": title}, "xaxis": xaxis | SPIKES, "yaxis": yaxis | {"fixedrange": True},
            "modebar": MODEBAR, "hovermode": "x unified", "dragmode": "zoom",
            "margin": legend_margin(entries) if legend else MARGIN, "legend": LEGEND, "showlegend": legend,
            "height": 320 + (24 * (math.ceil(entries / 3) - 1) if legend else 0)}


def log_axis(values: Iterable[float]) -> dict:
    """A log axis labelled once per decade (1, 10, 100, 1k), never Plotly's "5 2 10k 5 2 1000" in between."""
    positive = [v for v in values if v and v > 0]
    axis: dict = {"type": "log", "tickformat": ",.3~s", "minor": {"showgrid": True}}
    if positive:
        low, high = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
        axis |= {"dtick": 1 if high - low <= 8 else 2, "range": [low - 0.05, max(high, low + 1) + 0.05]}
    return axis


def end_label(raw: pd.Series, shown: pd.Series, percent: bool) -> str:
    """The text at a line's end: the newest value as reported; where smoothing moved it, the smoothed one after
    it (Keras said 0.9875; the line ends at 0.980)."""
    newest, drawn = fmt.value(float(raw.iloc[-1]), percent), fmt.value(float(shown.iloc[-1]), percent)
    return newest if newest == drawn else f"{newest} (smoothed {drawn})"


def metric_chart(metrics: pd.DataFrame, name: str, *, labels: Mapping[int, str] | None = None, x: str = "step",
                 smoothing: float = 0.0, log_y: bool = False, title: str | None = None,
                 percent: bool = False) -> go.Figure:
    """One metric of one or many runs, as TensorBoard and W&B draw it: a line per run in its own colour (smoothed
    with TensorBoard's EMA, the raw values faint behind), a single run's newest value written at its line's end, a
    rule across the chart at the pointer with every run's value, the wheel zooming the x axis only (double-click
    resets), a log axis labelled per decade, rates in percent from 0 to 100%."""
    if x not in X_AXES:
        raise ValueError(f"x must be one of {', '.join(X_AXES)}, not {x!r}.")
    traces: list[dict] = []  # plain dicts, the layout too, made into a Figure at once: 4x cheaper than add_trace and
    # update_layout (a live chart is rebuilt every few seconds; docs/measurements/live_view_cost.md)
    rows = metrics[metrics["name"] == name]
    if log_y:
        rows = rows[rows["value"] > 0]  # a log axis cannot place zero or less
    hover = "%{y:.3~p}" if percent else "%{y:,.4~g}"
    several = rows["run_id"].nunique() > 1
    for run_id, series in rows.groupby("run_id", sort=True):
        series = downsample(series.sort_values(["step", "wall"]))
        label = plain((labels or {}).get(run_id, f"run {run_id}"))
        line = run_line(int(run_id))
        color = line["color"]
        shown = smooth(series["value"], smoothing, log_y)
        if smoothing > 0:
            traces.append({"type": "scatter", "x": series[x], "y": series["value"], "mode": "lines", "opacity": 0.25,
                           "line": line, "name": f"{label} (raw)", "showlegend": False,
                           "hoverinfo": "skip"})
        mode = "lines+markers" if len(series) < 50 else "lines"  # a lone evaluation still shows
        traces.append({"type": "scatter", "x": series[x], "y": shown, "mode": mode, "name": label,
                       "line": line, "marker": {"color": color},
                       "hovertemplate": f"{hover}<extra>{label}</extra>"})
        if len(series) and not several:  # the newest value at the end of the line: what a glance wants (one run)
            traces.append({"type": "scatter", "x": [series[x].iloc[-1]], "y": [shown.iloc[-1]], "mode": "text",
                           "showlegend": False, "text": [end_label(series["value"], shown, percent)],
                           "textposition": "top left", "textfont": {"color": color}, "hoverinfo": "skip",
                           "name": f"{label} (newest)"})
    ends = rows.groupby("run_id")[x].max() if several else None
    return go.Figure(data=traces, layout=_lines_layout(title or fmt.metric_title(name), x_axis(rows[x], x, ends),
                                                       y_axis(rows["value"], log_y=log_y, percent=percent), several,
                                                       sum(1 for t in traces if t.get("showlegend") is not False)))


def grouped_metric_chart(metrics: pd.DataFrame, name: str, groups: Mapping[int, str], *, smoothing: float = 0.0,
                         log_y: bool = False, title: str | None = None, percent: bool = False) -> go.Figure:
    """One metric of many runs grouped, as W&B draws a grouped sweep: per group (``groups`` maps a run to its
    group's name) the mean over its runs at each step, smoothed like a single run's line, and a faint band from
    the lowest to the highest run. A few traces whatever the number of runs, so hundreds of members draw at once."""
    rows = metrics[metrics["name"] == name]
    if log_y:
        rows = rows[rows["value"] > 0]
    rows = rows.assign(group=rows["run_id"].map(groups)).dropna(subset=["group"])
    hover = "%{y:.3~p}" if percent else "%{y:,.4~g}"
    traces: list[dict] = []
    order = {g: i for i, g in enumerate(dict.fromkeys(groups.values()))}
    for group, series in sorted(rows.groupby("group"), key=lambda item: order[item[0]]):
        members = series["run_id"].nunique()
        stats = downsample(series.groupby("step")["value"].agg(["mean", "min", "max"]).reset_index())
        label = plain(f"{group} ({members:,} runs)")
        color = PALETTE[order[group] % len(PALETTE)]
        traces.append({"type": "scatter", "x": pd.concat([stats["step"], stats["step"][::-1]]),
                       "y": pd.concat([stats["max"], stats["min"][::-1]]), "fill": "toself", "mode": "none",
                       "fillcolor": color, "opacity": 0.15, "hoverinfo": "skip", "showlegend": False,
                       "name": f"{label} (lowest to highest)"})
        traces.append({"type": "scatter", "x": stats["step"], "y": smooth(stats["mean"], smoothing, log_y),
                       "mode": "lines", "name": label, "line": {"color": color},
                       "hovertemplate": f"{hover}<extra>{label}</extra>"})
    return go.Figure(data=traces, layout=_lines_layout(title or fmt.metric_title(name), x_axis(rows["step"], "step"),
                                                       y_axis(rows["value"], log_y=log_y, percent=percent), True,
                                                       len(order)))


ONCE_PHASES = ("compile", "eval")  # paid once per run, not per step: no time per step beside them


def phase_chart(phase_seconds: Mapping[str, float], steps: int, title: str = "where the time goes") -> go.Figure:
    """Seconds spent in each phase of the run, one horizontal bar per phase in the loop's order, the time (and the
    time per step, for the loop's phases) written on it."""
    names = list(phase_seconds)
    values = [float(v) for v in phase_seconds.values()]
    text = [f"{fmt.seconds(v)} ({fmt.seconds(v / steps)}/step)" if steps and n not in ONCE_PHASES else fmt.seconds(v)
            for n, v in zip(names, values, strict=True)]
    return go.Figure(data=[{"type": "bar", "y": names, "x": values, "orientation": "h", "text": text,
                            "textposition": "auto", "marker": {"color": PALETTE[0]}, "opacity": 0.6,
                            "hovertemplate": "%{y}: %{text}<extra></extra>"}],
                     layout={"title": {"text": title}, "modebar": MODEBAR, "xaxis": {"title": {"text": "seconds"}},
                             "yaxis": {"autorange": "reversed", "fixedrange": True}, "margin": MARGIN, "height": 320})


# Viridis, low to high: the colour of a heat-map cell (dark text on the light end).
VIRIDIS = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89", "#35b779", "#6ece58", "#b5de2b",
           "#fde725")


def heat_color(share: float) -> str:
    """CSS for a cell whose value sits at ``share`` (0..1) of the range shown."""
    color = VIRIDIS[min(len(VIRIDIS) - 1, max(0, round(share * (len(VIRIDIS) - 1))))]
    return f"background-color: {color}; color: {'#000' if share > 0.6 else '#fff'}"


def heatmap_table(x_name: str, y_name: str, cells: list[tuple[object, object, float | None, str]]) -> Any:
    """A heat map as a table: one row per value of ``y_name``, one column per value of ``x_name``, each cell the
    text given and coloured by its value (no chart library to load: it draws as fast as any table)."""
    xs = list(dict.fromkeys(str(x) for x, _, _, _ in cells))
    ys = list(dict.fromkeys(str(y) for _, y, _, _ in cells))
    text = pd.DataFrame("", index=pd.Index(ys, name=f"{y_name} \\ {x_name}"), columns=xs)
    values = pd.DataFrame(np.nan, index=text.index, columns=xs)
    for x, y, value, shown in cells:
        text.loc[str(y), str(x)] = shown
        values.loc[str(y), str(x)] = np.nan if value is None else value
    known = values.to_numpy()[~np.isnan(values.to_numpy())]  # none yet while every member is queued
    low, high = (known.min(), known.max()) if known.size else (0.0, 1.0)
    span = (high - low) or 1.0

    def colour(column: pd.Series) -> list[str]:
        return ["" if np.isnan(v) else heat_color((v - low) / span) for v in values[column.name]]

    return text.style.apply(colour)


def parallel_coordinates(columns: dict[str, list], color_name: str, title: str) -> go.Figure:
    """One line per setting across every varied setting and the headline (Plotly's Parcoords); text values get
    one tick each, numbers their range; coloured by the headline."""
    dimensions = []
    for name, values in columns.items():
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values if v is not None):
            numbers = [float("nan") if v is None else float(v) for v in values]
            dimensions.append({"label": plain(name, 30), "values": numbers})
        else:
            names = list(dict.fromkeys(str(v) for v in values))
            dimensions.append({"label": plain(name, 30), "values": [names.index(str(v)) for v in values],
                               "tickvals": list(range(len(names))), "ticktext": [plain(n, 20) for n in names]})
    color = [float("nan") if v is None else v for v in columns[color_name]]
    fig = go.Figure(go.Parcoords(dimensions=dimensions, line={"color": color, "colorscale": "Viridis",
                                                              "showscale": True}))
    fig.update_layout(modebar=MODEBAR, title=title, margin={"t": 70, "b": 30, "l": 60, "r": 60})
    return fig


# ---------------------------------------------------------------- why (profiles) and the machine

STEP_PARTS = (("compute_seconds", "the ops' arithmetic", "#2ca02c"),
              ("dispatch_seconds", "TensorFlow's dispatch around them", "#ff7f0e"),
              ("python_seconds", "Python between TensorFlow calls", "#d62728"))


REST = "the rest of the step"


def step_parts(profile: Profile) -> list[tuple[str, float]]:
    """A profiled step's time by cause, in the code's words (the findings, which do not overlap, then what they
    leave); a profile without findings is split as TensorFlow reads it (arithmetic, dispatch, Python)."""
    step = profile.step_seconds
    found = [f for f in profile.findings if not f.once_per_run]
    if not found:
        return [(title, float(getattr(profile, key) or 0.0)) for key, title, _ in STEP_PARTS]
    parts = [(f.title, f.seconds_per_step) for f in found]
    rest = step - sum(seconds for _, seconds in parts)
    return parts + ([(REST, rest)] if rest > 0.01 * step else [])


def step_time_chart(profiles: Mapping[str, Profile]) -> go.Figure:
    """One training step's time by cause, one stacked bar per profiled run (so two runs read side by side); the
    step's total written at its end."""
    fig = go.Figure()
    names = list(profiles)
    parts = {n: dict(step_parts(profiles[n])) for n in names}
    causes = list(dict.fromkeys(c for n in names for c in parts[n]))
    fixed = {title: color for _, title, color in STEP_PARTS} | {REST: "#bbbbbb"}
    colors = iter(PALETTE)
    for cause in causes:
        values = [parts[n].get(cause, 0.0) for n in names]
        fig.add_trace(go.Bar(y=[plain(n) for n in names], x=values, name=plain(cause), orientation="h",
                             marker_color=fixed.get(cause) or next(colors, "#888888"),
                             text=[fmt.seconds(v) if v else "" for v in values], textposition="inside",
                             insidetextanchor="middle", hovertemplate="%{text}<extra>" + plain(cause) + "</extra>"))
    totals = [profiles[n].step_seconds for n in names]
    fig.add_trace(go.Scatter(y=[plain(n) for n in names], x=totals, mode="text", showlegend=False,
                             text=[f"  {fmt.seconds(t)} per step" for t in totals], textposition="middle right",
                             hoverinfo="skip"))
    # Two causes to a legend row, whatever the chart's width (a run view's half column wrapped every cause onto a
    # row of its own, and the rows ran into the title): each entry is half the legend's width.
    rows = -(-len(causes) // 2)
    fig.update_layout(modebar=MODEBAR, title="one training step's time, by cause", barmode="stack",
                      xaxis_title="seconds per step",
                      xaxis={"range": [0, max([*totals, 1e-9]) * 1.35]}, height=170 + 50 * len(names) + 22 * rows,
                      margin=MARGIN | {"t": 60 + 22 * rows},
                      legend=LEGEND | {"entrywidth": 0.5, "entrywidthmode": "fraction"})
    return fig


def system_chart(metrics: pd.DataFrame, cores: int, labels: Mapping[int, str] | None = None) -> go.Figure:
    """Cores kept busy over the run's time: the run's own (solid) and the whole machine's (dotted), on an axis
    that ends at the machine's cores, so "one core busy, one idle" reads at a glance."""
    from rlcore.tracking import system_metrics

    traces: list[dict] = []
    for (run_id, name), series in metrics[metrics["name"].isin([system_metrics.RUN_CORES,
                                                                system_metrics.MACHINE_CORES])].groupby(
            ["run_id", "name"], sort=True):
        series = downsample(series.sort_values("wall"))
        label = plain((labels or {}).get(run_id, f"run {run_id}"))
        own = name == system_metrics.RUN_CORES
        traces.append({"type": "scatter", "x": series["wall"], "y": series["value"], "mode": "lines",
                       "name": f"{label}: {'this run' if own else 'whole machine'}",
                       "line": {"color": run_color(int(run_id)), "dash": "solid" if own else "dot"},
                       "hovertemplate": "%{y:.2f} cores<extra>" + ("run" if own else "machine") + "</extra>"})
    return go.Figure(data=traces, layout={
        "title": {"text": f"CPU cores busy, of the machine's {cores}"}, "modebar": MODEBAR,
        "xaxis": {"title": {"text": "seconds since it started"}},
        "yaxis": {"range": [0, cores * 1.05], "dtick": 1 if cores <= 16 else None, "title": {"text": "cores"}},
        "hovermode": "x unified", "margin": MARGIN_WITH_LEGEND, "legend": LEGEND, "height": 320})
