"""How turbo configs stored by earlier versions of the lab read today, by the store schema version that brought each
change: no stored run changes its meaning."""

from __future__ import annotations

from typing import Any

SOFT_TARGET_AT = 12  # the store version at which turbo's target network became soft (tau) by default
AVERAGED_TEST_AT = 13  # the store version at which turbo's test began to play the target's averaged weights


def hard_target_as_run(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 12: turbo runs made before the tau setting copied the target every `sync` updates (tau 0);
    their configs say so, rather than taking today's default soft target."""
    config.setdefault("tau", 0.0)
    return config


def online_test_as_run(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 13: before the test_average setting turbo's test played the online network, and its defaults
    were 512 games and a first layer of 64 units (a sweep's fixed values may leave them to the defaults)."""
    for name, value in (("test_average", False), ("games", 512), ("hidden1", 64)):
        config.setdefault(name, value)
    return config


UPGRADES = {SOFT_TARGET_AT: hard_target_as_run, AVERAGED_TEST_AT: online_test_as_run}
