"""``rlcore.init()``: your own training loop as a run of the lab, in one line, stored from its first step.

    run = rlcore.init(name="my port", profile=50)     # or: with rlcore.init(...) as run:
    for batch in data:
        with run.step():                              # optional: the lab finds optimizer updates by itself
            loss = train_step(batch)
        run.log(loss=loss, accuracy=acc)              # tensors are fetched only when a record is made
    run.finish()                                      # or at the end of the with-block, or when Python exits

Offline, as everything of the lab: the run goes into the store under ``$RLCORE_HOME`` (default ``./.rlcore``), the
dashboard shows it live, nothing is sent anywhere. Inside a script that ``rlcore profile`` runs, ``init`` joins that
script's run instead of starting another. A cancel from the dashboard is heard at the next ``log`` (it answers
False) and in ``run.stopped``; the code decides how to stop.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rlcore.contract.params import LABEL_MAX, check_text
from rlcore.runs.store import Store
from rlcore.runs.worker import Heartbeat, StoreReporter, shared_machine
from rlcore.tracking.capture import PROFILE_DIR
from rlcore.tracking.machine import card_for
from rlcore.workloads.script import KIND, code_card
from rlcore.workloads.script import session as sessions
from rlcore.workloads.script.config import WARMUP, ScriptConfig


class OwnRun:
    """Your run. ``log(**metrics)`` records (``loss`` is the run's loss) and answers whether to go on; ``step()``
    marks a step; ``finish()`` ends it (done; ``failed``/``cancelled`` when the code raised or was interrupted)."""

    def __init__(self, session: sessions.Session, *, store: Store | None = None, run_id: int | None = None,
                 heartbeat: Heartbeat | None = None) -> None:
        self.session, self.store, self.id, self._heartbeat = session, store, run_id, heartbeat
        self._owner = store is not None  # this run was started here (not a script's run that init joined)
        self._pid = os.getpid()
        self._finished = False

    @property
    def stopped(self) -> bool:
        """Whether the run was asked to stop (a cancel from the dashboard or the CLI)."""
        return self.session.run.stopped

    def _here(self) -> bool:
        return os.getpid() == self._pid and not self._finished  # a forked child reports nothing

    def log(self, **metrics: Any) -> bool:
        return self.session.log(metrics) if self._here() else False

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        if not self._here():
            yield
            return
        with self.session.step(units):
            yield

    def finish(self, status: str = "done", error: str | None = None) -> None:
        if not self._here() or not self._owner:
            return
        self._finished = True
        try:
            full = self.session.finish(self.session.end())
        finally:
            if self._heartbeat is not None:
                self._heartbeat.__exit__(None, None, None)
        if self.stopped and status == "done":
            status = "cancelled"
        if status == "done":
            self.store.finish(self.id, status, summary=full | shared_machine(self.store, self.id))
        else:
            self.store.finish(self.id, status, error=error)
        with contextlib.suppress(Exception):
            atexit.unregister(self._at_exit)

    def _at_exit(self) -> None:
        self.finish()

    def __enter__(self) -> OwnRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, *_: object) -> None:
        if kind is None:
            self.finish()
        elif issubclass(kind, KeyboardInterrupt):
            self.finish("cancelled", "interrupted (Ctrl-C)")
        else:
            self.finish("failed", f"{kind.__name__}: {error}" if str(error) else kind.__name__)


def init(name: str = "", *, profile: int = 0, warmup: int = WARMUP, home: str | Path | None = None) -> OwnRun:
    """Start a run of this process's own training (or join the one ``rlcore profile`` started for it)."""
    joined = sessions.active()
    if joined is not None:
        return OwnRun(joined)
    main = getattr(sys.modules.get("__main__"), "__file__", None) or (sys.argv[0] if sys.argv else "")
    script = str(Path(main).resolve()) if main and Path(main).is_file() else ""
    cfg = ScriptConfig(path=script, args=json.dumps(sys.argv[1:]), cwd=os.getcwd(), profile=profile, warmup=warmup,
                       name=name)
    label = check_text(name, "name", LABEL_MAX) or (Path(script).name if script else "your code")
    store = Store(home)
    run_id = store.insert_run(KIND, asdict(cfg), label, running_pid=os.getpid())
    store.set_environment(run_id, card_for("tensorflow") | ({"code": code_card(cfg)} if script else {}))
    reporter = StoreReporter(store, run_id)
    heartbeat = Heartbeat(store, run_id, reporter, grace=None).__enter__()  # the code decides how to stop
    session = sessions.Session(reporter, cfg, raise_on_cancel=False,
                               profile_dir=str(store.run_dir(run_id) / PROFILE_DIR)).start()
    own = OwnRun(session, store=store, run_id=run_id, heartbeat=heartbeat)
    atexit.register(own._at_exit)
    previous = sys.excepthook

    def failed(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        if issubclass(kind, KeyboardInterrupt):
            own.finish("cancelled", "interrupted (Ctrl-C)")
        else:
            own.finish("failed", f"{kind.__name__}: {error}" if str(error) else kind.__name__)
        previous(kind, error, trace)

    sys.excepthook = failed
    return own
