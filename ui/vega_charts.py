"""Vega-Lite charts for one run's view: a metric over steps, and where the time goes. Pure (no Streamlit).

Why not Plotly here (the comparisons use it): Streamlit 1.67 hashes a Plotly figure into its element id, so a live
chart whose data changed is unmounted and drawn from scratch every tick, which costs the browser, and the run on a
small machine, about twice what Vega-Lite does: Streamlit keeps a Vega-Lite chart whose spec did not change and
swaps its data in place (docs/measurements/live_view_cost.md). So every builder returns the data and a spec that
depends only on what the chart is, never on the values: a live chart keeps one spec for the run's whole life.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ui import charts, fmt

HEIGHT = 300
ONCE_PHASES = ("compile", "eval")  # paid once per run, not per step: no time per step beside them
# SVG, not canvas: a label on a chart is then SVG text, which the browser test reads; the two renderers cost the
# browser the same here, within the noise (docs/measurements/live_view_cost.md).
EMBED = {"usermeta": {"embedOptions": {"renderer": "svg"}}}

# On a log axis, a label per decade (0.001, 0.01, ...; 0.1%, 1%, ...), the ticks between them unlabelled.
DECADES_ONLY = "abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6 ? datum.label : ''"


def metric_chart(rows: pd.DataFrame, *, title: str, color: str, smoothing: float = 0.0, log_y: bool = False,
                 percent: bool = False) -> tuple[pd.DataFrame, dict]:
    """One metric of one run over steps: its line (smoothed, the raw values faint behind, when ``smoothing`` > 0),
    its newest value written at the line's end, and on hover a rule with the step and value."""
    series = charts.downsample(rows.sort_values(["step", "wall"]))
    if log_y:
        series = series[series["value"] > 0]  # a log axis cannot place zero or less
    data = pd.DataFrame({"step": series["step"].to_numpy(), "value": series["value"].to_numpy(dtype=float)})
    data["shown"] = charts.smooth(data["value"], smoothing, log_y).to_numpy() if smoothing > 0 else data["value"]
    # The numbers written on the chart in the lab's one format (246,289; 95.8%; 1.88e-7), made here: Vega's d3
    # formats would write 2.463e+5.
    data["label"] = [fmt.value(v, percent) for v in data["shown"]]
    y_scale: dict = {"type": "log"} if log_y else {"zero": True}
    if percent and not log_y:
        y_scale["domain"] = {"unionWith": [0, 1]}  # a rate reads against the whole 0–100%
    x = {"field": "step", "type": "quantitative", "title": "step",
         "axis": {"format": ",d", "tickMinStep": 1}, "scale": {"zero": True}}
    axis: dict = {"format": "~%" if percent else "~g" if log_y else "~s"}  # 1.2k, 250k on a linear axis
    if log_y:
        axis["labelExpr"] = DECADES_ONLY
    elif not percent:
        axis["labelExpr"] = "datum.value === 0 ? '0' : datum.label"  # Vega gives 0 the other ticks' prefix: "0k"
    y = {"field": "shown", "type": "quantitative", "title": None, "scale": y_scale, "axis": axis}
    layers: list[dict] = []
    if smoothing > 0:
        layers.append({"mark": {"type": "line", "color": color, "opacity": 0.25},
                       "encoding": {"x": x, "y": y | {"field": "value"}}})
    layers += [
        {"mark": {"type": "line", "color": color, "point": {"color": color} if len(data) < 50 else False},
         "encoding": {"x": x, "y": y},
         "params": [{"name": "zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}]},
        # The newest value, at the end of the line: what a glance at a live chart wants to know.
        {"transform": [{"joinaggregate": [{"op": "max", "field": "step", "as": "newest"}]},
                       {"filter": "datum.step === datum.newest"}],
         "mark": {"type": "text", "align": "right", "baseline": "bottom", "dx": -4, "dy": -6, "color": color,
                  "fontWeight": "bold"},
         "encoding": {"x": x, "y": y, "text": {"field": "label"}}},
        # Hover anywhere: a rule at the nearest step, and its values.
        {"params": [{"name": "hover", "select": {"type": "point", "fields": ["step"], "nearest": True,
                                                 "on": "pointerover", "clear": "pointerout"}}],
         "mark": {"type": "rule", "color": "#888"},
         "encoding": {"x": x, "opacity": {"condition": {"param": "hover", "empty": False, "value": 0.6},
                                          "value": 0},
                      "tooltip": [{"field": "step", "type": "quantitative", "format": ",d"},
                                  {"field": "label", "title": title}]}},
    ]
    spec = {"title": title, "height": HEIGHT, "layer": layers, **EMBED}
    return data, spec


def phase_chart(phase_seconds: Mapping[str, float], steps: int, title: str = "where the time goes"
                ) -> tuple[pd.DataFrame, dict]:
    """Seconds spent in each phase of the run, one horizontal bar per phase in the loop's order, the time per step
    written beside it."""
    data = pd.DataFrame({"phase": list(phase_seconds), "seconds": [float(v) for v in phase_seconds.values()]})
    data["text"] = [f"{fmt.seconds(v)} ({fmt.seconds(v / steps)}/step)" if steps and phase not in ONCE_PHASES
                    else fmt.seconds(v) for phase, v in zip(data["phase"], data["seconds"], strict=True)]
    y = {"field": "phase", "type": "nominal", "sort": None, "title": None}
    spec = {"title": title, "height": HEIGHT, **EMBED, "encoding": {"y": y},
            "layer": [{"mark": {"type": "bar", "color": charts.PALETTE[0], "opacity": 0.35},
                       "encoding": {"x": {"field": "seconds", "type": "quantitative", "title": "seconds"},
                                    "tooltip": [{"field": "phase"}, {"field": "text", "title": "time"}]}},
                      # On the bar from its start, so the longest bar's text is not cut at the chart's edge.
                      {"mark": {"type": "text", "align": "left", "dx": 4},
                       "encoding": {"x": {"datum": 0, "type": "quantitative"}, "text": {"field": "text"}}}]}
    return data, spec
