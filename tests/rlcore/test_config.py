"""DQNConfig: the book's defaults, and one clear sentence for every invalid value."""

import dataclasses

import pytest

from rlcore.contract.params import ConfigError, from_dict
from rlcore.workloads.dqn.config import DQNConfig


def test_defaults_are_the_books_final_listing():
    cfg = DQNConfig()
    assert (cfg.mode, cfg.epochs, cfg.gamma, cfg.epsilon, cfg.learning_rate) == ("random", 5000, 0.9, 0.3, 1e-3)
    assert (cfg.memory_size, cfg.batch_size, cfg.sync_every, cfg.max_moves) == (1000, 200, 500, 51)
    assert (cfg.hidden1, cfg.hidden2) == (150, 100)
    assert (cfg.train_noise, cfg.test_noise, cfg.test_games, cfg.test_max_moves) == (0.01, 0.1, 1000, 16)
    assert cfg.warmup == 200


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"batch_size": 2000}, "batch must not exceed memory"),
        ({"epsilon": 1.5}, "epsilon must be at most 1"),
        ({"epsilon": -0.1}, "epsilon must be at least 0"),
        ({"mode": "maze"}, "mode must be one of static, player, random"),
        ({"epochs": 0}, "epochs must be at least 1"),
        ({"exec_mode": "fast"}, "exec must be one of naive, eager, graph, xla, pytorch"),
        ({"device": "tpu"}, "device must be one of cpu, gpu"),
        ({"epochs": 2.5}, "epochs must be a whole number"),
        ({"gamma": float("nan")}, "gamma must be a finite number"),
        ({"batch_size": -5}, "batch must be at least 1"),
        ({"learning_rate": True}, "lr must be a number"),
    ],
)
def test_invalid_values_raise_one_sentence(changes, message):
    with pytest.raises(ConfigError) as err:
        DQNConfig(**changes)
    text = str(err.value)
    assert text.startswith(message)
    assert text.endswith(".") and "\n" not in text


def test_from_dict_coerces_strings_and_rejects_unknown_names():
    cfg = from_dict(DQNConfig, {"epochs": "10", "epsilon": "0.5", "exec_mode": "xla"})
    assert (cfg.epochs, cfg.epsilon, cfg.exec_mode) == (10, 0.5, "xla")
    with pytest.raises(ConfigError, match="Unknown setting 'epoch'"):
        from_dict(DQNConfig, {"epoch": "10"})
    with pytest.raises(ConfigError, match="batch must be a whole number, not 'x'"):
        from_dict(DQNConfig, {"batch_size": "x"})


def test_round_trip_through_a_dict():
    cfg = DQNConfig(epochs=7, exec_mode="eager", seed=3)
    assert from_dict(DQNConfig, dataclasses.asdict(cfg)) == cfg


def test_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DQNConfig().epochs = 3  # type: ignore[misc]
