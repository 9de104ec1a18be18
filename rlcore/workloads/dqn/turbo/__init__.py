"""Turbo: the book's Gridworld DQN as a second algorithm — the game and the whole loop in one compiled graph, many
games at once, double DQN with its own Adam and replay ring (``loop``), its own settings (``config``) — judged by
the book's test like the book's loop. It shares the Gridworld, the Q-network and the test with the ``dqn`` workload
and reads none of its settings: a run once stored as the DQN's ``turbo`` style is a turbo run today.

Importing this package registers the workload and imports no framework.
"""

from __future__ import annotations

import json
from typing import Any

from rlcore.contract.reporting import LOSS, PHASE_PREFIX
from rlcore.contract.text import percent_text
from rlcore.contract.workloads import Artifact, Chart, Headline, Outcome, Output, Reporter, Verdict, Workload, register
from rlcore.workloads.dqn import book_test_verdict
from rlcore.workloads.dqn.metrics import ENV_STEPS_PER_S, EPSILON, GAMES, WIN_RATE
from rlcore.workloads.dqn.turbo.config import TurboConfig
from rlcore.workloads.dqn.turbo.upgrades import UPGRADES

KIND = "turbo"


def train(cfg: TurboConfig, reporter: Reporter) -> Outcome:
    from rlcore.workloads.dqn import qnet, win_rate
    from rlcore.workloads.dqn.turbo.loop import train as turbo

    result = turbo(cfg, reporter)
    artifacts = {"model.keras": qnet.model_bytes(result.agent.played),
                 "replays.json": json.dumps(win_rate.replays(result.agent.q_values, cfg)).encode()}
    return Outcome(result.summary(), artifacts, result.stopped_early)


def judge(cfg: TurboConfig, summary: dict[str, Any]) -> Verdict:
    win = summary.get("win_rate")
    said = book_test_verdict(win, cfg.test_games)
    if said is not None:
        return said
    games = f" on {cfg.test_games:,} test games"
    hint = " It stopped early." if summary.get("stopped_early") else ""
    return Verdict("fail", "not converged", f"Not converged: it won {percent_text(win)}{games} after "
                   f"{cfg.train_seconds:g} s of training, below the book's 89–94%.{hint}")


def describe(cfg: TurboConfig, summary: dict[str, Any]) -> str:
    return (f"compiled the loop in {summary['compile_seconds']:.1f} s (XLA cache: {summary.get('xla_cache') or 'off'})."
            f"\n{summary['games']:,} games, {summary['steps']:,} steps in {summary['train_seconds']:.1f} s "
            f"({summary['steps_per_second']:,.0f} steps/s, {cfg.games:,} games at once on {cfg.device}); "
            f"win rate {summary['win_rate']:.1%} on {cfg.test_games:,} test games.")


WORKLOAD = register(Workload(
    order=11,
    kind=KIND, title="Gridworld DQN, turbo",
    description="The same Gridworld and the book's 1000-game win-rate test, trained by a second algorithm: the game "
                "and the whole loop in one compiled graph, 256 games at once, double DQN with its own replay ring, "
                "for a time budget. Its defaults are tuned for the most learning per second, not the book's values.",
    config=TurboConfig, train=train, judge=judge, describe=describe, unit="env steps",
    headlines=(Headline("win_rate", "win rate", "%"), Headline("steps_per_second", "env steps/s", "steps/s"),
               Headline("train_seconds", "training time", "s", "lower")),
    charts=(Chart(LOSS, "loss", log_y=True, smooth=True, bar="loss"),
            Chart(ENV_STEPS_PER_S, "env steps per second", bar="steps/s"),
            Chart(WIN_RATE, "win rate (the book's test)", percent=True, bar="win"),
            Chart(PHASE_PREFIX, "where the time goes", kind="phases")),
    metric_titles={EPSILON: "exploration rate ε", GAMES: "games played"},
    icon=":material/bolt:", upgrades=UPGRADES,
    outputs=(Output("--save-model", "model.keras", ".keras", "save the trained Keras network here"),),
    artifacts=(Artifact("model.keras", "model", "the trained Keras Q-network"),
               Artifact("replays.json", "data", "seeded games the trained agent played")),
))
