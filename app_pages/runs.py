"""Runs: every stored run, filters, a comparison of the selected ones (?runs=3,5,8), share and delete."""

import streamlit as st

from rlcore import charts, views
from rlcore.runs.store import Store
from ui import share, tables

store = Store()
st.title("Runs")
runs = store.list_runs()
if not runs:
    st.info("No runs yet. Launch one on the Gridworld DQN or HJB page, or from the shell with "
            "`python -m rlcore dqn --detach`.")
    st.stop()


def delete_runs(ids: list[int]) -> None:
    """The confirmation's callback: delete what can be, and say in one sentence per run what could not."""
    problems = []
    for run_id in ids:
        try:
            store.delete_run(run_id)
        except ValueError as e:
            problems.append(str(e))
    st.session_state["delete_problems"] = problems
    for key in ("confirm_delete", "runs_table"):  # the table's selection would now point at other rows
        st.session_state.pop(key, None)
    st.query_params.pop("runs", None)


for problem in st.session_state.pop("delete_problems", []):
    st.warning(problem)

table = views.runs_table(runs)
cols = st.columns(5)
chosen = {c: cols[i].multiselect(c, sorted(table[c].unique()), key=f"filter_{c}")
          for i, c in enumerate(("kind", "status", "style", "device"))}
label_text = cols[4].text_input("label contains", key="filter_label")
shown = views.filter_runs(table, **chosen, label_contains=label_text)
picked = st.dataframe(shown, hide_index=True, on_select="rerun", selection_mode="multi-row", key="runs_table",
                      column_config=tables.RUN_COLUMNS)

ids = [int(shown.iloc[i]["id"]) for i in picked.selection.rows]
if not ids and "runs" in st.query_params:
    try:
        ids = views.parse_run_ids(st.query_params["runs"], table["id"])
    except ValueError as e:
        st.warning(str(e))
if not ids:
    st.caption("Select runs in the table to compare or delete them.")
    st.stop()

head = st.container(horizontal=True, vertical_alignment="center")
head.subheader(f"Comparing runs {', '.join(map(str, ids))}", width="content")
share_slot = head.empty()  # filled once the chart controls below are known
if head.button("Delete…", icon=":material/delete:", key="delete"):
    st.session_state["confirm_delete"] = ids
if st.session_state.get("confirm_delete") == ids:
    with st.container(border=True):
        st.write(f"Delete run{'s' if len(ids) > 1 else ''} {', '.join(map(str, ids))} with their metrics, models and "
                 "replays? This cannot be undone.")
        yes, no, _ = st.columns([1, 1, 6])
        yes.button("Delete", type="primary", key="confirm_delete_yes", on_click=delete_runs, args=(ids,))
        no.button("Keep them", key="confirm_delete_no", on_click=st.session_state.pop, args=("confirm_delete", None))
metrics = store.metrics(ids)
names = sorted(metrics["name"].unique()) if len(metrics) else []
if not names:
    st.info("These runs have no metrics yet.")
    st.stop()
left, mid, right = st.columns(3)
name = left.selectbox("metric", names, index=names.index("train/loss") if "train/loss" in names else 0,
                      key="metric", bind="query-params")
x = mid.radio("x axis", list(charts.X_AXES), horizontal=True, key="x", bind="query-params")
smoothing = right.slider("smoothing", 0.0, 0.99, 0.6, key="smoothing", bind="query-params")
with share_slot:
    share.share_button({"runs": ids, "metric": name, "x": x, "smoothing": smoothing}, "this comparison")
labels = {r.id: f"{r.id}: {r.label or r.config.get('exec_mode', r.kind)}" for r in runs if r.id in ids}
st.plotly_chart(charts.metric_chart(metrics, name, labels=labels, x=x, smoothing=smoothing,
                                    log_y=name.endswith("loss")), key="compare_chart")
st.dataframe(table[table["id"].isin(ids)], hide_index=True, column_config=tables.RUN_COLUMNS)
st.download_button("Download these metrics (CSV)", metrics.to_csv(index=False), "metrics.csv", "text/csv")
