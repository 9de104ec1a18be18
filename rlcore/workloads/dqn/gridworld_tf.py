"""The book's Gridworld as batched tensor functions over N games, for the in-graph (turbo) DQN.

A board is four cell indices (row * 4 + col) in the book's piece order: player, goal, pit, wall; N boards
are an (N, 4) int32 tensor. The rules are those of ``gridworld`` (tested move by move against it
on every valid board). Start boards of every mode are drawn uniformly from that mode's valid boards, which
is what the book's rejection sampling amounts to: the one static board, the 13 boards of player mode
(the static pieces, the player on any free cell), or all 43,616 boards of random mode.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import tensorflow as tf

from rlcore.workloads.dqn import gridworld as gw

PLAYER, GOAL, PIT, WALL = range(4)
_MOVES = tf.constant(gw.MOVES, tf.int32)  # (4, 2): d_row, d_col of up, down, left, right


def cell(pos: tuple[int, int]) -> int:
    return pos[0] * gw.SIZE + pos[1]


def to_cells(board: gw.Board) -> list[int]:
    return [cell(p) for p in board]


def from_cells(cells) -> gw.Board:
    return gw.Board(*((int(c) // gw.SIZE, int(c) % gw.SIZE) for c in cells))


@lru_cache(maxsize=1)
def valid_boards() -> np.ndarray:
    """Every valid board as cell indices, (43616, 4) int32, computed once per process."""
    return np.array([to_cells(b) for b in gw.all_valid_boards()], dtype=np.int32)


@lru_cache(maxsize=len(gw.MODES))
def start_boards(mode: str) -> np.ndarray:
    """The boards a game of ``mode`` can start on, as cell indices; each is equally likely in the book's game."""
    if mode == "random":
        return valid_boards()
    if mode == "player":
        fixed = to_cells(gw.STATIC_BOARD)[1:]
        return valid_boards()[(valid_boards()[:, 1:] == fixed).all(axis=1)]
    if mode == "static":
        return np.array([to_cells(gw.STATIC_BOARD)], dtype=np.int32)
    raise ValueError(f"Unknown mode {mode!r}; choose one of {', '.join(gw.MODES)}.")


def step(boards: tf.Tensor, actions: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """One move in every game: blocked moves (edge, wall) stay put; reward -10 pit, +10 goal, else -1."""
    player = boards[:, PLAYER]
    move = tf.gather(_MOVES, actions)
    row = player // gw.SIZE + move[:, 0]
    col = player % gw.SIZE + move[:, 1]
    target = row * gw.SIZE + col
    off_board = (row < 0) | (row >= gw.SIZE) | (col < 0) | (col >= gw.SIZE)
    blocked = off_board | tf.equal(target, boards[:, WALL])
    player = tf.where(blocked, player, target)
    rewards = tf.where(tf.equal(player, boards[:, PIT]), gw.REWARD_PIT,
                       tf.where(tf.equal(player, boards[:, GOAL]), gw.REWARD_GOAL, gw.REWARD_STEP))
    boards = tf.concat([player[:, None], boards[:, 1:]], axis=1)
    return boards, rewards


def encode(boards: tf.Tensor, noise: tf.Tensor) -> tf.Tensor:
    """The 64-vector of each board (one-hot at 16 * piece + cell) plus the given (N, 64) noise."""
    flat = boards + tf.constant([0, 16, 32, 48], tf.int32)
    return tf.reduce_sum(tf.one_hot(flat, 64, dtype=noise.dtype), axis=1) + noise


def random_boards(rng: tf.random.Generator, n: int | tf.Tensor, table: tf.Tensor) -> tf.Tensor:
    """``n`` boards drawn uniformly from ``table`` (a mode's start boards)."""
    picks = rng.uniform([n], 0, tf.shape(table, out_type=tf.int64)[0], dtype=tf.int64)
    return tf.gather(table, picks)
