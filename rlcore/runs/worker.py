"""One stored run trained in this process, whoever started the process: the local executor's worker (``python -m
rlcore.runs --run ID``), the CLI in the foreground, a user's script under ``rlcore profile``, an executor of a test.

``execute`` makes the run's environment card (after the run's framework is imported under the pinned device) and
lives the run through ``lifecycle.RunLifecycle`` over the store on this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rlcore.contract.reporting import Reporter, TeeReporter
from rlcore.contract.workloads import Workload
from rlcore.runs.lifecycle import Ended, RunLifecycle, StoreSink
from rlcore.runs.store import Store

LOG_NAME = "worker.log"  # a run's log in its folder: tracebacks go there, never to a page or a terminal


def execute(store: Store, run_id: int, workload: Workload, cfg: Any, *, also: Reporter | None = None,
            started: bool = False, log: Path | None = None) -> Ended | None:
    """Train a run in this process and record its end: done (summary and artifacts), cancelled, diverged or
    failed with the message. ``also`` hears every record too (the CLI's progress bar); ``started``: the run was
    stored running in this process already; ``log``: where a traceback goes (by default this process's stderr,
    which the queue runner sends to the run's log). None when the run was no longer queued (cancelled meanwhile)."""
    from rlcore.tracking.machine import card_for  # imports the run's framework, under the pinned device

    card = card_for(workload.framework(cfg)) | ({"code": workload.code(cfg)} if workload.code else {})
    life = RunLifecycle(StoreSink(store, run_id), log=log)
    if not life.start(card, already_running=started):
        return None
    return life.run(lambda reporter: workload.train(cfg, TeeReporter(reporter, also) if also is not None
                                                    else reporter))
