"""The book's win-rate test and the games a trained agent replays, whatever framework trained it: a Q-function
is all they need (numpy in, numpy out), so the PyTorch original is judged by the same test without TensorFlow."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn.config import DQNConfig

STATE_SIZE = 64
N_ACTIONS = 4
QFunction = Callable[[np.ndarray], np.ndarray]  # (B, 64) float32 -> (B, 4) Q-values
REPLAY_SEEDS = (0, 1, 2)  # the games a finished run replays for people to watch


# ---------------------------------------------------------------- the book's test


def evaluate_win_rate(q_fn: QFunction, rng: np.random.Generator, *, games: int = 1000, mode: str = "random",
                      noise: float = 0.1, max_moves: int = 16) -> float:
    """The book's test (greedy, fresh board per game, at most ``max_moves``), all games batched.

    Each game plays exactly as in the book's test_model; batching only shares the network call
    across games (fixed shape, so a compiled q_fn is traced once).
    """
    boards = [gw.new_board(mode, rng) for _ in range(games)]
    active = np.ones(games, bool)
    won = np.zeros(games, bool)
    states = np.zeros((games, STATE_SIZE), np.float32)
    for _ in range(max_moves):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        states[idx] = rng.random((idx.size, STATE_SIZE), dtype=np.float32) * noise
        for i in idx:
            states[i, list(gw.flat_indices(boards[i]))] += 1.0
        actions = q_fn(states).argmax(axis=1)
        for i in idx:
            boards[i], r = gw.step(boards[i], int(actions[i]))
            if r != gw.REWARD_STEP:
                active[i] = False
                won[i] = r > 0
    return float(won.mean())


@dataclass
class GameReplay:
    """One played game: the boards before and after every move, actions, rewards, outcome."""

    boards: list[gw.Board]
    actions: list[int]
    rewards: list[float]
    won: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "boards": [b._asdict() for b in self.boards],
            "actions": self.actions,
            "action_names": [gw.ACTION_NAMES[a] for a in self.actions],
            "rewards": self.rewards,
            "won": self.won,
        }


def play_game(q_fn: QFunction, seed: int, *, mode: str = "random", noise: float = 0.1,
              max_moves: int = 16) -> GameReplay:
    """Play one seeded greedy game under the book's test rules and return every step."""
    game = gw.Gridworld(mode, np.random.default_rng(seed))
    boards, actions, rewards = [game.board], [], []
    for _ in range(max_moves):
        a = int(q_fn(game.state(noise)[None])[0].argmax())
        r = game.step(a)
        boards.append(game.board)
        actions.append(a)
        rewards.append(r)
        if r != gw.REWARD_STEP:
            break
    return GameReplay(boards, actions, rewards, won=bool(rewards and rewards[-1] > 0))


def eval_rng(cfg: DQNConfig) -> np.random.Generator:
    """The same test boards at every evaluation, so the win-rate curve compares like with like."""
    return np.random.default_rng([cfg.seed, 0xE7A1])


def book_test(q_fn: QFunction, cfg: DQNConfig) -> float:
    """The book's test as the config sets it up (games, board mode, noise, moves)."""
    return evaluate_win_rate(q_fn, eval_rng(cfg), games=cfg.test_games, mode=cfg.mode, noise=cfg.test_noise,
                             max_moves=cfg.test_max_moves)


def replays(q_fn: QFunction, cfg: DQNConfig) -> list[dict[str, Any]]:
    """The seeded games a finished run shows, played under the config's test rules."""
    return [play_game(q_fn, seed, mode=cfg.mode, noise=cfg.test_noise, max_moves=cfg.test_max_moves).to_dict()
            for seed in REPLAY_SEEDS]
