"""Keras's training methods called for a batch or a sample at a time: ``model.fit`` once per batch (each call builds
its data adapter, its callbacks and its logs, and ends the epoch), or ``train_on_batch`` on one sample (as many RL
tutorials replay). Each call's set-up, paid per batch or per sample, outweighs the arithmetic; the fix is in the API
the person used: one fit over the data, or minibatches per call."""

from __future__ import annotations

from typing import Any

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, MIN_SECONDS, Part, Rule, Step, line_at, register

SMALL = 8  # samples per train_on_batch call from which its set-up is the cost (a replay of one transition)


def decide(step: Step) -> Part | None:
    calls = {c.get("method"): c for c in step.facts.keras_calls}
    fit, batch = calls.get("model.fit"), calls.get("train_on_batch")
    if fit and fit.get("calls", 0) >= 2 and fit.get("per_call", 0) <= 1:
        return _part(step, fit, "model.fit called once per batch: each call sets up its data, callbacks and logs",
                     f"{fit['calls']:,} calls of model.fit, {fit['per_call']:.0f} batch each",
                     "call model.fit once over all the data (arrays with batch_size, or a tf.data.Dataset) and let "
                     "it loop over the batches; for a loop of your own (an RL agent's replay), train_on_batch or a "
                     "tf.function step costs a fraction of a fit call")
    if batch and batch.get("calls", 0) >= 2 and 0 < batch.get("per_call", 0) <= SMALL:
        per = batch["per_call"]
        return _part(step, batch, f"train_on_batch on {per:.0f} sample{'s' if per != 1 else ''} a call: Keras's "
                     "set-up around every call outweighs its arithmetic",
                     f"{batch['calls']:,} calls of train_on_batch, {per:.0f} sample{'s' if per != 1 else ''} each",
                     "train on a minibatch per call (sample 32 or more transitions from the replay and pass them "
                     "to one train_on_batch): the set-up is paid per call, not per sample")
    return None


def _part(step: Step, call: dict[str, Any], title: str, counted: str, fix: str) -> Part | None:
    # The eager ops inside each call are Keras's own work (its data adapter's dataset ops, MakeIterator starting the
    # pipeline: 17 of a 44 ms fit call here), their kernels too; the arithmetic is the training function's kernels.
    own = step.eager_unclaimed()
    kernels = max(0.0, step.per(step.numbers.compute_seconds) - sum(k for *_, k in own))
    around = step.seconds - kernels - step.per(step.numbers.input_seconds)
    if around < MIN_SECONDS:
        return None
    step.claim_eager(op for op, *_ in own)
    step.overhead_taken = True
    where = (line_at(*call["site"]),) if call.get("site") else ()
    return Part(title, around, f"{counted}: {seconds_text(around)} of each step around "
                               f"{seconds_text(kernels)} of arithmetic", where=where, fix=fix, try_fix="")


register(Rule("keras_calls", Cause.KERAS_CALLS, decide, order=30, measures=("model.fit and train_on_batch calls",),
              threshold=f"two or more fit calls of one batch each, or train_on_batch on {SMALL} samples or fewer",
              guide=GUIDES["steps_per_execution"]))
