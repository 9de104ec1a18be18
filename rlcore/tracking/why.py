"""A run's why, made once at the end of its profiled window: capture (``tracking.capture``) -> reading
(``tracking.xplane``) -> rules (``tracking.causes`` through ``tracking.explain``) and TensorFlow's op-level reading
(``tracking.op_reading``) -> one typed ``Profile`` (``contract.profile``), which the run's summary stores as JSON.
The data goes one way: no stage asks a later one."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from rlcore.contract.profile import Profile, TopOp
from rlcore.contract.text import count_text, seconds_text
from rlcore.tracking import explain, gpu, op_reading, xplane
from rlcore.tracking.capture import Captured
from rlcore.tracking.causes import RULES
from rlcore.tracking.facts import StepFacts

# Of the step, the training thread's wait for a core from which the reading says the machine distorted it: quiet,
# the naive port's thread waited 0.1% of its step; beside a test suite on 2 cores, 63-75%.
WAITED_SHARE = 0.25


def profile(captured: Captured, *, compile_seconds: float = 0.0, train_seconds: float = 0.0,
            steps_per_marker: int = 1, facts: Mapping[str, Any] | None = None) -> Profile:
    """What a window captured, read and explained (a profile with ``error`` when there is nothing to read)."""
    if captured.error or captured.path is None:
        return Profile(error=captured.error or "The window captured nothing.", wanted_steps=captured.wanted)
    try:
        numbers = xplane.read_capture(captured.path)
    except Exception as e:  # a capture xprof cannot read: say so, keep the file
        return Profile(error=f"The capture could not be read ({type(e).__name__}: {str(e)[:200]}).",
                       capture=str(captured.path), wanted_steps=captured.wanted)
    known = StepFacts.of({"retraces": captured.retraces, "retrace_sites": captured.retrace_sites,
                          "functions": captured.functions, "made": captured.made, "numpy_args": captured.numpy_args,
                          "callbacks": captured.callbacks, "where_steps": captured.where_steps,
                          "compile_seconds": compile_seconds, "train_seconds": train_seconds,
                          "steps_per_marker": steps_per_marker,
                          "cpu_seconds_per_marker": captured.cpu_seconds_per_marker} | dict(facts or {}))
    profile = of_numbers(numbers, captured, facts=known, steps_per_marker=steps_per_marker)
    if captured.resized:  # a run shorter than the window asked for: said beside the reading
        profile = dataclasses.replace(profile, notes=(captured.resized, *profile.notes))
    return profile


def of_numbers(numbers: xplane.StepNumbers, captured: Captured, *, facts: StepFacts | Mapping[str, Any],
               steps_per_marker: int = 1) -> Profile:
    """The profile of a capture's numbers: the findings, the op-level verdict, one verdict of the two, the GPU
    estimate, and the numbers per training step."""
    k = max(1, steps_per_marker)
    facts = StepFacts.of(facts)
    compile_seconds, train_seconds = facts.compile_seconds, facts.train_seconds
    notes: list[str] = []
    found = explain.explain(numbers, steps_per_marker=k, facts=facts, calls=captured.calls, notes=notes)
    notes += list(RULES.skipped.values())  # an installed package's rule that could not load: said, never silent
    if numbers.stalled_seconds:
        notes.append(f"The machine was busy with other work: eager kernels stalled "
                     f"{seconds_text(numbers.stalled_seconds * numbers.read_steps)} in the window (each many times the "
                     f"time it took at the same place in the other steps); that time is left out of the step and of "
                     f"every part of it.")
    if numbers.held_steps:
        one = numbers.held_steps == 1
        notes.append(f"The machine was busy with other work: {count_text(numbers.held_steps, 'step')} of the window "
                     f"took {numbers.held_ratio:.2f}x{'' if one else ' or more'} the median time of the same work's "
                     f"steps; {'it is' if one else 'they are'} left out of the reading "
                     f"({count_text(numbers.read_steps, 'step')} of {numbers.steps:,} read).")
    wall = numbers.step_seconds + numbers.stalled_seconds  # the stalls left out of the step were waits too
    waited = min(getattr(numbers, "waited_seconds", 0.0), wall)
    if wall > 0 and waited >= WAITED_SHARE * wall:
        notes.append(f"The machine was busy with other work: the training thread waited for a core "
                     f"{seconds_text(waited / k)} a step, {waited / wall:.0%} of its wall time. That wait falls "
                     f"unevenly on the parts below (Python on the training thread waits most, a call that sleeps on "
                     f"TensorFlow's threads least), so their order is less sure than on a quiet machine.")
    # One reading: the verdict is the costliest cause in the code's words (TensorFlow's own counts stand beside it as
    # numbers, never as a second verdict that could contradict it).
    verdict = found[0].cause if found else op_reading.decide(numbers, compile_seconds, train_seconds)
    return Profile(
        verdict=verdict, findings=tuple(found),
        gpu_estimate=gpu.estimate(numbers, steps_per_marker=k, facts=facts), steps=numbers.steps * k,
        wanted_steps=captured.wanted, steps_per_marker=k, step_seconds=numbers.step_seconds / k,
        ops_per_step=numbers.ops / k, eager_ops_per_step=numbers.eager_ops / k,
        function_calls_per_step=numbers.function_calls / k, graph_ops_per_step=numbers.graph_ops / k,
        xla_ops_per_step=numbers.xla_ops / k, compute_seconds=numbers.compute_seconds / k,
        dispatch_seconds=numbers.dispatch_seconds / k, python_seconds=numbers.python_seconds / k,
        conversion_seconds=numbers.conversion_seconds / k, input_seconds=numbers.input_seconds / k,
        retraces=numbers.retraces, retraced=tuple(numbers.retraced), compile_seconds=compile_seconds,
        train_seconds=train_seconds, gpu=numbers.gpu, device_kernels_per_step=numbers.device_kernels / k,
        device_busy_seconds=numbers.device_busy_seconds / k, copy_seconds=numbers.copy_seconds / k,
        top_ops=tuple(TopOp(op["name"], op["self_seconds_per_step"] / k, op["share"]) for op in numbers.top_ops),
        spans={name: tuple(v) for name, v in numbers.spans.items()},
        eager_by_type={name: tuple(v) for name, v in numbers.eager_by_type.items()},
        functions={name: tuple(v) for name, v in numbers.functions.items()},
        capture=str(captured.path), logdir=str(captured.logdir or ""), notes=tuple(notes))
