"""Gridworld DQN: configure (every field bound to the URL), launch, and watch a run (?run=ID)."""

import streamlit as st

from rlcore.config import DQNConfig
from ui import launch

store, card = launch.workload_page("Gridworld DQN")

st.caption("The book's chapter-3 DQN: replay memory, target network, the 1000-game win-rate test. "
           "Defaults are the book's values.")
defaults = launch.defaults_of(DQNConfig)
launch.config_and_launch(store, card, "dqn", DQNConfig, defaults)
