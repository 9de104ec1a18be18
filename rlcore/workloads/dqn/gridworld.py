"""The book's Gridworld (Zai & Brown, ch. 3), rules as pure functions plus a small env class.

Faithful to `Chapter 3/Gridworld.py` including its quirks: channel order Player/Goal/Pit/Wall,
flat index ``16*channel + 4*row + col``, rejection sampling of boards, and a validation whose
"corner" check only ever looks at (0, 0) (the other three corners are off the board).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import NamedTuple

import numpy as np

SIZE = 4
MODES = ("static", "player", "random")
ACTION_NAMES = ("up", "down", "left", "right")
# Actions 0..3 = up, down, left, right as (d_row, d_col), the book's `action_set`.
MOVES = ((-1, 0), (1, 0), (0, -1), (0, 1))

REWARD_PIT = -10.0
REWARD_GOAL = 10.0
REWARD_STEP = -1.0

Pos = tuple[int, int]


class Board(NamedTuple):
    """Positions of the four pieces, in the book's channel order."""

    player: Pos
    goal: Pos
    pit: Pos
    wall: Pos


STATIC_BOARD = Board(player=(0, 3), goal=(0, 0), pit=(0, 1), wall=(1, 1))

# The book's validateMove outcomes.
_MOVE_OK, _MOVE_BLOCKED, _MOVE_PIT = 0, 1, 2


def _move_outcome(pos: Pos, offset: Pos, board: Board) -> int:
    new = (pos[0] + offset[0], pos[1] + offset[1])
    if new == board.wall or max(new) > SIZE - 1 or min(new) < 0:
        return _MOVE_BLOCKED
    if new == board.pit:
        return _MOVE_PIT
    return _MOVE_OK


# The book's corner list is (0,0), (0,size), (size,0), (size,size): only (0,0) is on the board.
_CORNERS = ((0, 0), (0, SIZE), (SIZE, 0), (SIZE, SIZE))
_CHECK_OFFSETS = ((0, 1), (1, 0), (-1, 0), (0, -1))


def is_valid_board(board: Board) -> bool:
    """The book's validateBoard: no overlap, and the (0,0)-only corner check."""
    if len(set(board)) < 4:
        return False
    if board.player in _CORNERS or board.goal in _CORNERS:
        for piece in (board.player, board.goal):
            if all(_move_outcome(piece, off, board) != _MOVE_OK for off in _CHECK_OFFSETS):
                return False
    return True


def reward(board: Board) -> float:
    """Reward of a position: pit first, then goal, else a step cost (also after blocked moves)."""
    if board.player == board.pit:
        return REWARD_PIT
    if board.player == board.goal:
        return REWARD_GOAL
    return REWARD_STEP


def step(board: Board, action: int) -> tuple[Board, float]:
    """Apply one action (0..3 = up, down, left, right); blocked moves leave the player in place."""
    offset = MOVES[action]
    if _move_outcome(board.player, offset, board) != _MOVE_BLOCKED:
        p = board.player
        board = board._replace(player=(p[0] + offset[0], p[1] + offset[1]))
    return board, reward(board)


def flat_indices(board: Board) -> tuple[int, int, int, int]:
    """Indices of the four ones in the 64-vector: 16*channel + 4*row + col."""
    return tuple(16 * ch + 4 * r + c for ch, (r, c) in enumerate(board))  # type: ignore[return-value]


def encode(board: Board) -> np.ndarray:
    """One-hot (4, 4, 4) board flattened channel-major to shape (64,), float32."""
    x = np.zeros(64, dtype=np.float32)
    x[list(flat_indices(board))] = 1.0
    return x


def render(board: Board) -> list[str]:
    """Text rows as the book draws them (later pieces overwrite earlier ones; '.' is empty)."""
    grid = [["."] * SIZE for _ in range(SIZE)]
    for code, (r, c) in zip("P+-W", board, strict=True):
        grid[r][c] = code
    return [" ".join(row) for row in grid]


def all_valid_boards() -> Iterator[Board]:
    """Every valid board, in a fixed order (43,616 of the 43,680 non-overlapping placements)."""
    cells = list(product(range(SIZE), range(SIZE)))
    for pieces in product(cells, repeat=4):
        board = Board(*pieces)
        if is_valid_board(board):
            yield board


def _random_pos(rng: np.random.Generator) -> Pos:
    # Row first, then column: the book's two randint calls.
    return int(rng.integers(0, SIZE)), int(rng.integers(0, SIZE))


def new_board(mode: str, rng: np.random.Generator) -> Board:
    """A start board by the book's rules: fixed, random player, or all four pieces random."""
    if mode == "static":
        return STATIC_BOARD
    if mode == "player":
        while True:
            board = STATIC_BOARD._replace(player=_random_pos(rng))
            if is_valid_board(board):
                return board
    if mode == "random":
        while True:
            board = Board(*(_random_pos(rng) for _ in range(4)))
            if is_valid_board(board):
                return board
    raise ValueError(f"Unknown mode {mode!r}; choose one of {', '.join(MODES)}.")


class Gridworld:
    """A stateful game over the pure rules. Like the book's, it has no done flag."""

    def __init__(self, mode: str = "static", rng: np.random.Generator | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"Unknown mode {mode!r}; choose one of {', '.join(MODES)}.")
        self.mode = mode
        self.rng = rng if rng is not None else np.random.default_rng()
        self.board = new_board(mode, self.rng)

    @classmethod
    def from_board(cls, board: Board, rng: np.random.Generator | None = None) -> Gridworld:
        game = cls.__new__(cls)
        game.mode = "static"
        game.rng = rng if rng is not None else np.random.default_rng()
        game.board = board
        return game

    def reset(self) -> Board:
        self.board = new_board(self.mode, self.rng)
        return self.board

    def step(self, action: int) -> float:
        self.board, r = step(self.board, action)
        return r

    def state(self, noise_scale: float = 0.0) -> np.ndarray:
        """The 64-vector plus fresh uniform noise in [0, noise_scale) on every entry."""
        x = self.rng.random(64, dtype=np.float32)
        x *= noise_scale
        x[list(flat_indices(self.board))] += 1.0
        return x
