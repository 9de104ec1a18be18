"""Sweeps: describe a grid or random search once (any setting × seeds), launch it, read which setting wins."""

import streamlit as st

from ui import access, sweep_form, sweep_view

# The router reads this (without running the page): its place in the menu, where it is defined.
PAGE = {"title": "Sweeps", "icon": ":material/grid_on:", "url_path": "sweeps", "order": 80}

store = access.store()
st.title("Sweeps")
if not sweep_view.show_from_url(store):
    sweep_view.listing(store)
    st.subheader("A new sweep")
    st.caption("Each setting holds one value, several separated by commas (every combination runs: a grid), or a "
               "range drawn at random (log:1e-4:1e-2). Every setting runs once per seed; the members queue like "
               "single runs, and the view below them says which setting wins and by how much.")
    sweep_form.launch_section(store, sweep_form.form())
