"""The HJB solver's own view: the network's V and c against the exact solution, and the error over k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from rlcore.runs.store import Run, Store
from ui import charts, extras

KIND = "hjb"


def hjb_solution(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    summary = run.summary or {}
    if "grid_k" not in summary:
        return
    k = summary["grid_k"]
    left, right = st.columns(2)
    left.plotly_chart(solution_chart(k, summary["V"], summary["V_exact"], "V"), key=f"V_{run.id}")
    right.plotly_chart(solution_chart(k, summary["c"], summary["c_exact"], "c"), key=f"c_{run.id}")
    err_v = [abs(v / e - 1) for v, e in zip(summary["V"], summary["V_exact"], strict=True)]
    err_c = [abs(c / e - 1) for c, e in zip(summary["c"], summary["c_exact"], strict=True)]
    st.plotly_chart(error_over_k_chart(k, err_v, err_c), key=f"errk_{run.id}")


# ---------------------------------------------------------------- its charts

def solution_chart(k: np.ndarray, network: np.ndarray, exact: np.ndarray, what: str) -> go.Figure:
    """The network's V(k) or c(k) against the exact solution."""
    # The network's line broad and light, the exact one thin, dashed and on top: where they agree both show.
    fig = go.Figure([go.Scatter(x=k, y=network, mode="lines", name="network",
                                line={"width": 6, "color": charts.PALETTE[0]}, opacity=0.45),
                     go.Scatter(x=k, y=exact, mode="lines", name="exact", line={"width": 2, "color": "#222",
                                                                                 "dash": "dash"})])
    fig.update_layout(modebar=charts.MODEBAR, title=f"{what}(k): the network against the exact solution",
                      xaxis_title="capital k",
                      margin=charts.MARGIN_WITH_LEGEND, legend=charts.LEGEND, hovermode="x unified")
    return fig


def error_over_k_chart(k: np.ndarray, rel_err_v: np.ndarray, rel_err_c: np.ndarray) -> go.Figure:
    """Relative error of V and c along k, log scale: where the network is wrong."""
    fig = go.Figure([go.Scatter(x=k, y=rel_err_v, mode="lines", name="V"),
                     go.Scatter(x=k, y=rel_err_c, mode="lines", name="c")])
    fig.update_layout(modebar=charts.MODEBAR, title="relative error over k", xaxis_title="capital k",
                      yaxis=charts.y_axis(pd.Series(np.concatenate([rel_err_v, rel_err_c])), log_y=True, percent=True),
                      margin=charts.MARGIN_WITH_LEGEND, legend=charts.LEGEND, hovermode="x unified")
    return fig


extras.register(KIND, extras.WorkloadViews(finished=hjb_solution))
