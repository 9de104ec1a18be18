"""How DQN configs stored by earlier versions of the lab read today, by the store schema version that brought
each change (the store applies them when it migrates): no stored run changes its meaning."""

from __future__ import annotations

from typing import Any


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


UPGRADES = {4: honest_budget, 7: threads_as_run, 8: switches_as_booleans}
