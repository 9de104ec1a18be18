"""What a run knows about its steps that the capture does not hold, typed: the rules (``tracking.causes``) and the GPU
estimate read these fields. Made once, where a profiled window is read (``tracking.why``), from the window's own
notes (retraces, call sites, functions) and what the run's code told it (Keras's steps_per_execution, datasets)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StepFacts:
    """Facts beside a profiled window's numbers. ``functions``: each tf.function by name, with the options it was
    made with (``jit_compile``, ``reduce_retracing``); ``retraces``: why each retraced; ``retrace_sites``: its call
    site and def line; ``where_steps``: the steps the person's lines were counted in; ``datasets``: each tf.data
    pipeline's stages as the hooks saw them being built."""

    retraces: Mapping[str, str] = field(default_factory=dict)
    retrace_sites: Mapping[str, Any] = field(default_factory=dict)
    functions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    where_steps: int = 0
    numpy_args: Mapping[str, Any] = field(default_factory=dict)  # numpy handed to a tf.function: (calls, bytes, at)
    callbacks: Mapping[str, Any] = field(default_factory=dict)  # Keras callbacks by class: on_train_batch_end's def
    made: Mapping[str, Any] = field(default_factory=dict)  # tf.functions made in the window: (count, made, called)
    compile_seconds: float = 0.0
    train_seconds: float = 0.0
    steps_per_marker: int = 1
    cpu_seconds_per_marker: float = 0.0
    steps_per_execution: int = 1
    jit_compile: bool = False
    run_eagerly: bool = False  # Keras's model.compile(run_eagerly=True): every batch's ops launched one by one
    compile_site: tuple[str, int, str] | None = None  # the person's model.compile(...) line
    # Keras's training methods the person called: [{"method": "model.fit", "calls", "per_call" (batches; samples
    # for train_on_batch), "site"}]
    keras_calls: tuple[Mapping[str, Any], ...] = ()
    steps: int = 0
    datasets: tuple[Mapping[str, Any], ...] = ()

    @classmethod
    def of(cls, facts: StepFacts | Mapping[str, Any] | None) -> StepFacts:
        """Facts from a mapping of them (what a test or an older caller passes); unknown names are left out, a
        missing or empty one takes its default."""
        if isinstance(facts, StepFacts):
            return facts
        names = {f.name: f for f in dataclasses.fields(cls)}
        values = {k: v for k, v in (facts or {}).items() if k in names and v is not None}
        for name in ("where_steps", "steps_per_marker", "steps_per_execution", "steps"):
            if name in values:
                values[name] = int(values[name] or (1 if name in ("steps_per_marker", "steps_per_execution") else 0))
        for name in ("compile_seconds", "train_seconds", "cpu_seconds_per_marker"):
            if name in values:
                values[name] = float(values[name] or 0.0)
        for name in ("jit_compile", "run_eagerly"):
            if name in values:
                values[name] = bool(values[name])
        if "compile_site" in values:
            values["compile_site"] = tuple(values["compile_site"])
        for name in ("datasets", "keras_calls"):
            if name in values:
                values[name] = tuple(values[name])
        return cls(**values)

    @property
    def compiled_with_xla(self) -> bool:
        """XLA asked for: Keras's jit_compile, or any of the person's tf.functions made with it."""
        return self.jit_compile or any(f.get("jit_compile") for f in self.functions.values())
