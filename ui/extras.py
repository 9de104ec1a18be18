"""What some workloads show beyond the generic run view: the DQN's replayed games, the HJB solution against the
exact one, the bench's bars and crossover. Optional per kind: a workload without an entry gets the generic view.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from rlcore.gridworld import Board, render
from rlcore.runs.store import Run, Store
from ui import bench_view, charts


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
    left.plotly_chart(charts.board_chart(game["boards"], captions), key=f"board_{run.id}", width="content")
    right.caption(f"The trained agent {outcome} this seeded game in {len(game['actions'])} moves. Press Play, or drag "
                  "the slider to step through it. P player, + goal, − pit, W wall.")
    right.code("\n".join(render(Board(**{k: tuple(v) for k, v in game["boards"][0].items()}))), language=None)
    right.caption("The start as the book prints it.")


def hjb_solution(store: Store, run: Run, metrics: pd.DataFrame) -> None:
    summary = run.summary or {}
    if "grid_k" not in summary:
        return
    k = summary["grid_k"]
    left, right = st.columns(2)
    left.plotly_chart(charts.solution_chart(k, summary["V"], summary["V_exact"], "V"), key=f"V_{run.id}")
    right.plotly_chart(charts.solution_chart(k, summary["c"], summary["c_exact"], "c"), key=f"c_{run.id}")
    err_v = [abs(v / e - 1) for v, e in zip(summary["V"], summary["V_exact"], strict=True)]
    err_c = [abs(c / e - 1) for c, e in zip(summary["c"], summary["c_exact"], strict=True)]
    st.plotly_chart(charts.error_over_k_chart(k, err_v, err_c), key=f"errk_{run.id}")


@dataclass(frozen=True)
class Extras:
    charts: Callable[[Run, pd.DataFrame], None] | None = None  # replaces the generic charts, live and after
    finished: Callable[[Store, Run, pd.DataFrame], None] | None = None  # drawn under the finished run's numbers
    intro: Callable[[str | None], None] | None = None  # drawn on the form under the preset (what the choice means)


# The views a workload can name in its ``views`` (rlcore.workloads); a workload naming none gets the generic view.
VIEWS: dict[str, Extras] = {
    "replays": Extras(finished=dqn_replays),
    "solution": Extras(finished=hjb_solution),
    "bench-cells": Extras(charts=bench_view.live),
    "bench-why": Extras(intro=bench_view.patterns_why),
}


def of(kind: str) -> Extras:
    """What a workload's named views add, merged."""
    from rlcore import workloads

    merged: dict[str, Callable | None] = {"charts": None, "finished": None, "intro": None}
    for name in workloads.get(kind).views:
        view = VIEWS.get(name, Extras())
        merged = {k: v or getattr(view, k) for k, v in merged.items()}
    return Extras(**merged)
