"""TensorFlow's own op-level reading of a step, for a step no rule found a cause in: which of the counts and the
host's time split dominates (retraces, a compile, a GPU's copies or launches, ops launched one by one, conversions,
Python, function-call set-up, or the arithmetic). The rules (``tracking.causes``) decide every other verdict; a
page shows one."""

from __future__ import annotations

from typing import Any

from rlcore.contract.profile import Cause

LAUNCH_BOUND_OPS = 20  # eager ops per step from which launching them one by one is the story


def decide(n: Any, compile_seconds: float = 0.0, train_seconds: float = 0.0) -> Cause:
    """The op-level verdict of a capture's numbers (``xplane.StepNumbers``, per marker)."""
    step = n.step_seconds
    if n.retraces:
        return Cause.RETRACING
    if compile_seconds > 0 and train_seconds > 0 and compile_seconds > train_seconds:
        return Cause.COMPILE
    if n.gpu and n.copy_seconds > 0.3 * step:
        return Cause.COPY
    if n.gpu and n.device_kernels >= LAUNCH_BOUND_OPS and n.device_busy_seconds < 0.3 * step:
        return Cause.KERNEL_LAUNCH
    if n.eager_ops >= LAUNCH_BOUND_OPS and n.dispatch_seconds + n.python_seconds > n.compute_seconds:
        return Cause.LAUNCH
    if n.conversion_seconds > 0.3 * step:
        return Cause.CONVERSION
    if n.python_seconds > 0.5 * step:
        return Cause.PYTHON
    if n.dispatch_seconds > n.compute_seconds:
        return Cause.DISPATCH
    return Cause.COMPUTE
