"""One run's live view: status, progress, cancel, charts while it runs; summary, downloads, replays after."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from rlcore import charts, report
from rlcore.gridworld import Board, render
from rlcore.runs.store import ACTIVE, Run, Store
from rlcore.runs.worker import cancel
from ui import bench_view, share


def _last(metrics: pd.DataFrame, name: str) -> float | None:
    rows = metrics[metrics["name"] == name]
    return float(rows["value"].iloc[-1]) if len(rows) else None


def _progress(run: Run, metrics: pd.DataFrame) -> float:
    if run.status not in ACTIVE:
        return 1.0 if run.status == "done" else 0.0
    if run.kind == "dqn" and run.config["exec_mode"] == "turbo":  # turbo trains for a time, not a game count
        return min(1.0, (_last(metrics, report.PHASE_PREFIX + "in-graph") or 0.0) / (run.config["train_seconds"] or 1))
    if run.kind == "dqn":
        return min(1.0, (_last(metrics, report.GAMES) or 0.0) / run.config["epochs"])
    if run.kind == "bench":
        return bench_view.progress(run, metrics)
    steps = metrics["step"].max() if len(metrics) else 0
    return min(1.0, float(steps) / run.config["steps"])


def _charts(run: Run, metrics: pd.DataFrame) -> None:
    smoothing = st.slider("loss smoothing (EMA)", 0.0, 0.99, 0.6, key=f"smooth_{run.id}")
    left, right = st.columns(2)
    left.plotly_chart(charts.metric_chart(metrics, report.LOSS, smoothing=smoothing, log_y=True, title="loss"),
                      key=f"loss_{run.id}")
    speed = report.ENV_STEPS_PER_S if run.kind == "dqn" else report.STEPS_PER_S
    right.plotly_chart(charts.metric_chart(metrics, speed, title="steps per second"), key=f"speed_{run.id}")
    if run.kind == "dqn":
        left.plotly_chart(charts.metric_chart(metrics, report.WIN_RATE, title="win rate (book test)"),
                          key=f"win_{run.id}")
        phases = {n[len(report.PHASE_PREFIX):]: _last(metrics, n) or 0.0
                  for n in sorted(metrics["name"].unique()) if n.startswith(report.PHASE_PREFIX)}
        steps = int(metrics["step"].max()) if len(metrics) else 0
        if phases:
            right.plotly_chart(charts.phase_chart(phases, steps), key=f"phase_{run.id}")
    else:
        left.plotly_chart(charts.metric_chart(metrics, report.HJB_MAX_REL_ERR_C, log_y=True,
                                              title="max relative error of c over time"), key=f"errc_{run.id}")


def _finished(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    summary = run.summary or {}
    if run.kind == "dqn" and summary:
        cols = st.columns(3)
        cols[0].metric("win rate", f"{summary['win_rate']:.1%}")
        cols[1].metric("env steps/s", f"{summary['steps_per_second']:.0f}")
        cols[2].metric("training wall time", f"{summary['train_seconds']:.1f} s")
        _replays(store, run)
    elif run.kind == "hjb" and summary:
        cols = st.columns(3)
        cols[0].metric("max rel. error of V", f"{summary['max_rel_err_V']:.3%}")
        cols[1].metric("max rel. error of c", f"{summary['max_rel_err_c']:.3%}")
        cols[2].metric("steps/s", f"{summary['steps_per_second']:.0f}")
        k = summary["grid_k"]
        left, right = st.columns(2)
        left.plotly_chart(charts.solution_chart(k, summary["V"], summary["V_exact"], "V"), key=f"V_{run.id}")
        right.plotly_chart(charts.solution_chart(k, summary["c"], summary["c_exact"], "c"), key=f"c_{run.id}")
        err_v = [abs(v / e - 1) for v, e in zip(summary["V"], summary["V_exact"], strict=True)]
        err_c = [abs(c / e - 1) for c, e in zip(summary["c"], summary["c_exact"], strict=True)]
        st.plotly_chart(charts.error_over_k_chart(k, err_v, err_c), key=f"errk_{run.id}")
    with st.expander("Environment card"):
        st.json(run.environment or {})
    st.download_button("Metrics (CSV)", metrics.drop(columns="rowid").to_csv(index=False),
                       f"run{run.id}_metrics.csv", "text/csv", key=f"csv_{run.id}")
    model = store.run_dir(run.id) / "model.keras"
    if model.exists():
        st.download_button("Model (.keras)", model.read_bytes(), f"run{run.id}.keras", key=f"model_{run.id}")


def _replays(store: Store, run: Run) -> None:
    path = store.run_dir(run.id) / "replays.json"
    if not path.exists():
        return
    games = json.loads(path.read_text())
    st.subheader("Watch the agent play")
    game = games[st.selectbox("game", range(len(games)), format_func=lambda i: f"seed {i}", key=f"game_{run.id}")]
    outcome = "won" if game["won"] else "lost"
    captions = ["start"] + [f"move {i + 1}: {name}, reward {reward:+g}" for i, (name, reward)
                            in enumerate(zip(game["action_names"], game["rewards"], strict=True))]
    captions[-1] += f" — {outcome}"
    left, right = st.columns([1, 1])
    left.plotly_chart(charts.board_chart(game["boards"], captions), key=f"board_{run.id}", width="content")
    right.caption(f"The trained agent {outcome} this seeded game in {len(game['actions'])} moves. Press Play, or drag "
                  "the slider to step through it. P player, + goal, − pit, W wall.")
    right.code("\n".join(render(Board(**{k: tuple(v) for k, v in game["boards"][0].items()}))), language=None)
    right.caption("The start as the book prints it.")


REFRESH_SECONDS = {"1s": 1.0, "5s": 5.0, "paused": None}


def live_metrics(store: Store, run_id: int) -> pd.DataFrame:
    """The run's metrics so far; each call reads only the rows appended since the previous one (per session)."""
    key = f"_metrics_{run_id}"
    seen = st.session_state.get(key)
    last = int(seen["rowid"].iloc[-1]) if seen is not None and len(seen) else 0
    new = store.metrics_after(run_id, last)
    if seen is None or seen.empty:
        seen = new
    elif not new.empty:
        seen = pd.concat([seen, new], ignore_index=True)
    st.session_state[key] = seen
    return seen


def show_run(store: Store, run_id: int) -> None:
    run = store.get_run(run_id)
    if run is None:
        st.warning(f"run {run_id} does not exist.")
        return

    every = None
    if run.status in ACTIVE:
        # Watching is not free on a small machine (the browser redraws every chart each tick; see the README),
        # so the refresh period is the user's choice.
        refresh = st.radio("live refresh", list(REFRESH_SECONDS), horizontal=True, key="refresh",
                           bind="query-params", help="How often the charts below redraw while the run lives.")
        every = REFRESH_SECONDS[refresh]

    @st.fragment(run_every=every)
    def live() -> None:
        current = store.get_run(run_id)
        metrics = live_metrics(store, run_id)
        with st.container(horizontal=True, vertical_alignment="center"):
            what = current.label or current.config.get("exec_mode") or current.config.get("workload", "")
            st.subheader(f"Run {current.id}: {what} — {current.status}", width="content")
            share.share_button({"run": run_id}, f"run {run_id}")
        if current.error:
            st.error(current.error)
        st.progress(_progress(current, metrics))
        if current.status in ACTIVE:
            if st.button("Cancel this run", key=f"cancel_{run_id}"):
                cancel(store, run_id)
                st.rerun()
        elif run.status in ACTIVE:
            st.rerun()  # it just ended: a full rerun stops the timer and shows the summary
        if current.kind == "bench":
            bench_view.show(current, bench_view.cells_so_far(current, metrics))
        elif len(metrics):
            _charts(current, metrics)
        elif current.status in ACTIVE:
            st.caption("Waiting for the worker's first numbers (TensorFlow starts in a few seconds)…")

    live()
    if run.status not in ACTIVE:
        _finished(store, run, live_metrics(store, run_id))
