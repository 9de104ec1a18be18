"""Runs: every stored run with filters; tick runs (or open ?runs=3,5,8) to compare or delete them; ?run=ID shows one."""

import streamlit as st

from ui import access, compare, run_view, runs_table, views

# The router reads this (without running the page): its place in the menu, where it is defined.
PAGE = {"title": "Runs", "icon": ":material/table_rows:", "url_path": "runs", "order": 90}

store = access.store()
st.title("Runs")
if run_view.show_from_url(store):
    st.stop()
runs = store.list_runs()
if not runs:
    st.info(views.no_runs_yet())
    st.stop()

runs_table.delete_problems()
ids = runs_table.show(store, runs)
if not ids:
    st.caption("Tick runs in the table to compare or delete them.")
    st.stop()
head = st.container(horizontal=True, vertical_alignment="center")
head.subheader(f"Comparing {len(ids)} run{'s' if len(ids) != 1 else ''}" if len(ids) > 1 else "One run ticked",
              width="content")
if access.is_operator():
    with head:
        runs_table.delete_control(store, [r for r in runs if r.id in ids])
compare.show(store, ids)
