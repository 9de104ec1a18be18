"""The HJB solver's own view: the network's V and c against the exact solution, and the error over k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from rlcore.contract import profile_text
from rlcore.contract.profile import of_summary
from rlcore.runs import executor, service
from rlcore.runs.store import Run, Store, StoreError
from rlcore.workloads.hjb.config import GPU_QUESTION, SEED_CPU_STEPS_PER_SECOND, SEED_GPU_STEPS_PER_SECOND
from ui import access, charts, extras, fmt

KIND = "hjb"


def hjb_solution(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    summary = run.summary or {}
    if "grid_k" not in summary:
        return
    k = summary["grid_k"]
    left, right = st.columns(2)
    left.plotly_chart(solution_chart(k, summary["V"], summary["V_exact"], "V"), key=f"V_{run.id}")
    right.plotly_chart(solution_chart(k, summary["c"], summary["c_exact"], "c"), key=f"c_{run.id}")
    err_v = [abs(v / e - 1) for v, e in zip(summary["V"], summary["V_exact"], strict=True)]
    err_c = [abs(c / e - 1) for c, e in zip(summary["c"], summary["c_exact"], strict=True)]
    st.plotly_chart(error_over_k_chart(k, err_v, err_c), key=f"errk_{run.id}")


# ---------------------------------------------------------------- its charts

def solution_chart(k: np.ndarray, network: np.ndarray, exact: np.ndarray, what: str) -> go.Figure:
    """The network's V(k) or c(k) against the exact solution."""
    # The network's line broad and light, the exact one thin, dashed and on top: where they agree both show.
    fig = go.Figure([go.Scatter(x=k, y=network, mode="lines", name="network",
                                line={"width": 6, "color": charts.PALETTE[0]}, opacity=0.45),
                     go.Scatter(x=k, y=exact, mode="lines", name="exact", line={"width": 2, "color": "#222",
                                                                                 "dash": "dash"})])
    fig.update_layout(modebar=charts.MODEBAR, title=f"{what}(k): the network against the exact solution",
                      xaxis_title="capital k",
                      margin=charts.MARGIN_WITH_LEGEND, legend=charts.LEGEND, hovermode="x unified")
    return fig


def error_over_k_chart(k: np.ndarray, rel_err_v: np.ndarray, rel_err_c: np.ndarray) -> go.Figure:
    """Relative error of V and c along k, log scale: where the network is wrong."""
    fig = go.Figure([go.Scatter(x=k, y=rel_err_v, mode="lines", name="V"),
                     go.Scatter(x=k, y=rel_err_c, mode="lines", name="c")])
    fig.update_layout(modebar=charts.MODEBAR, title="relative error over k", xaxis_title="capital k",
                      yaxis=charts.y_axis(pd.Series(np.concatenate([rel_err_v, rel_err_c])), log_y=True, percent=True),
                      margin=charts.MARGIN_WITH_LEGEND, legend=charts.LEGEND, hovermode="x unified")
    return fig


# ---------------------------------------------------------------- the GPU question

MEASURE_IT = """# on your GPU machine, around a few steps of your own script after warm-up:
tf.profiler.experimental.start("logs")
...                                  # 20 training steps
tf.profiler.experimental.stop()
# then, here or there:
rlcore why logs/"""


def gpu_question_section(store: Store) -> None:
    """Home's second question in one click: the seed's HJB set-up, profiled, opened on its answer."""
    if not access.is_operator():
        return
    st.markdown("**Reproduce the GPU question**: trains the seed's HJB set-up (its own network, batch and one step "
                f"per call) for {GPU_QUESTION['steps']:,} steps, profiles {GPU_QUESTION['profile']} of them, and "
                "opens the run on its answer: what a GPU step would pay in launches against this CPU's step, beside "
                "the seed's own numbers. A few seconds after TensorFlow starts.")
    if st.button("Reproduce the GPU question", key="reproduce_gpu") and access.require_operator("launch runs"):
        try:
            run_id = service.create_run(store, KIND, GPU_QUESTION, label="the GPU question: the seed's HJB",
                                        preset="seed", executor=executor.current())
        except StoreError as e:
            st.error(fmt.md(str(e), 400))
            st.stop()
        executor.submit(store, [run_id])
        st.switch_page("app_pages/runs.py", query_params={"run": str(run_id)})


def gpu_answer(store: Store, run: Run) -> None:
    """A profiled HJB run's answer to the GPU question, first: the estimate on this machine (labelled so), the
    seed's own measured numbers beside it, and how to measure it on one's own GPU."""
    profile = of_summary(run.summary)
    gpu = profile.gpu_estimate if profile is not None and profile.ok else None
    if gpu is None:
        return
    st.subheader("Why is my GPU slower than my CPU?", anchor="gpu-question")
    st.markdown(fmt.md(profile_text.gpu_sentence(gpu), 600))
    seed_cpu, seed_gpu = 1 / SEED_CPU_STEPS_PER_SECOND, 1 / SEED_GPU_STEPS_PER_SECOND
    left, mid, right = st.columns(3)
    left.metric("this CPU's step" + ("" if gpu.measured else f" ({gpu.cpu_basis or 'mean'})"),
                f"{gpu.cpu_step_seconds * 1e3:.2f} ms")
    low, high = gpu.range_seconds_per_step
    mid.metric("the GPU's step (measured)" if gpu.measured else "a GPU step (estimate)",
               fmt.seconds(gpu.measured_step_seconds) if gpu.measured else f"{fmt.seconds(low)} – {fmt.seconds(high)}")
    right.metric("the seed's own: CPU / GPU", f"{seed_cpu * 1e3:.2f} ms / {seed_gpu * 1e3:.2f} ms",
                 help=f"Seed 2's tqdm over its 100,000 steps: {SEED_CPU_STEPS_PER_SECOND:,.0f} it/s without a GPU, "
                      f"{SEED_GPU_STEPS_PER_SECOND:,.0f} it/s with one ({seed_gpu / seed_cpu:.1f}x slower).")
    st.caption("An estimate where no GPU was measured: the launches and copies the profile counted, at published "
               "costs (" + "; ".join(gpu.sources)[:300] + "). To measure it on your own GPU, capture a few steps there "
               "and read the capture here (the Captures page, or rlcore why):")
    if run.config.get("steps", 0) < 10_000:
        st.caption(f"{run.config.get('steps', 0):,} steps time a step; they do not solve the equation (its error "
                   "below says so): the accurate preset does.")
    st.code(MEASURE_IT, language="python")


extras.register(KIND, extras.WorkloadViews(finished=hjb_solution, home=gpu_question_section, headline=gpu_answer))
