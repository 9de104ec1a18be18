"""Runs: every stored run, filters, and a comparison of the selected ones (?runs=3,5,8)."""

import streamlit as st

from rlcore import charts, views
from rlcore.runs.store import Store

store = Store()
st.title("Runs")
runs = store.list_runs()
if not runs:
    st.info("No runs yet. Start one from the shell with `python -m rlcore dqn --detach`.")
    st.stop()

table = views.runs_table(runs)
cols = st.columns(4)
chosen = {c: cols[i].multiselect(c, sorted(table[c].unique()), key=f"filter_{c}")
          for i, c in enumerate(("kind", "status", "style", "device"))}
shown = views.filter_runs(table, **chosen)
picked = st.dataframe(shown, hide_index=True, on_select="rerun", selection_mode="multi-row", key="runs_table")

ids = [int(shown.iloc[i]["id"]) for i in picked.selection.rows]
if not ids and "runs" in st.query_params:
    try:
        ids = views.parse_run_ids(st.query_params["runs"], table["id"])
    except ValueError as e:
        st.warning(str(e))
if not ids:
    st.caption("Select runs in the table to compare them.")
    st.stop()

st.subheader(f"Comparing runs {', '.join(map(str, ids))}")
metrics = store.metrics(ids)
names = sorted(metrics["name"].unique()) if len(metrics) else []
if not names:
    st.info("These runs have no metrics yet.")
    st.stop()
left, mid, right = st.columns(3)
name = left.selectbox("metric", names, index=names.index("train/loss") if "train/loss" in names else 0,
                      key="metric")
x = mid.radio("x axis", list(charts.X_AXES), horizontal=True, key="x")
smoothing = right.slider("smoothing", 0.0, 0.99, 0.6, key="smoothing")
labels = {r.id: f"{r.id}: {r.label or r.config.get('exec_mode', r.kind)}" for r in runs if r.id in ids}
st.plotly_chart(charts.metric_chart(metrics, name, labels=labels, x=x, smoothing=smoothing,
                                    log_y=name.endswith("loss")), key="compare_chart")
st.dataframe(table[table["id"].isin(ids)], hide_index=True)
st.download_button("Download these metrics (CSV)", metrics.to_csv(index=False), "metrics.csv", "text/csv")
