"""HJB solver: configure from a preset (every field bound to the URL), launch, and watch a run (?run=ID)."""

import dataclasses

import streamlit as st

from rlcore.config import HJB_PRESETS, HJBConfig
from rlcore.runs.store import Store
from ui import forms, launch, sidebar

store = Store()
card = sidebar.device_card()
st.title("HJB solver")
if launch.run_from_url(store):
    st.stop()

st.caption("The neoclassical growth model's HJB equation solved by the seed's small network, judged against the "
           "exact saddle-path solution.")
forms.check_choice("preset", list(HJB_PRESETS))
preset = st.selectbox("preset", list(HJB_PRESETS), key="preset", bind="query-params",
                      on_change=forms.reset_fields, args=(HJBConfig,))
defaults = {f.name: f.default for f in dataclasses.fields(HJBConfig)} | HJB_PRESETS[preset]
launch.config_and_launch(store, card, "hjb", HJBConfig, defaults, link={"preset": preset} if preset != "seed" else {})
