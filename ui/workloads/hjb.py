"""The HJB solver's own view: the network's V and c against the exact solution, and the error over k."""

from __future__ import annotations

import pandas as pd
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
    left.plotly_chart(charts.solution_chart(k, summary["V"], summary["V_exact"], "V"), key=f"V_{run.id}")
    right.plotly_chart(charts.solution_chart(k, summary["c"], summary["c_exact"], "c"), key=f"c_{run.id}")
    err_v = [abs(v / e - 1) for v, e in zip(summary["V"], summary["V_exact"], strict=True)]
    err_c = [abs(c / e - 1) for c, e in zip(summary["c"], summary["c_exact"], strict=True)]
    st.plotly_chart(charts.error_over_k_chart(k, err_v, err_c), key=f"errk_{run.id}")


extras.register(KIND, extras.Extras(finished=hjb_solution))
