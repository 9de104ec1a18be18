"""The executor seam: which engine runs queued runs. Nothing above this module knows which one it is.

``local`` (the default, nothing to install): a queue runner on this machine starts one worker process per run,
oldest first. The executor is chosen by ``RLCORE_EXECUTOR`` (or a CLI flag) when a run is created and stored with
it, so a run is always executed, cancelled and judged by the engine it was queued for.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from rlcore.config import ConfigError
from rlcore.runs import worker
from rlcore.runs.store import Store

EXECUTORS = ("local",)
ENV = "RLCORE_EXECUTOR"


def current(name: str | None = None) -> str:
    """The executor new runs go to: the given name, else $RLCORE_EXECUTOR, else local; one sentence if unknown."""
    name = name or os.environ.get(ENV) or "local"
    if name not in EXECUTORS:
        raise ConfigError(f"executor must be one of {', '.join(EXECUTORS)}, not {name!r}.", "executor")
    return name


def submit(store: Store, run_ids: Iterable[int]) -> None:
    """Hand queued runs to the engine they were created for; return at once."""
    ids = list(run_ids)
    if ids:
        worker.launch(store, ids[0])  # the local runner takes every queued local run in order


def cancel(store: Store, run_id: int) -> None:
    """Ask a run to stop: a queued one ends at once, a running one at its next report (or after a grace)."""
    store.request_cancel(run_id)
