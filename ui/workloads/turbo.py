"""Turbo's own views: the trained agent's replayed games, as the DQN's (the same game, the same test)."""

from __future__ import annotations

from rlcore.workloads.dqn.turbo import KIND
from ui import extras
from ui.workloads.dqn import dqn_replays

extras.register(KIND, extras.WorkloadViews(finished=dqn_replays))
