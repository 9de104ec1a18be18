"""The executor registry: which engine runs queued runs. Nothing above this module knows which one it is.

An executor is one module that calls ``EXECUTORS.register(...)``: how it takes queued runs (``submit``), how it
stops one (``cancel``; by default the run is asked and its end awaited), which of its runs' processes are gone
(``reconcile``: the store asks before every read), and what the sidebar may show of it (``describe``, such as a
cluster's nodes). Built in: ``local`` (``rlcore.runs.local``: a queue runner on this machine starts one worker
process per run, oldest first; the default, nothing to install) and ``ray`` (``rlcore.runs.ray_executor``: tasks on
a cluster; the cluster extra). Plug-ins: an installed package's entry point in the ``rlcore.executors`` group, or a
module named in ``RLCORE_EXECUTORS``. A run is created with the executor of ``RLCORE_EXECUTOR`` (or ``--executor``)
and keeps it, so it is always executed and cancelled by the engine it was queued for.

This module never imports the store (the store asks it): engines get the store they work on as an argument.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from rlcore.contract import settings
from rlcore.contract.registry import Registry

ENV = settings.EXECUTOR.name
PLUGIN_ENV = settings.EXECUTORS.name
DEFAULT = "local"

Store = Any  # rlcore.runs.store.Store (not imported: the store imports this module)


@dataclass(frozen=True)
class Executor:
    name: str
    description: str
    submit: Callable[[Store, list[Any]], None]  # take these queued runs of yours; return at once
    cancel: Callable[[Store, int], str] | None = None  # stop one run and say how it ended; None: ask and wait
    describe: Callable[[], dict[str, Any]] | None = None  # what it has (a cluster's nodes), for the sidebar
    title: str = ""  # the sidebar's heading over what ``describe`` returns
    # The runs of yours that ended without a word (their process is gone): run id -> why. None: nothing to check.
    reconcile: Callable[[Store], dict[int, str]] | None = None


EXECUTORS: Registry[Executor] = Registry("executor", group="rlcore.executors", env=PLUGIN_ENV,
                                         builtin_modules=("rlcore.runs.local", "rlcore.runs.ray_executor"))


def register(executor: Executor) -> Executor:
    return EXECUTORS.register(executor.name, executor)


def names() -> list[str]:
    return EXECUTORS.names()


def get(name: str) -> Executor:
    """The executor called ``name``, or one sentence listing those there are."""
    return EXECUTORS.get(name)


def current(name: str | None = None) -> str:
    """The executor new runs go to: the given name, else $RLCORE_EXECUTOR, else local; one sentence if unknown."""
    return get(name or settings.EXECUTOR.text() or DEFAULT).name


def submit(store: Store, run_ids: Iterable[int]) -> None:
    """Hand queued runs to the engines they were created for; return at once."""
    by_engine: dict[str, list[Any]] = {}
    for run in (store.get_run(i) for i in run_ids):
        if run is not None:
            by_engine.setdefault(run.executor, []).append(run)
    for name, runs in by_engine.items():
        get(name).submit(store, runs)


def cancel(store: Store, run_id: int, wait_seconds: float = 15.0) -> str:
    """Ask a run to stop and wait for its end: a queued one ends at once, a running one at its next report;
    past its grace the engine stops it by force (the local worker's process group, the Ray task)."""
    run = store.get_run(run_id)
    engine = get(run.executor) if run is not None else None
    if engine is not None and engine.cancel is not None:
        return engine.cancel(store, run_id)
    store.request_cancel(run_id)
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        run = store.get_run(run_id)
        if run is None or not run.live:
            break
        time.sleep(0.2)
    return run.status if run else "deleted"
