"""A run's status, one enum for every part (the store keeps its value as text; a ``StrEnum`` equals that text).

A run is ``queued`` until an executor takes it, ``running`` while it trains, then ends ``done`` (with its summary),
``cancelled``, ``diverged`` (a NaN loss) or ``failed`` (with the reason). Only ``runs.lifecycle`` writes an end.
"""

from __future__ import annotations

import enum


class RunStatus(enum.StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    DIVERGED = "diverged"

    @property
    def live(self) -> bool:
        """Not ended yet: waiting for an executor, or training."""
        return self in LIVE


LIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
FINISHED = (RunStatus.DONE, RunStatus.CANCELLED)  # ends that keep a summary (a cancelled run keeps what it trained)
