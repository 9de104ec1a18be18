"""A run of a person's own code, in the process that runs the code: the harness (``TrainingRun``), the hooks that
find its steps (``tracking.hooks.AutoSteps``), ``model.fit`` given the lab's callback, and what the run says when
it ends. One session per process at a time (``active()``): ``rlcore.init()`` inside a script run by ``rlcore
profile`` joins the script's session instead of starting a second run.

Where the steps come from, most explicit first: ``run.step()`` in the code; ``model.fit``'s batches (the callback);
optimizer updates and calls of a training ``tf.function`` (the hooks); and, when the code only logs, each
``run.log()`` call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from rlcore.contract.reporting import STEPS_PER_S, TRAINING, Reporter
from rlcore.contract.summary import RunSummary
from rlcore.tracking.datasets import Notes
from rlcore.tracking.hooks import AutoSteps, Cancelled, Patches, person_frame
from rlcore.tracking.run import TrainingRun
from rlcore.workloads.script.config import ScriptConfig

_ACTIVE: list[Session] = []
LOGGED = "run.log() calls"

NO_STEPS = ("No training step was seen. The lab counts a step at each optimizer update run eagerly (Keras's "
            "optimizer.apply or apply_gradients), each call of a tf.function whose trace applies gradients, and each "
            "batch of model.fit; code that trains otherwise can say so itself: run = rlcore.init(), then "
            "with run.step(): around an iteration, or run.log(loss=...) once per step.")


def active() -> Session | None:
    """The session of this process, if a run of the user's code is on."""
    return _ACTIVE[-1] if _ACTIVE else None


class Session:
    """One run of the user's code in this process. ``reporter`` takes its records; a cancelled run raises
    ``Cancelled`` into the code at its next step (``raise_on_cancel``), or only says so (``rlcore.init``)."""

    def __init__(self, reporter: Reporter | None, cfg: ScriptConfig, *, raise_on_cancel: bool = True,
                 on_cancel: Callable[[], None] | None = None, profile_dir: str | None = None) -> None:
        self.cfg = cfg
        self.run = TrainingRun(reporter, kind="script", unit="steps", config=asdict(cfg), rate_key=STEPS_PER_S,
                               profile=cfg.profile, profile_after=cfg.warmup, profile_dir=profile_dir)
        self.raise_on_cancel = raise_on_cancel
        self.run.raise_divergence = raise_on_cancel  # rlcore.init: a NaN loss stops the run, the code goes on
        self.auto = AutoSteps(self.run, on_cancel=self.check_cancel)
        self.datasets = Notes()  # the pipelines it iterates: what a cause of waiting for input reads
        self.keras: dict[str, Any] = {}
        self.fit_calls = KerasCalls("model.fit")  # each call's batches: a fit per batch is a habit the lab names
        self.batch_calls = KerasCalls("train_on_batch")  # ... its samples: one sample a call is another
        self.explicit = False  # the code marks its own steps (run.step())
        self.logged_steps = 0  # run.log() calls, the steps of code that only logs
        self._on_cancel = on_cancel
        self._patches = Patches()
        self._fix: Patches | None = None
        self._started = False

    # ------------------------------------------------------------ lifecycle

    @property
    def stopped(self) -> bool:
        """Whether the run was asked to stop (a cancel from the dashboard or the CLI)."""
        return self.run.stopped

    def start(self) -> Session:
        self.run.start(TRAINING)
        if self.cfg.fix:  # a fix tried on the script: its patches before any of the script runs
            from rlcore.tracking.causes import apply_fix

            self._fix = apply_fix(self.cfg.fix)
        self.auto.install()
        self.datasets.install()
        self._give_fit_the_callback()
        _ACTIVE.append(self)
        self._started = True
        return self

    def _give_fit_the_callback(self) -> None:
        with contextlib.suppress(ImportError):
            import keras

            from rlcore.workloads.script.keras_callback import LabCallback

            session = self

            def make(original: Callable) -> Callable:
                def fit(model: Any, *args: Any, **kwargs: Any) -> Any:
                    if session.explicit:
                        return original(model, *args, **kwargs)
                    session.keras["batch_size"] = _batch_size(args, kwargs)
                    x = args[0] if args else kwargs.get("x")
                    if hasattr(x, "element_spec"):  # a tf.data dataset: Keras iterates it its own way
                        session.datasets.note(x)
                    calls = session.fit_calls
                    if calls.one_batch_each():  # fit called once per batch: each call is a step, set-up and all
                        calls.note(batches=1)
                        session.auto.boundary("calls of model.fit")
                        with session.auto.aside():
                            result = original(model, *args, **kwargs)
                        _take_loss(session.run, result)
                        return result
                    callbacks = list(kwargs.pop("callbacks", None) or [])
                    if not any(isinstance(c, LabCallback) for c in callbacks):
                        callbacks.insert(0, LabCallback(session=session))
                    before = session.run.steps
                    with session.auto.aside():  # the callback counts fit's batches
                        result = original(model, *args, callbacks=callbacks, **kwargs)
                    calls.note(batches=session.run.steps - before)
                    return result
                return fit

            self._patches.wrap(keras.Model, "fit", make)

            def compiled(original: Callable) -> Callable:
                def compile(model: Any, *args: Any, **kwargs: Any) -> Any:
                    site = person_frame()
                    if site is not None:  # the line that holds what compile was told (run_eagerly=True)
                        session.keras["compile_site"] = site
                    return original(model, *args, **kwargs)
                return compile

            self._patches.wrap(keras.Model, "compile", compiled)

            def one_batch(original: Callable) -> Callable:
                def train_on_batch(model: Any, x: Any = None, *args: Any, **kwargs: Any) -> Any:
                    session.batch_calls.note(batches=int(getattr(x, "shape", (0,))[0] or 0))
                    return original(model, x, *args, **kwargs)
                return train_on_batch

            self._patches.wrap(keras.Model, "train_on_batch", one_batch)

    def end(self) -> dict[str, Any]:
        """The code ended: the last step closes, the clock stops where it ended, the profile is read; the summary
        (not yet given to the reporter: ``finish``)."""
        if self in _ACTIVE:
            _ACTIVE.remove(self)
        self.auto.close()
        self.auto.remove()
        self.datasets.remove()
        self._patches.remove()
        if self._fix is not None:
            self._fix.remove()
        if self.run.step_open:
            self.run.end_step(report=False)
        train_seconds = self.run.stop_clock(at_last_step=True)
        context = {"steps_per_execution": self.keras.get("steps_per_execution"),
                   "jit_compile": self.keras.get("jit_compile"), "run_eagerly": self.keras.get("run_eagerly"),
                   "compile_site": self.keras.get("compile_site"), "steps": self.run.steps,
                   "keras_calls": [c.as_fact() for c in (self.fit_calls, self.batch_calls) if c.calls],
                   "datasets": self.datasets.pipelines}
        profile = self.run.read_profile(compile_seconds=self.run.compile_seconds, train_seconds=train_seconds,
                                        facts=context)
        self.run.emit(last=True)
        source = asdict(self.auto.source)
        if self.explicit:
            source["kind"] = "run.step()"
        elif self.keras:
            source["kind"] = "model.fit's batches" + (f" ({self.keras['steps_per_execution']:,} per step)" if
                                                       (self.keras.get("steps_per_execution") or 1) > 1 else "")
            source["loss_from"] = "Keras's logs"
        summary: dict[str, Any] = {
            "steps": self.run.steps, "timed_steps": self.run.timed_steps, "train_seconds": train_seconds,
            "steps_per_second": self.run.timed_steps / train_seconds if train_seconds > 0 else 0.0,
            "compile_seconds": self.run.compile_seconds, "step_source": source, "keras": dict(self.keras),
            "stopped_early": self.run.stopped, "profile": profile,
        }
        if self.run.diverged:
            summary["diverged"] = self.run.diverged
        if self.cfg.fix:
            from rlcore.tracking.causes import fixes

            summary["fix"] = {"name": self.cfg.fix, "change": fixes()[self.cfg.fix].change, "of": self.cfg.fix_of}
        batch = self.keras.get("batch_size")
        if batch:
            summary["batch_size"] = batch
            summary["samples_per_second"] = summary["steps_per_second"] * batch  # steps count batches (K per call)
        if not self.run.steps:
            summary["no_steps"] = NO_STEPS
        return summary

    def finish(self, summary: dict[str, Any]) -> RunSummary:
        return self.run.finish(summary)

    # ------------------------------------------------------------ what the code says

    def describe_keras(self, **facts: Any) -> None:
        self.keras.update({k: v for k, v in facts.items() if v is not None})

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        """The code marks a step itself: from now on the hooks count nothing."""
        if not self.explicit:
            self.explicit = True
            self.auto.standing_aside += 1
        self.run.begin_step()
        try:
            yield
        finally:
            self.run.end_step(units, compiles=self.run.steps == 0)
            self.check_cancel()

    def log(self, metrics: dict[str, Any]) -> bool:
        """What the code logs; in code that shows the lab no steps, each call is one."""
        if not self.explicit and not self.keras and self.auto.source.kind in ("", LOGGED):
            self.logged_steps += 1
            self.auto.boundary(LOGGED)
        return self.run.log_each(**metrics)

    def check_cancel(self) -> None:
        """Asked to stop (a cancel from the dashboard or the CLI): raise into the code at this step boundary (a
        script's run), or leave it to the code, which ``log`` and ``stopped`` tell (``rlcore.init``)."""
        if self.run.stopped:
            if self._on_cancel is not None:
                self._on_cancel()
            if self.raise_on_cancel:
                raise Cancelled("the run was cancelled")


class KerasCalls:
    """The calls of one Keras training method the person's code made: how many, how much each ran (model.fit: its
    batches; train_on_batch: its samples), and the line that made them."""

    ONE_BATCH = 2  # fit calls of one batch each after which each call is counted as the step (it is the habit)

    def __init__(self, method: str) -> None:
        self.method = method
        self.calls = 0
        self.units = 0
        self.site: tuple[str, int, str] | None = None

    def note(self, *, batches: int) -> None:
        """One more call; its line looked up once (a call per sample must stay cheap)."""
        self.calls += 1
        self.units += max(0, batches)
        if self.site is None:
            self.site = person_frame()

    def one_batch_each(self) -> bool:
        return self.calls >= self.ONE_BATCH and self.units <= self.calls

    def as_fact(self) -> dict[str, Any]:
        return {"method": self.method, "calls": self.calls, "per_call": self.units / self.calls if self.calls else 0,
                "site": self.site}


def _take_loss(run: Any, history: Any) -> None:
    """A fit call's loss from the History it returns (no lab callback ran inside it)."""
    with contextlib.suppress(Exception):
        run.add_loss(float(history.history["loss"][-1]))


def _batch_size(args: tuple, kwargs: dict) -> int | None:
    """model.fit's batch: its batch_size, Keras's default of 32 for arrays, or the dataset's, when it says."""
    if kwargs.get("batch_size"):
        return int(kwargs["batch_size"])
    x = args[0] if args else kwargs.get("x")
    if x is None:
        return None
    spec = getattr(x, "element_spec", None)
    if spec is not None:  # a tf.data dataset: batched if its first dimension is fixed
        first = spec[0] if isinstance(spec, tuple) else spec
        shape = getattr(first, "shape", None)
        return int(shape[0]) if shape is not None and len(shape) and shape[0] is not None else None
    return 32 if hasattr(x, "shape") else None
