"""The executor seam: which engine runs queued runs. Nothing above this module knows which one it is.

``local`` (the default, nothing to install): a queue runner on this machine starts one worker process per run,
oldest first. ``ray``: a service actor on the cluster's head submits them as Ray tasks (rlcore.runs.ray_executor;
needs the cluster extra). The executor is chosen by ``RLCORE_EXECUTOR`` (or ``--executor``) when a run is
created and stored with it, so a run is always executed, cancelled and judged by the engine it was queued for.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable

from rlcore.config import ConfigError
from rlcore.runs import worker
from rlcore.runs.store import Store

EXECUTORS = ("local", "ray")
ENV = "RLCORE_EXECUTOR"


def current(name: str | None = None) -> str:
    """The executor new runs go to: the given name, else $RLCORE_EXECUTOR, else local; one sentence if unknown."""
    name = name or os.environ.get(ENV) or "local"
    if name not in EXECUTORS:
        raise ConfigError(f"executor must be one of {', '.join(EXECUTORS)}, not {name!r}.", "executor")
    return name


def submit(store: Store, run_ids: Iterable[int]) -> None:
    """Hand queued runs to the engines they were created for; return at once. The engines take every queued run
    of theirs in creation order."""
    runs = [r for r in (store.get_run(i) for i in run_ids) if r is not None]
    local = [r for r in runs if r.executor == "local"]
    if local:
        worker.launch(store, local[0].id)
    if any(r.executor == "ray" for r in runs):
        from rlcore.runs import ray_executor

        ray_executor.submit(store)


def cancel(store: Store, run_id: int, wait_seconds: float = 15.0) -> str:
    """Ask a run to stop and wait for its end: a queued one ends at once, a running one at its next report;
    past its grace the engine stops it by force (the local worker's process group, the Ray task)."""
    run = store.get_run(run_id)
    if run is not None and run.executor == "local":
        return worker.cancel(store, run_id)
    store.request_cancel(run_id)
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        run = store.get_run(run_id)
        if run is None or not run.live:
            break
        time.sleep(0.2)
    return run.status if run else "deleted"
