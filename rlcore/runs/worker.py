"""One stored run trained in this process, whoever started the process: the local executor's worker (``python -m
rlcore.runs --run ID``), the CLI in the foreground (a user's script under ``rlcore profile`` too), a Ray task, an
executor of a test. Every executor's one path:

- ``prepare``: before the run's framework starts here, its device, threads, XLA cache and capture folder;
- ``run``: the run's environment card (its framework imported under the pinned device) and its life through
  ``lifecycle.RunLifecycle`` over a sink (the store on this machine, or a cluster's service);
- ``execute``: ``run`` over this machine's store (what a plug-in executor calls).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlcore.contract.reporting import Reporter, TeeReporter
from rlcore.contract.workloads import Workload, devices_of, threads_of
from rlcore.runs.lifecycle import CANCEL_GRACE_SECONDS, Ended, RunLifecycle, Sink, StoreSink
from rlcore.runs.store import Store
from rlcore.tracking.machine import prepare_process

LOG_NAME = "worker.log"  # a run's log in its folder: tracebacks go there, never to a page or a terminal


def prepare(cfg: Any, *, home: Path, profile_dir: Path, threads: int | None = None) -> None:
    """Before the run's framework starts in this process (it reads them only then): its device, its CPU threads
    (the config's, unless ``threads`` says otherwise; 0: the framework's own), the XLA cache under ``home``, and
    where a profile's capture goes."""
    prepare_process(",".join(devices_of(cfg)), home, threads=threads_of(cfg) if threads is None else threads,
                    profile_dir=profile_dir)


def run(sink: Sink, workload: Workload, cfg: Any, *, environment: dict[str, Any] | None = None,
        also: Reporter | None = None, started: bool = False, log: Path | None = None,
        grace: float | None = CANCEL_GRACE_SECONDS) -> Ended | None:
    """Train a run in this process and record its end through ``sink``: done (summary and artifacts), cancelled,
    diverged or failed with the message. ``environment``: more for its card (a cluster node); ``also`` hears every
    record too (the CLI's progress); ``started``: the run was stored running in this process already; ``log``:
    where a traceback goes (by default this process's stderr, which the queue runner sends to the run's log);
    ``grace``: after a cancel, how long training may take to stop (None: a cluster's service stops it). None when
    the run was no longer queued (cancelled meanwhile)."""
    from rlcore.tracking.machine import card_for  # imports the run's framework, under the pinned device

    card = card_for(workload.framework(cfg)) | ({"code": workload.code(cfg)} if workload.code else {})
    life = RunLifecycle(sink, grace=grace, log=log)
    if not life.start(card | (environment or {}), already_running=started):
        return None
    return life.run(lambda reporter: workload.train(cfg, TeeReporter(reporter, also) if also is not None
                                                    else reporter))


def execute(store: Store, run_id: int, workload: Workload, cfg: Any, *, also: Reporter | None = None,
            started: bool = False, log: Path | None = None) -> Ended | None:
    """``run`` over this machine's store."""
    return run(StoreSink(store, run_id), workload, cfg, also=also, started=started, log=log)
