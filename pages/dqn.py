"""Gridworld DQN: configure (every field bound to the URL), launch, and watch a run (?run=ID)."""

import dataclasses

import streamlit as st

from rlcore.config import DQNConfig
from rlcore.runs.store import Store
from ui import forms, launch, sidebar

store = Store()
card = sidebar.render(store)
st.title("Gridworld DQN")
if launch.run_from_url(store):
    st.stop()

st.caption("The book's chapter-3 DQN: replay memory, target network, the 1000-game win-rate test. "
           "Defaults are the book's values.")
defaults = {f.name: f.default for f in dataclasses.fields(DQNConfig)}
forms.check_url(DQNConfig, defaults)
no_gpu = sidebar.gpu_reason(card)
if no_gpu and st.query_params.get("device") == "gpu":
    st.warning(f"device gpu is not available here ({no_gpu}); the default cpu is shown.")
values = forms.config_form(DQNConfig, defaults, disabled={"device": f"GPU: {no_gpu}"} if no_gpu else None)
launch.launch_button(store, "dqn", DQNConfig, values, no_gpu)
