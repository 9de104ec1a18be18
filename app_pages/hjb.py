"""HJB solver: configure from a preset (every field bound to the URL), launch, and watch a run (?run=ID)."""

import streamlit as st

from rlcore.config import HJB_PRESETS, HJBConfig
from ui import forms, launch

store, card = launch.workload_page("HJB solver")

st.caption("The neoclassical growth model's HJB equation solved by the seed's small network, judged against the "
           "exact saddle-path solution.")
forms.check_choice("preset", list(HJB_PRESETS))
preset = st.selectbox("preset", list(HJB_PRESETS), key="preset", bind="query-params",
                      on_change=forms.reset_fields, args=(HJBConfig,))
defaults = launch.defaults_of(HJBConfig) | HJB_PRESETS[preset]
launch.config_and_launch(store, card, "hjb", HJBConfig, defaults, link={"preset": preset} if preset != "seed" else {})
