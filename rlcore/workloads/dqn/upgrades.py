"""How DQN configs stored by earlier versions of the lab read today, by the store schema version that brought
each change (the store applies them when it migrates): no stored run changes its meaning."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlcore.contract.workloads import Moved


def honest_budget(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 4: turbo's old "0 = 1 s" training budget written out."""
    if config.get("train_seconds") == 0.0:
        config["train_seconds"] = 1.0
    return config


def threads_as_run(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 7: book-loop runs made before the threads setting ran with TensorFlow's default (threads 0);
    their configs say so, rather than taking today's default of one thread (turbo does not have the setting)."""
    if config.get("exec_mode") != "turbo":
        config.setdefault("threads", 0)
    return config


SWITCHES = ("turbo_pit_ends", "turbo_double", "turbo_xla")


def switches_as_booleans(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 8: turbo's on/off settings became true/false."""
    for name in SWITCHES:
        if config.get(name) in ("on", "off"):
            config[name] = config[name] == "on"
    return config


TURBO_MOVED_AT = 11  # the store version at which turbo, a style of this workload, became a workload of its own


def without_turbo(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 11: the book loop's runs no longer carry turbo's settings (turbo's own runs moved first)."""
    return {k: v for k, v in config.items() if not k.startswith("turbo_") and k != "train_seconds"}


UPGRADES = {4: honest_budget, 7: threads_as_run, 8: switches_as_booleans, TURBO_MOVED_AT: without_turbo}
TURBO_KIND = "turbo"
# What turbo read of a DQN config besides its turbo_* settings: the game, the test, the budget and the machine.
TURBO_READ = ("mode", "max_moves", "gamma", "test_noise", "test_games", "test_max_moves", "device", "seed", "profile",
              "train_seconds")
TURBO_RENAMED = {"turbo_lr": "learning_rate"}  # turbo's own learning rate is its only one now


def turbo_moved(values: Mapping[str, Any]) -> Moved | None:
    """A DQN config (stored, or a link's values by field or flag name) of the old turbo style, as the turbo
    workload's values: its ``turbo_*`` settings without the prefix, what it shared with the book's loop as it was;
    the book loop's own settings, which turbo never read, are left behind. None for the book's styles."""
    if values.get("exec_mode", values.get("exec")) != TURBO_KIND:
        return None
    moved = {}
    for name, value in values.items():
        if name.startswith("turbo_"):
            moved[TURBO_RENAMED.get(name, name.removeprefix("turbo_"))] = value
        elif name in TURBO_READ:
            moved[name] = value
    return Moved(TURBO_KIND, moved)
