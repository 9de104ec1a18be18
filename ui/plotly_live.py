"""Plotly charts drawn in place: a small component that owns one chart and calls ``Plotly.react`` on it whenever
its figure changes, so a live chart keeps its DOM node and only its data is swapped.

Why not ``st.plotly_chart`` for live charts: Streamlit 1.67 hashes a Plotly figure into its element id, so a chart
whose data changed is unmounted and drawn from scratch on every tick (streamlit/streamlit#16052), which on a small
machine costs the watched run its speed (docs/measurements/live_view_cost.md). This component is mounted once per
key; each rerun hands it the new figure and its script calls ``Plotly.react``, which updates the drawn chart.

plotly.js comes from the installed ``plotly`` package (its ``package_data/plotly.min.js``): no CDN, so the lab works
offline. The page loads it once, whatever the number of charts, and the browser keeps it: a copy under the app's
``static/`` folder (Streamlit's static serving sends it with a validator, so a page opened again revalidates and
reuses the compiled script; 4.8 MB parsed anew on every page open cost a short run several percent of its speed,
docs/measurements/live_view_cost.md). Where that folder cannot be written, the component route (no validator).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import plotly
import plotly.graph_objects as go
import streamlit.components.v1 as components_v1
import streamlit.components.v2 as components_v2

from ui.charts import PALETTE

# A component declared only for its folder: Streamlit serves the files of a declared component's folder, and this
# one is the installed plotly package's, which holds plotly.min.js.
PACKAGE_DATA = Path(plotly.__file__).parent / "package_data"
_PLOTLY_JS = components_v1.declare_component("rlcore_plotly_js", path=str(PACKAGE_DATA))
STATIC = Path(__file__).resolve().parents[1] / "static"  # beside app.py: Streamlit serves it at app/static/


def _same_content(a: Path, b: Path) -> bool:
    """Whether two files hold the same bytes (by their SHA-256: a file of the right size but other content, a
    script put in its place, is not the copy)."""
    import hashlib

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    return a.stat().st_size == b.stat().st_size and digest(a) == digest(b)


def _plotly_src() -> str:
    """Where pages load plotly.js from, relative (any base path the app is served under): the copy in ``static/``,
    named by plotly's version so an upgrade is a new address, made here if missing or not the installed file's
    bytes; else the component route."""
    installed = PACKAGE_DATA / "plotly.min.js"
    copy = STATIC / f"plotly-{plotly.__version__}.min.js"
    try:
        if not copy.exists() or not _same_content(copy, installed):
            STATIC.mkdir(exist_ok=True)
            part = copy.with_name(f".{copy.name}.{os.getpid()}")
            shutil.copy2(installed, part)  # its modification time too: the browser's heuristic freshness reads it
            part.replace(copy)  # whole or absent, whoever else is copying
    except OSError:
        return f"./component/{_PLOTLY_JS.name}/plotly.min.js"
    return f"./app/static/{copy.name}"


PLOTLY_SRC = _plotly_src()

_JS = """
export default async function (component) {
  const { data, parentElement } = component;
  if (!window.Plotly) {
    window.__rlcorePlotly = window.__rlcorePlotly || new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = data.src;
      script.onload = resolve;
      script.onerror = () => reject(new Error("plotly.js could not be loaded from " + data.src));
      document.head.appendChild(script);
    });
    await window.__rlcorePlotly;
  }
  let chart = parentElement.querySelector("div.rlcore-chart");
  if (!chart) {
    chart = document.createElement("div");
    chart.className = "rlcore-chart";
    chart.setAttribute("data-testid", "rlcoreChart");
    parentElement.appendChild(chart);
  }
  chart.setAttribute("data-title", data.title || "");
  // The figure arrives as Plotly's own JSON text: parsed here once, and not at all when it is the text this chart
  // already shows (a rerun re-sends every chart; only the ones whose data changed are drawn again).
  if (chart.__rlcoreFigure === data.figure) {
    return;
  }
  chart.__rlcoreFigure = data.figure;
  const figure = JSON.parse(data.figure);
  await window.Plotly.react(chart, figure.data, figure.layout, data.config);
}
"""
_CHART = components_v2.component("rlcore.plotly_chart", js=_JS, isolate_styles=False)

# What a user of TensorBoard or W&B expects of a chart: scroll to zoom (on x: the y axis is fixed), double-click to
# reset, the camera button for a PNG, no Plotly logo; charts follow the page's width.
CONFIG = {"responsive": True, "scrollZoom": True, "doubleClick": "reset+autosize", "displaylogo": False,
          "modeBarButtonsToRemove": ["select2d", "lasso2d"], "toImageButtonOptions": {"format": "png", "scale": 2}}


# The look of a chart drawn here. Not Streamlit's Plotly template (plotly's default once streamlit is imported): it
# holds colour placeholders (#000001, ...) that only st.plotly_chart swaps for the theme's, so drawn here a chart
# without colours of its own came out near-black; and it is 3.5 kB more to send on every tick.
TEMPLATE = {"layout": {"font": {"family": '"Source Sans", "Source Sans Pro", sans-serif', "color": "#31333f"},
                       "colorway": list(PALETTE)}}


def figure_data(fig: go.Figure | dict[str, Any]) -> str:
    """A figure as the JSON text the component takes: Plotly's own serialisation (orjson, numpy arrays included),
    handed over as text so that it is not decoded here and encoded again for the browser on every tick. A Figure is
    given this component's TEMPLATE."""
    if isinstance(fig, go.Figure):
        fig.layout.template = TEMPLATE
        # A zoom, a pan or a legend click stays while new rows arrive (Plotly.react keeps what the user changed as
        # long as uirevision does not), as TensorBoard keeps it across reloads; double-click resets.
        fig.layout.uirevision = "kept"
        return fig.to_json()
    return json.dumps(fig)


def chart(fig: go.Figure | dict[str, Any] | str, key: str, title: str = "") -> None:
    """Draw ``fig`` under ``key``: the first time a new chart, afterwards the same chart updated in place.
    ``title`` names the chart for people and tests (``data-title`` on its node) whatever its figure's title."""
    data = fig if isinstance(fig, str) else figure_data(fig)
    _CHART(data={"figure": data, "src": PLOTLY_SRC, "config": CONFIG, "title": title}, key=key)
