"""The lab's Keras callback: ``model.fit`` reports through the lab's harness, with step markers xprof can read.

Each batch is a step of the run, from one ``on_train_batch_begin`` to the next (so a step holds the batch's callbacks
and Keras's fetching of its logs too); its logs (``loss``, ``accuracy``...: Keras's running means) are charted at each
record, and the epoch's validation numbers once per epoch, off the training clock. In the profile window every step is
wrapped in ``Trace("train", step_num=i, _r=1)``: the root marker xprof needs and Keras 3's own
``TensorBoard(profile_batch=)`` does not write, so xprof's overview finds the steps. A profiler that already runs (the
user's TensorBoard callback) is reported, never raised. With ``steps_per_execution=N`` Keras calls the hooks once per
N batches: a step is then N batches.

Used by ``model.fit`` under ``rlcore profile`` (added for you), or by you: ``model.fit(...,
callbacks=[rlcore.keras.Callback(profile=50)])``; without a run of its own it starts one (``rlcore.init``) and ends
it when ``fit`` returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras

from rlcore.contract.status import RunStatus

POINTS = 200  # records a fit makes at least, spread over its batches


class LabCallback(keras.callbacks.Callback):
    """``session``: the run's session (the lab's, under ``rlcore profile``); else ``start(name, profile, warmup)``
    makes one when training begins (``rlcore.init``), and the callback finishes it when training ends."""

    def __init__(self, profile: int = 0, warmup: int = 5, name: str = "", *, session: Any = None,
                 start: Callable[..., Any] | None = None) -> None:
        super().__init__()
        self.profile, self.warmup, self.name = profile, warmup, name
        self.session = session
        self._start = start
        self._owned: Any = None  # the user-facing run this callback started and so ends
        self._first = True
        self._units = 1
        self._begin = 0
        self._every = self._since = 0
        self._logs: dict | None = None  # the last batch's logs, charted at the next record
        self._per_epoch = 0

    # ------------------------------------------------------------ where the run is

    @property
    def run(self) -> Any:
        return self.session.run

    def on_train_begin(self, logs: dict | None = None) -> None:
        if self._owned is not None:  # the last fit with this callback raised (Keras then skips on_train_end)
            self._owned.fit_ended()
            self._owned.finish(RunStatus.FAILED, "its model.fit raised before it ended")
            self._owned = self.session = None
        if self.session is None and self._start is not None:  # rlcore.init: joins a run that stands, else starts one
            # Named as a person named it, else after the script (the model's name is Keras's "sequential")
            self._owned = self._start(name=self.name, profile=self.profile, warmup=self.warmup)
            self._owned.fit_began()
            self.session = self._owned.session
        if self.session is None:
            raise RuntimeError("the lab's callback has no run to report to: call rlcore.init() first, or use "
                               "rlcore.keras.Callback, which starts one.")
        self.session.auto.standing_aside += 1  # this callback counts fit's batches, until on_train_end
        # Batches are cheap and their logs already Python numbers: a record every 0.1 s, and at least every
        # 1/200 of the fit's batches, charts a fit densely (TensorBoard's update_freq="batch", thinned).
        self.run.report_every = min(self.run.report_every, 0.1)
        spe = int(getattr(self.model, "steps_per_execution", 1) or 1)
        total = int((self.params or {}).get("steps") or 0) * int((self.params or {}).get("epochs") or 1)
        self._every = max(1, total // POINTS // spe) if total else 0
        if total:  # a fit shorter than the profile window asks for is still profiled, over the steps it has
            self.run.capture.fit_to(total // spe)
        self._since = 0
        self._first = True
        self._units = spe
        self._per_epoch = int((self.params or {}).get("steps") or 0)  # 0: not known (a dataset of unknown size)
        self.session.describe_keras(steps_per_execution=spe, jit_compile=getattr(self.model, "jit_compile", None),
                                    run_eagerly=bool(getattr(self.model, "run_eagerly", False)))

    # ------------------------------------------------------------ batches are steps

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self._begin = batch
        run = self.run
        if not self._first and run.steady:  # the common case, kept short: one call ends the step, begins the next
            run.next_step(self._units, report=False)
            self._step_ended()
            return
        if run.step_open:
            run.end_step(self._units, compiles=self._first, report=False)
            self._first = False
            self._step_ended()
        elif run.timed_steps == 0:
            run.restart_clock()  # fit's set-up before its first batch is no part of the speed
        run.begin_step()

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        # Keras calls this with the call's last batch as it planned it (begin + steps_per_execution - 1, past the
        # epoch's end for its shorter last call: 200 batches at 32 a call are six of 32, then 8): the batches this
        # call ran are those up to the epoch's last, so the count is what ran.
        per_epoch = self._per_epoch
        last = min(batch, per_epoch - 1) if per_epoch else batch
        self._units = max(1, last - self._begin + 1)
        # Keras has made the logs Python numbers (its own fetch, every batch, with or without this callback). They
        # are Keras's running means over the epoch, so a record charts the last ones it saw: kept here, read only
        # when a record is made (issue 52: logging every batch's cost the training thread ~10 µs a batch).
        self._logs = logs
        self._since += 1
        if self._every and self._since >= self._every and not self.run.capture.excluding:
            self._chart()
        if self.run.stopped:  # a cancel from the dashboard or the CLI: fit stops at this batch, as EarlyStopping does
            self.model.stop_training = True

    def _step_ended(self) -> None:
        """A record when one is due; a cancel heard is raised into the code here, at the step's boundary."""
        if self.run.record_due:
            self._chart()
        if self.run.stopped:
            self.session.check_cancel()

    def _chart(self) -> None:
        """A record now, holding the last batch's logs."""
        self._since = 0
        self.run.emit(self._take_logs())

    def _take_logs(self) -> dict[str, Any]:
        """The last batch's logs, taken once: their ``loss`` handed to the run as its loss, the rest returned."""
        logs, self._logs = dict(self._logs or {}), None
        if "loss" in logs:
            self.run.add_loss(logs.pop("loss"))
        return logs

    # model.evaluate and model.predict call these too, with no training (and no run) of the callback's own.

    def on_test_begin(self, logs: dict | None = None) -> None:
        if self.session is not None:
            self.run.pause()  # validation is not training

    def on_test_end(self, logs: dict | None = None) -> None:
        if self.session is not None:
            self.run.resume()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        validation = {k: v for k, v in (logs or {}).items() if k.startswith("val_")}
        if validation and self.session is not None:
            self.run.emit(validation)

    def on_train_end(self, logs: dict | None = None) -> None:
        if self.session is None:
            return
        if self.run.step_open:
            self.run.end_step(self._units, compiles=self._first, report=False)
        if self._logs:  # the last batch's numbers leave with the run's last record
            self.run.log(**self._take_logs())
        self.session.auto.standing_aside -= 1
        if self._owned is not None:
            self._owned.fit_ended()
            self._owned.finish()
            self._owned = self.session = None  # a second fit with this callback is a run of its own
