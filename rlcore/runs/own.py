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

The code itself is run by the workload that declares ``own_code`` (the script workload); this module is the front
door: the store, the run's life (``lifecycle.RunLifecycle``), the process's exit and uncaught exceptions.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rlcore.contract import workloads
from rlcore.contract.status import RunStatus
from rlcore.contract.summary import RunSummary
from rlcore.contract.workloads import CodeSession, Outcome
from rlcore.runs import service
from rlcore.runs.lifecycle import RunLifecycle, StoreSink
from rlcore.runs.store import Store
from rlcore.tracking.capture import PROFILE_DIR

DASHBOARD = "http://127.0.0.1:8501"  # where `make run` serves the dashboard


class OwnRun:
    """Your run. ``log(**metrics)`` records (``loss`` is the run's loss) and answers whether to go on; ``step()``
    marks a step; ``finish()`` ends it (done; ``failed``/``cancelled`` when the code raised or was interrupted)."""

    def __init__(self, session: CodeSession, *, life: RunLifecycle | None = None, run_id: int | None = None,
                 store: Store | None = None) -> None:
        self.session, self.id, self._life, self._store = session, run_id, life, store
        self._pid = os.getpid()
        self._finished = False

    @property
    def stopped(self) -> bool:
        """Whether the run was asked to stop (a cancel from the dashboard or the CLI)."""
        return self.session.stopped

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

    def finish(self, status: RunStatus = RunStatus.DONE, error: str | None = None, *, show: bool = True) -> None:
        if not self._here() or self._life is None:  # a run init joined is its script's to end
            return
        self._finished = True
        try:
            summary = self.session.finish(self.session.end())
        finally:
            self._life.stop_beating()
        if status == RunStatus.DONE and summary.diverged:
            ended = self._life.fail(RunStatus.DIVERGED, summary.diverged)
        elif status == RunStatus.DONE:
            ended = self._life.done(Outcome(summary, stopped=self.stopped))
        else:
            ended = self._life.fail(status, error or status)
        with contextlib.suppress(Exception):
            atexit.unregister(self._at_exit)
        if show:  # (not when the lab itself drives the code and says where the run is: a notebook run headless)
            self._print_where_it_is(ended.status, summary)

    def _print_where_it_is(self, status: str, summary: RunSummary) -> None:
        """Where the run is, as W&B and MLflow say at the end: its id, its verdict, its link, the command; in a
        notebook, its why in the cell (``rlcore.notebook.display``)."""
        from rlcore.tracking import kernel

        if kernel.in_kernel() and self.id is not None:
            from rlcore.notebook import display

            display.show(self.id, self._store)
            return
        with contextlib.suppress(Exception):
            profile = summary.profile
            why = f", {profile.verdict}" if profile is not None and profile.ok and profile.findings else ""
            rate = summary.steps_per_second
            speed = f", {rate:,.3g} steps/s" if rate else ""
            print(f"rlcore: run {self.id} {status}{why}{speed}; its view: {DASHBOARD}/runs?run={self.id} "
                  f"(make run serves it), or: rlcore runs show {self.id}", file=sys.stderr)

    def _at_exit(self) -> None:
        if self in _OPEN_FITS:
            _OPEN_FITS.discard(self)
            self.finish(RunStatus.FAILED, FIT_RAISED)
        else:
            self.finish()


    def __enter__(self) -> OwnRun:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, *_: object) -> None:
        if kind is None:
            self.finish()
        else:
            self.finish(*_ended_by(kind, error))

    # A model.fit this run's Keras callback began and has not ended (Keras skips on_train_end when fit raises, and
    # a script may catch that): the run ends failed at the next sign of it, as a loop's raised block does.
    def fit_began(self) -> None:
        _OPEN_FITS.add(self)

    def fit_ended(self) -> None:
        _OPEN_FITS.discard(self)


FIT_RAISED = "its model.fit raised before it ended"
_OPEN_FITS: set[OwnRun] = set()


def _ended_by(kind: type[BaseException], error: BaseException | None) -> tuple[str, str]:
    """A run's end from what ended its block, as a shell reads an exit: sys.exit(0) or sys.exit() is done."""
    if issubclass(kind, SystemExit) and getattr(error, "code", None) in (0, None):
        return RunStatus.DONE, ""
    if issubclass(kind, KeyboardInterrupt):
        return RunStatus.CANCELLED, "interrupted (Ctrl-C)"
    return RunStatus.FAILED, f"{kind.__name__}: {error}" if str(error) else kind.__name__


def init(name: str = "", *, profile: int = 0, warmup: int = 10, home: str | Path | None = None,
         fix: str = "", fix_of: int = 0) -> OwnRun:
    """Start a run of this process's own training (or join the one ``rlcore profile`` started for it); ``fix``
    (with ``fix_of``, the run it is tried on): a fix the lab applies without an edit, put on for this run only
    (a notebook's cell run again with it)."""
    for raised in list(_OPEN_FITS):  # a fit that raised and was caught: its run ended then, failed
        _OPEN_FITS.discard(raised)
        raised.finish(RunStatus.FAILED, FIT_RAISED)
    from rlcore.tracking import kernel

    kernel.quiet_native_logs()  # in a notebook: TensorFlow's C++ lines stay out of the cells
    code = workloads.code_workload()
    own = code.own_code
    joined = own.joined()
    if joined is not None:
        return OwnRun(joined)
    cfg = code.make_config(own.config_of_this_process(name, profile, warmup)
                           | ({"fix": fix, "fix_of": fix_of} if fix else {}))
    store = Store(home)
    run_id = service.create_run(store, code.kind, cfg, own.label(cfg), running_pid=os.getpid())
    from rlcore.tracking.machine import card_for

    card = card_for(code.framework(cfg))
    code_card = code.code(cfg) if code.code else {}
    life = RunLifecycle(StoreSink(store, run_id), grace=None)  # the code decides how to stop
    life.start(card | ({"code": code_card} if code_card else {}), already_running=True)
    life.begin_beating()
    reporter = life.reporter
    if kernel.in_kernel():  # a notebook: its progress as one line in the cell, updated in place
        from rlcore.contract.reporting import TeeReporter
        from rlcore.notebook.display import Progress

        reporter = TeeReporter(life.reporter, Progress())
    session = own.start(reporter, cfg, str(store.run_dir(run_id) / PROFILE_DIR))
    run = OwnRun(session, life=life, run_id=run_id, store=store)
    atexit.register(run._at_exit)
    previous = sys.excepthook

    def failed(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        run.finish(*_ended_by(kind, error))
        previous(kind, error, trace)

    sys.excepthook = failed
    return run


@functools.cache
def keras_callback() -> type:
    """``rlcore.keras.Callback``: the code workload's Keras callback, which starts a run of its own (``init``)
    when ``fit`` begins without one."""
    base = workloads.code_workload().own_code.keras_callback()

    class Callback(base):  # type: ignore[misc, valid-type]
        """``profile``: batches to record with TensorFlow's profiler after ``warmup`` batches; ``name``: the run's
        name (default: the script's)."""

        def __init__(self, profile: int = 0, warmup: int = 5, name: str = "") -> None:
            super().__init__(profile, warmup, name, start=init)

    Callback.__module__ = "rlcore.keras"
    return Callback
