"""The Gridworld DQN's own views: the trained agent's replayed games, the seed question's reproduction on Home, and
the seed question's headline when a comparison holds the PyTorch original."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from rlcore.contract import frameworks
from rlcore.contract.profile import Cause, of_summary
from rlcore.contract.status import RunStatus
from rlcore.contract.summary import RunSummary
from rlcore.contract.summary import of as summary_of
from rlcore.contract.workloads import Headline
from rlcore.runs import executor, service
from rlcore.runs.store import Run, Store, StoreError
from rlcore.workloads.dqn.bench_patterns import ACT
from rlcore.workloads.dqn.config import Style
from rlcore.workloads.dqn.gridworld import Board, render
from rlcore.workloads.dqn.metrics import GAMES
from ui import access, charts, extras, fmt

KIND = "dqn"
STYLE = "exec_mode"
# The seed's question in small: the same short DQN in the slow port's style and compiled. The port is profiled (its
# moves, after warm-up) so the answer says why in the code's words; a bench of picking an action backs the finding
# about model.predict with a measurement of its own.
SEED_QUESTION = {"epochs": 15, "eval_every": 0, "test_games": 200}
SEED_PROFILE = {Style.NAIVE: 8}
BENCH = "bench"
SEED_BENCH = {"workload": ACT, "patterns": "predict,tf-function", "batch": "1", "repeats": 3, "min_seconds": 0.3}
SEED_QUESTION_LABELS = {Style.NAIVE: "your port (naive)", Style.PYTORCH: "the PyTorch original", Style.GRAPH: "graph"}


def seed_question_styles() -> tuple[str, ...]:
    """The seed's port, the PyTorch original it was ported from (with the frameworks extra), and the fix."""
    return (Style.NAIVE, Style.PYTORCH, Style.GRAPH) if frameworks.version("torch") else (Style.NAIVE, Style.GRAPH)


def dqn_replays(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    try:
        _replays(store, run)
    except (KeyError, TypeError, ValueError, IndexError):  # a damaged file: one sentence, the view stands
        st.caption("The replayed games cannot be read (their file is damaged); the rest of this view stands.")


def _replays(store: Store, run: Run) -> None:
    path = store.run_dir(run.id) / "replays.json"
    try:
        games = json.loads(path.read_text()) if path.exists() else []
    except (OSError, ValueError):
        games = []  # an unreadable file: the rest of the view stands
    if not games:
        return
    st.subheader("Watch the agent play")
    game = games[st.selectbox("game", range(len(games)), format_func=lambda i: f"seed {i}", key=f"game_{run.id}")]
    outcome = "won" if game["won"] else "lost"
    captions = ["start"] + [f"move {i + 1}: {name}, reward {reward:+g}" for i, (name, reward)
                            in enumerate(zip(game["action_names"], game["rewards"], strict=True))]
    captions[-1] += f" — {outcome}"
    left, right = st.columns([1, 1])
    left.plotly_chart(board_chart(game["boards"], captions), key=f"board_{run.id}", width="content")
    right.caption(f"The trained agent {outcome} this seeded game in {len(game['actions'])} moves. Press Play, or drag "
                  "the slider to step through it. P player, + goal, − pit, W wall.")
    right.code("\n".join(render(Board(**{k: tuple(v) for k, v in game["boards"][0].items()}))), language=None)
    right.caption("The start as the book prints it.")


def reproduce_section(store: Store) -> None:
    """Home's one click: the seed's question reproduced (the port, the original, the fix) and compared."""
    styles = seed_question_styles()
    if not access.is_operator():
        return
    original = ("the PyTorch original it was ported from (`pytorch`), " if Style.PYTORCH in styles else "")
    st.markdown(f"**Reproduce the seed's question**: queues the same 15-game DQN in the slow port's `naive` style, "
                f"{original}and compiled (`graph`), then opens their comparison: games played against training "
                "seconds. The port is profiled, and a short bench times `model.predict` against calling the model, "
                "so the answer says why in the words of the code. Nearly all of its time is the naive run.")
    if Style.PYTORCH not in styles:
        st.caption(f"With the frameworks extra the PyTorch original runs beside them: `{frameworks.INSTALL}`.")
    if st.button("Reproduce the seed's question", type="primary", key="reproduce") \
            and access.require_operator("launch runs"):
        try:
            ids = [service.create_run(store, KIND, SEED_QUESTION | {STYLE: str(style), "profile":
                                                                    SEED_PROFILE.get(style, 0)},
                                      label=f"seed question: {style}", executor=executor.current())
                   for style in styles]
            bench = service.create_run(store, BENCH, SEED_BENCH, label="seed question: model.predict per move",
                                       executor=executor.current())
        except StoreError as e:
            st.error(fmt.md(str(e), 400))
            st.stop()
        executor.submit(store, [*ids, bench])
        st.switch_page("app_pages/runs.py", query_params={"runs": ",".join(map(str, ids)),
                                                      "metric": fmt.metric_title(GAMES),
                                                      "x": charts.X_AXES["wall"], "smoothing": "0"})


def against_the_original(runs: list[Run], rated: list[tuple[float, Run]], rate: Headline) -> str | None:
    """The seed's question as one line, when the runs differ only in style and one of them is the PyTorch original:
    "your port (naive): 17 env steps/s; the PyTorch original: 905; graph: 1,370 — graph ran 1.5x the original"."""
    original = [(v, r) for v, r in rated if r.config.get(STYLE) == Style.PYTORCH]
    rest = [{k: v for k, v in r.config.items() if k not in (STYLE, "profile")} for _, r in rated]
    if len(original) != 1 or len(rated) < 2 or any(c != rest[0] for c in rest):
        return None
    base, _ = original[0]
    order = list(SEED_QUESTION_LABELS)
    rated = sorted(rated, key=lambda p: order.index(p[1].config[STYLE]) if p[1].config[STYLE] in order
                   else len(order))
    parts = [f"{SEED_QUESTION_LABELS.get(r.config[STYLE], r.label)}: {fmt.number(v)}" for v, r in rated]
    parts[0] += f" {rate.label}"
    fastest, fast_run = max((p for p in rated if p[1].config[STYLE] != Style.PYTORCH), key=lambda p: p[0])
    ratio = fastest / base
    shown = f"{ratio:,.1f}x" if ratio >= 0.1 else f"{ratio:.2g}x"
    port = next((v for v, r in rated if r.config[STYLE] == Style.NAIVE), None)
    slower = f"the port ran {base / port:,.0f}x slower than the original; " if port else ""
    fix = f"{fast_run.config[STYLE]}, the fix, ran" if port else f"{fast_run.config[STYLE]} ran"
    shared = sorted({r.id for _, r in rated if (summary_of(r.summary) or RunSummary()).shared_machine})
    trust = (f" Measured on a shared machine (run{'s' if len(shared) > 1 else ''} {', '.join(map(str, shared))} "
             "trained beside others), so these ratios can be off by far more than this machine's usual 30%: run it "
             "again on a quiet machine to trust them." if shared else "")
    set_up = (summary_of(fast_run.summary) or RunSummary()).number("first_train_call_seconds") or 0.0
    apart = (f" (its first training call, {fmt.seconds(set_up)} of setting its graph up, is timed apart from its "
             "speed)" if set_up >= 0.05 else "")
    return f"{'; '.join(parts)} — {slower}{fix} {shown} the original{apart}.{trust}"


def why_the_port_is_slow(store: Store, runs: list[Run]) -> set[int]:
    """Under the seed question's headline: the port's findings in the code's words, each with its share of the step
    and its fix, linked to what measured it (the port's profile; the bench's cell for model.predict)."""
    port = next((r for r in runs if r.kind == KIND and r.config.get(STYLE) == Style.NAIVE and r.status == RunStatus.DONE
                 and of_summary(r.summary) is not None), None)
    if port is None:
        return set()
    profile = of_summary(port.summary)
    found = [f for f in profile.findings if f.cause != Cause.COMPUTE][:3] if profile is not None else []
    if not found:
        return set()
    profile_link = f"[its profile](dqn?run={port.id}#why)"
    bench = _predict_bench(store)
    lines = []
    for f in found:
        line = (f"**{fmt.md(f.title, 80)}**: {fmt.seconds(f.seconds_per_step)} of each "
                f"{fmt.seconds(profile.step_seconds)} step ({fmt.percent(f.share)}). The change: "
                f"{fmt.md(f.fix, 300)}. Seen in {profile_link}")
        if f.cause == Cause.PREDICT and bench is not None:
            bench_run, predict, called = bench
            line += (f"; and in [the bench's {ACT} cell](bench?run={bench_run.id}): predict takes "
                     f"{fmt.seconds(predict)} a call, the model called in a tf.function {fmt.seconds(called)}")
        lines.append(f"- {line}.")
    st.markdown(f"Why the port (run {port.id}) is slow, costliest first, measured by TensorFlow's profiler:\n\n"
                + "\n".join(lines))
    return {port.id}


def _predict_bench(store: Store) -> tuple[Run, float, float] | None:
    """The newest finished bench of picking an action that timed predict and the model in a tf.function at batch 1:
    (its run, seconds per predict call, seconds per call of the function)."""
    for run in store.list_runs():
        if run.kind != BENCH or run.status != RunStatus.DONE or run.config.get("workload") != ACT:
            continue
        cells = {c.get("pattern"): c for c in (run.summary or {}).get("cells") or []
                 if c.get("batch") == 1 and c.get("calls_per_second")}
        if "predict" in cells and "tf-function" in cells:
            return run, 1 / cells["predict"]["calls_per_second"], 1 / cells["tf-function"]["calls_per_second"]
    return None


# ---------------------------------------------------------------- its charts

# The four pieces as the book names them, drawn in order so that the player sits on top.
PIECES = (("wall", "W", "square", "#6b6b6b"), ("pit", "−", "x", "#d62728"), ("goal", "+", "star", "#2ca02c"),
          ("player", "P", "circle", "#1f77b4"))


def _board_traces(board: Mapping[str, tuple[int, int]]) -> list[go.Scatter]:
    return [go.Scatter(x=[board[name][1]], y=[board[name][0]], mode="markers+text", name=name, text=[code],
                       textfont={"color": "white", "size": 16}, hoverinfo="name",
                       marker={"symbol": symbol, "size": 46 if name == "player" else 56, "color": color})
            for name, code, symbol, color in PIECES]


def board_chart(boards: list[Mapping[str, tuple[int, int]]], captions: list[str]) -> go.Figure:
    """A played game on the 4x4 board: one frame per move, a slider to step through it and a Play button."""
    if len(boards) != len(captions) or not boards:
        raise ValueError("a game needs one caption per board and at least one board.")
    fig = go.Figure(data=_board_traces(boards[0]),
                    frames=[go.Frame(data=_board_traces(b), name=str(i), layout={"title": {"text": captions[i]}})
                            for i, b in enumerate(boards)])
    step = {"frame": {"duration": 600, "redraw": True}, "transition": {"duration": 0}, "mode": "immediate"}
    fig.update_layout(modebar=charts.MODEBAR,
        title=captions[0], width=420, height=500, showlegend=False, plot_bgcolor="#f4f4f4",
        margin={"t": 50, "b": 90, "l": 20, "r": 20},
        xaxis={"range": [-0.5, 3.5], "dtick": 1, "showticklabels": False, "showgrid": False, "zeroline": False,
               "fixedrange": True},
        yaxis={"range": [3.5, -0.5], "dtick": 1, "showticklabels": False, "showgrid": False, "zeroline": False,
               "fixedrange": True, "scaleanchor": "x"},
        shapes=[{"type": "line", "x0": v, "x1": v, "y0": -0.5, "y1": 3.5, "line": {"color": "#ccc"}} for v in
                (0.5, 1.5, 2.5)] + [{"type": "line", "y0": v, "y1": v, "x0": -0.5, "x1": 3.5,
                                      "line": {"color": "#ccc"}} for v in (0.5, 1.5, 2.5)],
        updatemenus=[{"type": "buttons", "direction": "left", "x": 0, "y": -0.02, "xanchor": "left",
                      "yanchor": "top", "showactive": False,
                      "buttons": [{"label": "Play", "method": "animate", "args": [None, step | {"fromcurrent": True}]},
                                  {"label": "Pause", "method": "animate",
                                   "args": [[None], step | {"frame": {"duration": 0, "redraw": False}}]}]}],
        sliders=[{"active": 0, "x": 0.3, "len": 0.7, "y": -0.02, "yanchor": "top", "pad": {"t": 30},
                  "currentvalue": {"prefix": "move "},
                  "steps": [{"label": str(i), "method": "animate", "args": [[str(i)], step]}
                            for i in range(len(boards))]}],
    )
    return fig


extras.register(KIND, extras.WorkloadViews(finished=dqn_replays, home=reproduce_section, compare=against_the_original,
                                   compare_why=why_the_port_is_slow))
