"""The book's Gridworld rules, checked against the behaviours recorded from the original code."""

from collections import Counter
from itertools import product

import numpy as np
import pytest
from scipy.stats import chisquare

from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn.gridworld import STATIC_BOARD, Board, Gridworld

UP, DOWN, LEFT, RIGHT = range(4)


@pytest.fixture(scope="module")
def valid_boards():
    return list(gw.all_valid_boards())


@pytest.mark.parametrize(
    ("action", "player", "reward"),
    [(UP, (0, 3), -1.0), (RIGHT, (0, 3), -1.0), (LEFT, (0, 2), -1.0), (DOWN, (1, 3), -1.0)],
)
def test_static_start_moves_match_the_book(action, player, reward):
    """From (0,3): up and right hit the edge and stay, left and down move; every move costs -1."""
    board, r = gw.step(STATIC_BOARD, action)
    assert board.player == player
    assert r == reward


def test_left_left_falls_in_the_pit_and_the_game_accepts_moves_after():
    """The book's env has no done flag: stepping left from the pit lands on the goal for +10."""
    game = Gridworld.from_board(STATIC_BOARD)
    assert game.step(LEFT) == -1.0
    assert game.step(LEFT) == -10.0
    assert game.board.player == (0, 1)
    assert game.step(LEFT) == 10.0
    assert game.board.player == (0, 0)


def test_wall_blocks_and_costs_a_step():
    board = Board(player=(1, 2), goal=(3, 3), pit=(0, 0), wall=(1, 1))
    after, r = gw.step(board, LEFT)
    assert after == board
    assert r == -1.0


def test_pit_reward_is_checked_before_goal():
    """A hand-made overlap of pit and goal (never a valid board) shows the order of the checks."""
    assert gw.reward(Board(player=(2, 2), goal=(2, 2), pit=(2, 2), wall=(0, 0))) == -10.0


def test_validation_accepts_43616_of_43680_non_overlapping_placements(valid_boards):
    cells = list(product(range(4), repeat=2))
    non_overlapping = sum(len(set(p)) == 4 for p in product(cells, repeat=4))
    assert non_overlapping == 43_680
    assert len(valid_boards) == 43_616


def test_corner_check_only_looks_at_origin():
    """Player boxed into (0,3) by wall and pit passes (the book's off-board corners); at (0,0) it fails."""
    boxed_far_corner = Board(player=(0, 3), goal=(3, 0), pit=(0, 2), wall=(1, 3))
    assert gw.is_valid_board(boxed_far_corner)
    boxed_origin = Board(player=(0, 0), goal=(3, 3), pit=(0, 1), wall=(1, 0))
    assert not gw.is_valid_board(boxed_origin)


def test_static_board_encodes_at_the_books_indices():
    x = gw.encode(STATIC_BOARD)
    assert x.shape == (64,)
    assert x.dtype == np.float32
    assert list(np.flatnonzero(x)) == [3, 16, 33, 53]


def test_text_view_draws_the_books_static_board_and_hides_the_player_on_the_goal():
    assert gw.render(STATIC_BOARD) == ["+ - . P", ". W . .", ". . . .", ". . . ."]
    on_goal = STATIC_BOARD._replace(player=STATIC_BOARD.goal)
    assert gw.render(on_goal)[0] == "+ - . ."


def test_state_adds_fresh_uniform_noise_below_the_scale():
    game = Gridworld("static", np.random.default_rng(1))
    a, b = game.state(0.01), game.state(0.01)
    assert a.shape == (64,) and a.dtype == np.float32
    assert not np.array_equal(a, b)
    onehot = gw.encode(STATIC_BOARD)
    assert np.all((a - onehot >= 0) & (a - onehot < 0.01))


def test_player_mode_moves_only_the_player_uniformly_over_13_free_cells():
    rng = np.random.default_rng(7)
    boards = [gw.new_board("player", rng) for _ in range(6500)]
    assert {(b.goal, b.pit, b.wall) for b in boards} == {(STATIC_BOARD.goal, STATIC_BOARD.pit, STATIC_BOARD.wall)}
    counts = Counter(b.player for b in boards)
    assert len(counts) == 13
    assert chisquare(list(counts.values())).pvalue > 1e-3


def test_random_mode_is_uniform_over_valid_boards(valid_boards):
    """Chi-square of (player, goal) pairs against their exact frequency among the valid boards."""
    expected = Counter((b.player, b.goal) for b in valid_boards)
    rng = np.random.default_rng(2024)
    n = 30_000
    seen = Counter()
    for _ in range(n):
        b = gw.new_board("random", rng)
        assert gw.is_valid_board(b)
        seen[(b.player, b.goal)] += 1
    keys = sorted(expected)
    f_exp = np.array([expected[k] for k in keys], float) * n / len(valid_boards)
    f_obs = np.array([seen[k] for k in keys], float)
    assert f_obs.sum() == n
    assert chisquare(f_obs, f_exp).pvalue > 1e-3


def test_same_seed_same_boards():
    a = [gw.new_board("random", np.random.default_rng(3)) for _ in range(3)]
    b = [gw.new_board("random", np.random.default_rng(3)) for _ in range(3)]
    assert a == b


def test_env_reset_draws_a_new_board_and_rejects_unknown_modes():
    game = Gridworld("random", np.random.default_rng(0))
    boards = {game.reset() for _ in range(20)}
    assert len(boards) > 1
    with pytest.raises(ValueError, match="Unknown mode"):
        Gridworld("maze")
