"""Turbo: the tensor Gridworld against the numpy rules on every board, the in-graph Adam, and the loop."""

import numpy as np
import pytest
import tensorflow as tf

from rlcore.contract import reporting
from rlcore.contract.params import ConfigError, from_dict
from rlcore.workloads.dqn import gridworld as gw
from rlcore.workloads.dqn import gridworld_tf as gtf
from rlcore.workloads.dqn import metrics as dqn_metrics
from rlcore.workloads.dqn import win_rate
from rlcore.workloads.dqn.turbo import loop as dqn_turbo
from rlcore.workloads.dqn.turbo.config import TurboConfig


def test_the_valid_board_table_is_every_valid_board_once():
    table = gtf.valid_boards()
    assert table.shape == (43_616, 4)
    assert len({tuple(row) for row in table}) == 43_616
    assert all(gw.is_valid_board(gtf.from_cells(row)) for row in table[::997])


def test_tensor_step_equals_numpy_step_for_every_valid_board_and_action():
    """Exhaustive: 43,616 boards x 4 actions, next positions and rewards."""
    table = gtf.valid_boards()
    for action in range(4):
        after, rewards = gtf.step(tf.constant(table), tf.fill([len(table)], action))
        expected = [gw.step(gtf.from_cells(row), action) for row in table]
        np.testing.assert_array_equal(after.numpy(), [gtf.to_cells(b) for b, _ in expected], err_msg=f"action {action}")
        np.testing.assert_array_equal(rewards.numpy(), [r for _, r in expected], err_msg=f"action {action}")


def test_tensor_encoding_equals_the_books_64_vector_for_every_valid_board():
    table = gtf.valid_boards()
    encoded = gtf.encode(tf.constant(table), tf.zeros([len(table), 64])).numpy()
    np.testing.assert_array_equal(encoded, np.stack([gw.encode(gtf.from_cells(row)) for row in table]))


def test_random_boards_are_valid_and_uniform_over_the_valid_set():
    table = gtf.valid_boards()
    drawn = gtf.random_boards(tf.random.Generator.from_seed(3), 200_000, tf.constant(table)).numpy()
    assert {tuple(b) for b in drawn[:5000]} <= {tuple(b) for b in table}
    # Chi-square of the player's cell against its exact frequency among valid boards (15 degrees of freedom).
    expected = np.bincount(table[:, 0], minlength=16) / len(table) * len(drawn)
    observed = np.bincount(drawn[:, 0], minlength=16)
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 37.7  # the 0.999 quantile of chi-square(15)


def test_in_graph_adam_takes_the_same_steps_as_keras_adam():
    import keras

    start = [np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), np.arange(4, dtype=np.float32)]
    ours, theirs = [tf.Variable(x) for x in start], [tf.Variable(x) for x in start]
    mine, keras_adam = dqn_turbo.InGraphAdam(ours, 0.01), keras.optimizers.Adam(0.01)
    for k in range(5):
        grads = [tf.sin(v * (k + 1)) for v in ours]
        mine.apply(grads)
        keras_adam.apply_gradients(zip(grads, theirs, strict=True))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


SMALL = {"games": 32, "batch": 32, "memory": 2048, "chunk": 5, "xla": False, "test_games": 100}


def test_same_seed_same_chunks_same_weights():
    def run(seed):
        agent = dqn_turbo.TurboAgent(TurboConfig(seed=seed, **SMALL))
        losses = [float(agent.chunk(tf.constant(10))) for _ in range(3)]
        return losses, [w.numpy() for w in agent.online.weights], int(agent.games)

    (l1, w1, g1), (l2, w2, g2), (l3, _, _) = run(7), run(7), run(8)
    assert l1 == l2 and g1 == g2
    for a, b in zip(w1, w2, strict=True):
        np.testing.assert_array_equal(a, b)
    assert l1 != l3


@pytest.mark.parametrize("tau", [0.01, 0.0])
def test_the_target_trails_the_online_net_softly_or_is_copied_every_sync_updates(tau):
    """One update at a time: with tau the target moves tau of the way to the online weights after the gradient step;
    with tau 0 it stays put until the sync-th update, then equals the online weights."""
    agent = dqn_turbo.TurboAgent(TurboConfig(seed=1, tau=tau, sync=3, test_average=bool(tau), **SMALL))
    agent.chunk(tf.constant(2))  # fills the ring past a batch (2 x 32 games); one update ran
    update = tf.function(agent._update, autograph=False)
    for _ in range(4):
        before = [t.numpy() for t in agent.target.weights]
        update()
        online, target = [o.numpy() for o in agent.online.weights], [t.numpy() for t in agent.target.weights]
        for b, o, t in zip(before, online, target, strict=True):
            if tau:
                np.testing.assert_allclose(t, b + (o - b) * tau, rtol=1e-5, atol=1e-7)
            elif int(agent.updates) % 3 == 0:
                np.testing.assert_array_equal(t, o)
            else:
                np.testing.assert_array_equal(t, b)
        copied = not tau and int(agent.updates) % 3 == 0
        if not copied:  # the online net took a step the target has not (all) followed
            assert any(not np.array_equal(t, o) for t, o in zip(target, online, strict=True))


@pytest.mark.parametrize("average", [True, False])
def test_the_test_plays_the_targets_averaged_weights_or_the_online_nets_last(average):
    """What the book's test and the saved model see: the target network (the online weights averaged by tau) when
    test_average is on, else the online network; the two differ after training."""
    agent = dqn_turbo.TurboAgent(TurboConfig(seed=1, test_average=average, **SMALL))
    agent.chunk(tf.constant(10))
    states = np.random.default_rng(0).random((50, 64), dtype=np.float32)
    online, target = agent.online(states).numpy(), agent.target(states).numpy()
    assert not np.allclose(online, target)
    np.testing.assert_array_equal(agent.q_values(states), target if average else online)
    assert agent.played is (agent.target if average else agent.online)


def test_a_chunk_counts_steps_games_and_updates_and_fills_the_ring():
    cfg = TurboConfig(seed=1, **SMALL)
    agent = dqn_turbo.TurboAgent(cfg)
    agent.chunk(tf.constant(0))
    assert int(agent.collected) == 0 and int(agent.updates) == 0  # compiling moves nothing
    agent.chunk(tf.constant(20))
    assert int(agent.collected) == 20
    assert int(agent.updates) == 20 * cfg.updates  # the ring holds a batch after the first step
    assert int(agent.mem_size) == 20 * 32 and int(agent.games) > 0
    rewards = agent.memory.numpy()[:640, 9]
    assert set(np.unique(rewards)) <= {-10, -1, 10}
    assert (agent.memory.numpy()[:640, 10] == (rewards != -1)).all()  # done at goal and pit (pit_ends)


def test_turbo_learns_the_game_within_a_fixed_number_of_steps():
    """300 collected steps of the default configuration (XLA), then the book's test."""
    agent = dqn_turbo.TurboAgent(TurboConfig(seed=0))
    for _ in range(12):
        agent.chunk(tf.constant(25))
    won = win_rate.evaluate_win_rate(agent.q_values, np.random.default_rng(5), games=500)
    assert won > 0.85


def test_train_reports_like_the_other_styles_and_times_compile_apart():
    reporter = reporting.ListReporter()
    result = dqn_turbo.train(TurboConfig(train_seconds=0.4, seed=2, **SMALL), reporter)
    summary = result.summary()
    assert summary["compile_seconds"] > 0 and summary["train_seconds"] >= 0.4
    # It stops at the first chunk past its budget: every training report but the last is within the budget.
    testing = [r.phase for r in reporter.records].index(reporting.TESTING)
    training = [r.wall_seconds for r in reporter.records[:testing] if "time/in-graph" in r.metrics]
    assert training[-1] == summary["train_seconds"] and all(t < 0.4 for t in training[:-1])
    assert summary["steps"] > 0 and summary["updates"] > 0
    assert set(summary["phase_seconds"]) == {"compile", "in-graph", "eval"}
    assert summary["phase_seconds"]["compile"] == summary["compile_seconds"]
    assert [r.phase for r in reporter.records if r.phase][:2] == [reporting.COMPILING, reporting.TRAINING]
    names = set().union(*(r.metrics for r in reporter.records))
    assert {reporting.LOSS, dqn_metrics.ENV_STEPS_PER_S, dqn_metrics.GAMES, dqn_metrics.EPSILON, dqn_metrics.WIN_RATE,
            "time/compile", "time/in-graph", "time/eval"} <= names
    assert 0 <= summary["win_rate"] <= 1 and reporter.summary["compile_seconds"] == summary["compile_seconds"]


def test_turbo_settings_are_checked_in_one_sentence():
    with pytest.raises(ConfigError, match="batch must not exceed memory"):
        TurboConfig(batch=500, memory=100)
    with pytest.raises(ConfigError, match="double must be true or false, not 'maybe'"):
        TurboConfig(double="maybe")
    with pytest.raises(ConfigError, match=r"test_average needs tau > 0") as raised:
        TurboConfig(tau=0)  # a whole copy every sync updates is no average to test
    assert raised.value.field == "test_average"
    assert TurboConfig(tau=0, test_average=False).tau == 0
    # Switches are booleans; a link or a sweep written with on/off (before switches) reads the same.
    assert from_dict(TurboConfig, {"double": "off"}).double is False
    assert from_dict(TurboConfig, {"xla": "true"}).xla is True


def test_cli_turbo_writes_json_and_keeps_the_compiled_loop(tmp_path):
    """The second run loading it is tested through the worker (tests/rlcore/runs/test_worker.py)."""
    import json
    import os
    import subprocess
    import sys

    env = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2", "RLCORE_HOME": str(tmp_path / "home")}
    env.pop("TF_XLA_FLAGS", None)

    def turbo(out):
        run = subprocess.run([sys.executable, "-m", "rlcore", "turbo", "--train-seconds", "0.3",
                              "--games", "64", "--test-games", "100", "--quiet", "--json", str(out)],
                             capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr
        return json.loads(out.read_text()), run.stdout

    first, stdout = turbo(tmp_path / "a.json")
    assert first["compile_seconds"] > 0 and first["train_seconds"] >= 0.3 and first["updates"] > 0
    assert "64 games at once on cpu" in stdout and "XLA cache: miss" in stdout and first["xla_cache"] == "miss"
    assert any((tmp_path / "home" / "xla_cache").iterdir())


def test_cli_turbo_rejects_a_negative_budget_in_one_sentence():
    import subprocess
    import sys

    bad = subprocess.run([sys.executable, "-m", "rlcore", "turbo", "--train-seconds", "-1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: train_seconds must be at least 0.01, not -1.")


def test_the_xla_cache_flag_is_added_once_and_read_back(tmp_path):
    from rlcore.tracking.machine import enable_xla_cache, xla_cache_dir

    env = {"TF_XLA_FLAGS": "--tf_xla_auto_jit=0"}
    enable_xla_cache(tmp_path / "c", env)
    enable_xla_cache(tmp_path / "other", env)  # an existing cache setting wins
    assert xla_cache_dir(env) == str(tmp_path / "c") and env["TF_XLA_FLAGS"].startswith("--tf_xla_auto_jit=0 ")
    assert xla_cache_dir({}) is None


@pytest.mark.parametrize("mode", ["static", "player"])
def test_turbo_games_start_on_the_boards_of_their_mode_like_the_books_game(mode):
    """The start boards of a mode are exactly those the numpy game draws, and turbo draws them uniformly."""
    table = gtf.start_boards(mode)
    rng = np.random.default_rng(0)
    assert {tuple(gtf.to_cells(gw.new_board(mode, rng))) for _ in range(2000)} == {tuple(r) for r in table}
    assert len(table) == {"static": 1, "player": 13}[mode]
    drawn = gtf.random_boards(tf.random.Generator.from_seed(1), 13_000, tf.constant(table)).numpy()
    assert {tuple(b) for b in drawn} == {tuple(r) for r in table}
    counts = np.unique(drawn[:, 0], return_counts=True)[1]
    expected = len(drawn) / len(table)  # 1,000 on each of player mode's 13 cells; all 13,000 on the static one
    assert counts.min() > 0.85 * expected and counts.max() < 1.15 * expected


def test_turbo_trains_and_is_tested_in_the_configured_mode():
    agent = dqn_turbo.TurboAgent(TurboConfig(mode="static", seed=0, **SMALL))
    assert {tuple(b) for b in agent.boards.numpy()} == {tuple(gtf.to_cells(gw.STATIC_BOARD))}
    agent.chunk(tf.constant(10))
    assert {tuple(b[1:]) for b in agent.memory.numpy()[:320, :4]} == {tuple(gtf.to_cells(gw.STATIC_BOARD)[1:])}


def test_the_dqns_old_turbo_style_names_its_new_place_in_one_sentence():
    """turbo was the DQN's style: its old command says the same run's command now, and a DQN config of that style
    (a sweep's, the Python API's) says where turbo went; nothing runs."""
    import subprocess
    import sys

    from rlcore.workloads.dqn.config import DQNConfig

    old = subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--exec", "turbo", "--turbo-games", "64", "--lr",
                          "0.1", "--turbo-xla=false", "--json", "x.json"], capture_output=True, text=True, timeout=60)
    assert old.returncode == 2 and old.stdout == ""
    assert old.stderr == ("error: turbo is a workload of its own now; the same run: rlcore turbo --games 64 --xla "
                          "false --json x.json (left out, as turbo never read them: lr).\n")
    with pytest.raises(ConfigError, match=r"^turbo is a workload of its own now: .* turbo_lr is lr\)\.$"):
        DQNConfig(exec_mode="turbo")
