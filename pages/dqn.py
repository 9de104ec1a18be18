"""Gridworld DQN: configure (every field bound to the URL), launch, and watch a run (?run=ID)."""

import dataclasses

import streamlit as st

from rlcore.config import ConfigError, DQNConfig
from rlcore.runs import worker
from rlcore.runs.store import Store
from ui import forms, run_view, sidebar

store = Store()
card = sidebar.render(store)
st.title("Gridworld DQN")

if "run" in st.query_params:
    raw = st.query_params["run"]
    if raw.isdigit():
        run_view.show_run(store, int(raw))
    else:
        st.warning(f"run must be a run id like 3, not {raw!r}.")
    st.stop()

st.caption("The book's chapter-3 DQN: replay memory, target network, the 1000-game win-rate test. "
           "Defaults are the book's values.")
defaults = {f.name: f.default for f in dataclasses.fields(DQNConfig)}
forms.check_url(DQNConfig, defaults)
no_gpu = sidebar.gpu_reason(card)
if no_gpu and st.query_params.get("device") == "gpu":
    st.warning(f"device gpu is not available here ({no_gpu}); the default cpu is shown.")
values = forms.config_form(DQNConfig, defaults, disabled={"device": f"GPU: {no_gpu}"} if no_gpu else None)
label = st.text_input("label", key="label", bind="query-params")
if st.button("Launch", type="primary", key="launch"):
    try:
        if no_gpu and values["device"] == "gpu":
            raise ConfigError(f"GPU requested but TensorFlow sees none: {no_gpu}.")
        run_id = store.create_run("dqn", DQNConfig(**values), label)
    except ConfigError as e:
        st.error(str(e))
    else:
        worker.launch(store, run_id)
        st.query_params["run"] = str(run_id)
        st.rerun()
