"""HJB solver: configure from a preset (every field bound to the URL), launch, and watch a run (?run=ID)."""

import dataclasses

import streamlit as st

from rlcore.config import HJB_PRESETS, ConfigError, HJBConfig
from rlcore.runs import worker
from rlcore.runs.store import Store
from ui import forms, run_view, sidebar

store = Store()
card = sidebar.render(store)
st.title("HJB solver")

if "run" in st.query_params:
    raw = st.query_params["run"]
    if raw.isdigit():
        run_view.show_run(store, int(raw))
    else:
        st.warning(f"run must be a run id like 3, not {raw!r}.")
    st.stop()

st.caption("The neoclassical growth model's HJB equation solved by the seed's small network, judged against the "
           "exact saddle-path solution.")
preset = st.selectbox("preset", list(HJB_PRESETS), key="preset", bind="query-params")
defaults = {f.name: f.default for f in dataclasses.fields(HJBConfig)} | HJB_PRESETS[preset]
forms.check_url(HJBConfig, defaults)
no_gpu = sidebar.gpu_reason(card)
values = forms.config_form(HJBConfig, defaults, disabled={"device": f"GPU: {no_gpu}"} if no_gpu else None)
label = st.text_input("label", key="label", bind="query-params")
if st.button("Launch", type="primary", key="launch"):
    try:
        if no_gpu and values["device"] == "gpu":
            raise ConfigError(f"GPU requested but TensorFlow sees none: {no_gpu}.")
        run_id = store.create_run("hjb", HJBConfig(**values), label)
    except ConfigError as e:
        st.error(str(e))
    else:
        worker.launch(store, run_id)
        st.query_params["run"] = str(run_id)
        st.rerun()
