"""The DQN engine: styles agree, graphs trace once, the loop reports and stops, the book's test is honest."""

import json
from collections import deque

import numpy as np
import pytest
import tensorflow as tf

from rlcore.contract import reporting
from rlcore.tracking.machine import DeviceError, check_device
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn import loop, qnet, win_rate
from rlcore.workloads.dqn import metrics as dqn_metrics
from rlcore.workloads.dqn import tf_styles as dqn
from rlcore.workloads.dqn.config import TF_BOOK_STYLES, DQNConfig

TINY = {"epochs": 12, "memory_size": 120, "batch_size": 16, "sync_every": 25, "test_games": 50, "eval_every": 6,
        "hidden1": 16, "hidden2": 8}


def _batch(rng, n=32):
    return dqn.Batch.of(
        s1=rng.random((n, 64), dtype=np.float32),
        a=rng.integers(0, 4, n).astype(np.int32),
        r=rng.choice([-1.0, -10.0, 10.0], n).astype(np.float32),
        s2=rng.random((n, 64), dtype=np.float32),
        done=(rng.random(n) < 0.2).astype(np.float32),
    )


def test_the_four_book_styles_compute_the_same_step():
    """Same weights and batch: naive, eager, graph and xla give the same loss and updated weights."""
    cfg = DQNConfig(seed=5)
    batch = _batch(np.random.default_rng(0))
    results = {}
    for mode in TF_BOOK_STYLES:
        agent = dqn.Agent(cfg, mode)
        loss = float(agent.train(batch))
        loss2 = float(agent.train(batch))
        results[mode] = (loss, loss2, [w.numpy() for w in agent.online.weights])
    ref_loss, ref_loss2, ref_weights = results["naive"]
    assert ref_loss2 != ref_loss  # the first step changed the weights
    for mode, (loss, loss2, weights) in results.items():
        assert loss == pytest.approx(ref_loss, rel=1e-5), mode
        assert loss2 == pytest.approx(ref_loss2, rel=1e-5), mode
        for w, ref in zip(weights, ref_weights, strict=True):
            np.testing.assert_allclose(w, ref, rtol=1e-4, atol=1e-6, err_msg=mode)


def test_online_and_target_start_identical_and_sync_copies():
    agent = dqn.Agent(DQNConfig(seed=1), "graph")
    for o, t in zip(agent.online.weights, agent.target.weights, strict=True):
        np.testing.assert_array_equal(o.numpy(), t.numpy())
    agent.train(_batch(np.random.default_rng(1)))
    assert not np.array_equal(agent.online.weights[0].numpy(), agent.target.weights[0].numpy())
    agent.sync()
    np.testing.assert_array_equal(agent.online.weights[0].numpy(), agent.target.weights[0].numpy())


def test_pytorch_default_init_bounds():
    model = qnet.build_q_network(150, 100, seed=0)
    for layer, fan_in in zip(model.layers, (64, 150, 100), strict=True):
        kernel, bias = (w.numpy() for w in layer.weights)
        bound = 1 / np.sqrt(fan_in)
        assert np.abs(kernel).max() <= bound and np.abs(bias).max() <= bound
        assert np.abs(kernel).max() > 0.9 * bound  # uniform over the whole range, not a narrower init


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_compiled_styles_trace_once_over_a_whole_run(mode):
    result = dqn.train(DQNConfig(exec_mode=mode, **TINY))
    agent = result.agent
    assert result.steps > TINY["memory_size"]  # many act and train calls happened
    assert agent.train_then_act_fn.experimental_get_tracing_count() == 1
    assert agent.greedy_fn.experimental_get_tracing_count() == 1
    assert agent.train_fn.experimental_get_tracing_count() == 0  # the loop's train call is the one that also acts


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_the_train_call_acts_as_a_second_call_would(mode):
    """A compiled style's train call, on a batch whose target values are kept (the newest transition's not yet
    known, NaN), steps as the book's step that runs the target network on the whole batch, and returns the greedy
    action a second call would find for the next state and that state's target value; a state it was not given
    (even with equal values) gets its own call."""
    cfg = DQNConfig(seed=3)
    rng = np.random.default_rng(4)
    fused, separate = dqn.Agent(cfg, mode), dqn.Agent(cfg, mode)
    for _ in range(6):
        batch, state = _batch(rng), rng.random(64, dtype=np.float32)
        batch.rows[:, dqn.BEST] = fused.best_values(batch.s2)
        batch.rows[-3:, dqn.S2], batch.rows[-3:, dqn.BEST] = state, np.nan  # the newest, sampled more than once
        fused.train(batch, next_state=state)
        separate.train(batch)
        for w, ref in zip(fused.online.weights, separate.online.weights, strict=True):
            np.testing.assert_allclose(w.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
        assert fused.next_best == pytest.approx(float(separate.best_values(state[None])[0]), rel=1e-5)
        assert fused._next_state is state  # act will read it, not call TensorFlow
        assert fused.act(state) == separate.act(state)
        assert fused.act(state.copy()) == separate.act(state)
    fused.train(_batch(rng))
    assert fused._next_state is None  # the weights moved: no action is read from before


@pytest.mark.parametrize("mode", ["graph", "xla"])
def test_the_memory_s_kept_target_values_are_the_target_network_s_at_every_sample(mode):
    """Through a run of many syncs, each transition's kept target value is what the target network says of its s2
    at the time a batch is drawn (found again after each sync, the newest found by the train call after it)."""
    cfg = DQNConfig(exec_mode=mode, **(TINY | {"epochs": 20}))
    learner = dqn.TFLearner(cfg, dqn.Agent(cfg))
    result = loop.train_book_loop(cfg, learner)
    assert result.steps > 3 * cfg.sync_every + cfg.warmup  # syncs happened with transitions kept across them
    learner.sample()  # as the next move would: after a sync at the last move, the values are found again here
    kept = learner.memory.rows[:len(learner.memory)]
    assert not np.isnan(kept[:, dqn.BEST]).any()
    np.testing.assert_allclose(kept[:, dqn.BEST], learner.agent.best_values(kept[:, dqn.S2]), rtol=1e-5, atol=1e-6)


def test_one_call_a_move_plays_the_run_two_calls_play():
    """The book's loop in graph style with the train call acting (one TensorFlow call a move, the memory's kept
    target values) makes the same moves, losses and win rate as the book's step (the target network on the whole
    batch) with a second call for each greedy move."""

    class TwoCalls(dqn.TFLearner):
        def learn(self, batch):
            return self.agent.train(batch)

    cfg = DQNConfig(exec_mode="graph", **TINY)
    one = dqn.train(cfg)
    two = loop.train_book_loop(cfg, TwoCalls(cfg, dqn.Agent(cfg)))
    assert (one.steps, one.games, one.win_rate) == (two.steps, two.games, two.win_rate)
    assert one.final_loss == pytest.approx(two.final_loss, rel=1e-6)
    assert one.agent.train_fn.experimental_get_tracing_count() == 0
    assert two.agent.train_fn.experimental_get_tracing_count() == 1  # it did make the second calls


def test_replay_memory_is_fifo_and_samples_without_replacement():
    mem = dqn.ReplayMemory(5)
    for i in range(8):
        mem.add(np.full(64, i, np.float32), i % 4, float(i), np.full(64, -i, np.float32), i == 7)
    assert len(mem) == 5
    assert sorted(mem.rows[:, dqn.REWARD].tolist()) == [3.0, 4.0, 5.0, 6.0, 7.0]  # the three oldest were evicted
    batch = mem.sample(np.random.default_rng(0), 5)
    assert sorted(batch.r.tolist()) == [3.0, 4.0, 5.0, 6.0, 7.0]
    assert batch.done.sum() == 1.0 and batch.done[batch.r == 7.0] == 1.0
    i = batch.r.astype(int)  # each row's columns are its own transition's
    np.testing.assert_array_equal(batch.a, i % 4)
    assert batch.a.dtype == np.int32
    np.testing.assert_array_equal(batch.s1, np.repeat(i[:, None], 64, axis=1))
    np.testing.assert_array_equal(batch.s2, -np.repeat(i[:, None], 64, axis=1))


def test_a_full_memory_s_samples_drawn_ahead_are_uniform_without_replacement_and_read_the_rows_now():
    mem, rng = dqn.ReplayMemory(50), np.random.default_rng(1)
    state = np.zeros(64, np.float32)
    for i in range(50):
        mem.add(state, 0, float(i), state, False)  # the reward says the row
    counts, sets = np.zeros(50), set()
    for _ in range(800):
        rows = mem.sample(rng, 10).r.astype(int)
        assert len(set(rows.tolist())) == 10  # without replacement
        counts[rows] += 1
        sets.add(frozenset(rows.tolist()))
    assert len(sets) > 790  # fresh sets, not a block reused
    assert np.abs(counts - 160).max() < 5 * np.sqrt(160)  # every row equally likely (800 x 10 / 50 each)
    mem.sample(rng, 10)  # a block is drawn ahead here
    for i in range(50):
        mem.add(state, 0, 100.0 + i, state, False)  # then every row is replaced
    assert (mem.sample(rng, 10).r >= 100.0).all()  # the rows are read as they are when the move samples
    assert len(set(mem.sample(rng, 20).r.tolist())) == 20  # another batch size: sets of that size, not the block's


def test_training_loop_reports_records_phases_and_a_win_rate():
    rep = reporting.ListReporter()
    result = dqn.train(DQNConfig(exec_mode="graph", **TINY), rep, report_interval=0.0)
    assert rep.info.total == TINY["epochs"]
    assert result.games == TINY["epochs"] and result.steps >= TINY["epochs"]
    assert set(result.phase_seconds) == set(loop.PHASES)
    assert sum(result.phase_seconds.values()) <= result.train_seconds
    assert result.phase_seconds["train"] > 0 and result.phase_seconds["act"] > 0
    assert 0.0 <= result.win_rate <= 1.0
    assert [g for g, _ in result.win_rate_history] == [6, 12]
    steps = [r.step for r in rep.records]
    assert steps == sorted(steps) and steps[-1] == result.steps
    assert any(reporting.LOSS in r.metrics for r in rep.records)
    assert rep.records[-1].metrics[dqn_metrics.WIN_RATE] == result.win_rate
    assert rep.summary["steps"] == result.steps
    json.dumps(rep.summary)  # the summary is JSON-ready


def test_reporter_can_stop_the_loop():
    rep = reporting.ListReporter(stop_after=2)
    result = dqn.train(DQNConfig(exec_mode="eager", **(TINY | {"epochs": 500})), rep, report_interval=0.0)
    assert result.stopped_early
    assert result.games < 3 and result.steps <= 2 * 51  # stopped at the second record, within two games
    assert len(rep.records) == 4  # the start, the one that stopped it, then "testing" and the win rate
    assert [r.phase for r in rep.records] == [reporting.TRAINING, "", reporting.TESTING, ""]


def test_same_seed_same_run():
    a = dqn.train(DQNConfig(exec_mode="graph", **TINY))
    b = dqn.train(DQNConfig(exec_mode="graph", **TINY))
    assert (a.steps, a.win_rate) == (b.steps, b.win_rate)
    assert a.final_loss == pytest.approx(b.final_loss, rel=1e-6)


def test_nan_loss_stops_with_diverged(monkeypatch):
    monkeypatch.setattr(dqn.Agent, "train", lambda self, batch, next_state=None: tf.constant(float("nan")))
    with pytest.raises(reporting.DivergedError, match="became nan"):
        dqn.train(DQNConfig(exec_mode="graph", **TINY), report_interval=0.0)


# ---------------------------------------------------------------- the book's test, with known policies


def _bfs_distance(board: gw.Board) -> dict:
    """Moves from every reachable cell to the goal, never entering the pit or the wall."""
    dist, queue = {board.goal: 0}, deque([board.goal])
    while queue:
        cell = queue.popleft()
        for dr, dc in gw.MOVES:
            nxt = (cell[0] + dr, cell[1] + dc)
            if 0 <= nxt[0] < 4 and 0 <= nxt[1] < 4 and nxt not in (board.wall, board.pit) and nxt not in dist:
                dist[nxt] = dist[cell] + 1
                queue.append(nxt)
    return dist


def _decode(state: np.ndarray) -> gw.Board:
    planes = (state.reshape(4, 4, 4) > 0.5).nonzero()
    return gw.Board(*[(int(planes[1][planes[0] == ch][0]), int(planes[2][planes[0] == ch][0])) for ch in range(4)])


def oracle_q(states: np.ndarray) -> np.ndarray:
    """Q = minus the shortest-path length after each action: an optimal player."""
    q = np.full((len(states), 4), -100.0)
    for i, s in enumerate(states):
        if s.max() < 0.5:  # a finished game's placeholder row
            continue
        board = _decode(s)
        dist = _bfs_distance(board)
        for a in range(4):
            after, _ = gw.step(board, a)
            q[i, a] = -dist.get(after.player, 99)
    return q


def test_win_rate_of_an_optimal_player_is_the_books_ceiling():
    """99.67% of valid random boards are winnable and no shortest path exceeds 8 < 16 moves."""
    rate = win_rate.evaluate_win_rate(oracle_q, np.random.default_rng(0), games=1000)
    assert 0.99 <= rate < 1.0


def test_win_rate_of_a_player_that_only_goes_up_is_low():
    rate = win_rate.evaluate_win_rate(lambda s: np.tile([1.0, 0, 0, 0], (len(s), 1)), np.random.default_rng(0),
                                 games=1000)
    assert 0.05 < rate < 0.35  # wins only when the goal is straight above


def test_play_game_replays_a_seeded_game_step_by_step():
    replay = win_rate.play_game(oracle_q, seed=11)
    assert replay.won
    assert len(replay.boards) == len(replay.actions) + 1 == len(replay.rewards) + 1
    for before, a, after, r in zip(replay.boards, replay.actions, replay.boards[1:], replay.rewards, strict=False):
        assert gw.step(before, a) == (after, r)
    assert win_rate.play_game(oracle_q, seed=11).to_dict() == replay.to_dict()
    assert json.loads(json.dumps(replay.to_dict()))["won"] is True


def test_saved_model_reloads_with_the_same_q_values(tmp_path):
    agent = dqn.Agent(DQNConfig(seed=2), "graph")
    path = qnet.save_model(agent.online, tmp_path / "agent.keras")
    states = np.random.default_rng(0).random((5, 64), dtype=np.float32)
    np.testing.assert_allclose(qnet.load_q_function(path)(states), agent.q_values(states), rtol=1e-6)


# ---------------------------------------------------------------- devices


def test_gpu_request_without_a_gpu_is_one_clear_sentence():
    with pytest.raises(DeviceError, match=r"^GPU requested but TensorFlow sees none: .*; use --device cpu\.$"):
        check_device("gpu", visible_gpus=[])
    assert check_device("gpu", visible_gpus=["GPU:0"]) == "/GPU:0"
    assert check_device("cpu") == "/CPU:0"


def test_training_on_gpu_fails_before_any_step_when_none_is_visible():
    if tf.config.list_physical_devices("GPU"):
        pytest.skip("a GPU is visible here")
    rep = reporting.ListReporter()
    with pytest.raises(DeviceError):
        dqn.train(DQNConfig(device="gpu", **TINY), rep)
    assert rep.info is None and rep.records == []


@pytest.mark.gpu
def test_a_train_step_runs_on_the_gpu():
    if not tf.config.list_physical_devices("GPU"):
        pytest.skip("no GPU visible to TensorFlow on this machine")
    result = dqn.train(DQNConfig(device="gpu", exec_mode="graph", **TINY))
    assert "GPU" in result.agent.online.weights[0].device
