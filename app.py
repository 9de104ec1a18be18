"""TF Training Lab: the router. Pages are thin views over rlcore; training never runs in this process."""

from pathlib import Path

import streamlit as st

from rlcore.runs.store import Store
from ui import forms, sidebar

# A local file: a Material or emoji tab icon is fetched from a CDN, which offline machines cannot reach.
ICON = Path(__file__).parent / "assets" / "icon.png"


def run() -> None:
    # A function, so tests can drive the router (Streamlit's hello app does the same).
    st.set_page_config(page_title="TF Training Lab", page_icon=str(ICON), layout="wide")
    # Material icons ship with Streamlit's frontend; emoji need a system font that headless browsers lack.
    pages = [
        st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("app_pages/dqn.py", title="Gridworld DQN", icon=":material/grid_view:", url_path="dqn"),
        st.Page("app_pages/hjb.py", title="HJB solver", icon=":material/show_chart:", url_path="hjb"),
        st.Page("app_pages/bench.py", title="Benchmark lab", icon=":material/speed:", url_path="bench"),
        st.Page("app_pages/runs.py", title="Runs", icon=":material/table_rows:", url_path="runs"),
    ]
    page = st.navigation(pages)
    forms.forget_other_pages(page.url_path)
    sidebar.render(Store())
    page.run()


run()
