"""Benchmark lab: time TensorFlow patterns per batch size, width and device; see why; find the crossover."""

import dataclasses

import streamlit as st

from rlcore import bench
from rlcore.config import BENCH_DEFAULTS, BENCH_PATTERNS, BenchConfig
from ui import forms, launch

store, card = launch.workload_page("Benchmark lab")

st.caption("Each pattern is timed on its own: the first call (trace and compile) apart, then repeated runs whose "
           "median and spread are reported. Each device runs in its own process. Several batch sizes on CPU and "
           "GPU give the crossover: the batch from which the GPU wins.")
forms.check_choice("workload", list(BENCH_PATTERNS))
workload = st.selectbox("workload", list(BENCH_PATTERNS), key="workload", bind="query-params",
                        on_change=forms.reset_fields, args=(BenchConfig, ("patterns", "batch", "width")),
                        help=dataclasses.fields(BenchConfig)[0].metadata["help"])
with st.expander(f"The patterns of {workload} and why they differ"):
    for name in BENCH_PATTERNS[workload]:
        example = name.replace("kN", "k100")
        st.markdown(f"**{name}** — {bench.pattern(workload, example).why}")
defaults = launch.defaults_of(BenchConfig) | BENCH_DEFAULTS[workload]
defaults["workload"] = workload
launch.config_and_launch(store, card, "bench", BenchConfig, defaults, link={"workload": workload})
