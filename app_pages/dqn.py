"""Gridworld DQN: configure (every field bound to the URL), launch, and watch a run (?run=ID)."""

import dataclasses

import streamlit as st

from rlcore.config import DQNConfig
from rlcore.runs.store import Store
from ui import launch, sidebar

store = Store()
card = sidebar.device_card()
st.title("Gridworld DQN")
if launch.run_from_url(store):
    st.stop()

st.caption("The book's chapter-3 DQN: replay memory, target network, the 1000-game win-rate test. "
           "Defaults are the book's values.")
defaults = {f.name: f.default for f in dataclasses.fields(DQNConfig)}
launch.config_and_launch(store, card, "dqn", DQNConfig, defaults)
