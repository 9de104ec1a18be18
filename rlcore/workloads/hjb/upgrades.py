"""How HJB configs stored by earlier versions of the lab read today (applied by the store when it migrates)."""

from __future__ import annotations

from typing import Any


def threads_as_run(config: dict[str, Any]) -> dict[str, Any]:
    """Store version 7: runs made before the threads setting ran with TensorFlow's default (threads 0)."""
    config.setdefault("threads", 0)
    return config


UPGRADES = {7: threads_as_run}
