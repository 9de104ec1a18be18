"""TF Training Lab: the router. Pages are thin views over rlcore; training never runs in this process."""

import streamlit as st


def run() -> None:
    # A function, so tests can drive the router (Streamlit's hello app does the same).
    st.set_page_config(page_title="TF Training Lab", page_icon="🧪", layout="wide")
    pages = [
        st.Page("pages/home.py", title="Home", icon="🏠", default=True),
        st.Page("pages/dqn.py", title="Gridworld DQN", icon="🎮", url_path="dqn"),
        st.Page("pages/hjb.py", title="HJB solver", icon="📈", url_path="hjb"),
        st.Page("pages/runs.py", title="Runs", icon="📋", url_path="runs"),
    ]
    st.navigation(pages).run()


run()
