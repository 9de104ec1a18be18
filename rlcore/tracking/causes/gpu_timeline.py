"""On a GPU, read off its own timeline: copies between host and device that take a share of the step, and kernels
too small to pay for their launch (the GPU busy a small part of the step while it runs many kernels). Not checked
against a real GPU here (none was available): the reading follows TensorFlow's profiler's documented device planes."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, register

SHARE = 0.3  # of the step
KERNELS = 20  # kernels per step from which their launches are a story
UNTESTED = " (read from the GPU's timeline as TensorFlow's profiler documents it; not checked against a real GPU)"


def copies(step: Step) -> Part | None:
    n = step.numbers
    seconds = step.per(n.copy_seconds)
    if not n.gpu or seconds <= SHARE * step.seconds:
        return None
    return Part("copies between host and GPU", seconds, f"{seconds_text(seconds)} of copies a step" + UNTESTED)


def launches(step: Step) -> Part | None:
    n = step.numbers
    kernels, busy = step.per(n.device_kernels), step.per(n.device_busy_seconds)
    if not n.gpu or kernels < KERNELS or busy >= SHARE * step.seconds:
        return None
    return Part("GPU kernels too small for their launches", step.seconds - busy,
                f"{kernels:,.0f} kernels a step, the GPU busy {seconds_text(busy)} of {seconds_text(step.seconds)}"
                + UNTESTED)


register(Rule("gpu_copies", Cause.COPY, copies, order=75, measures=("MemcpyH2D", "MemcpyD2H"),
              threshold=f"copies above {SHARE:.0%} of the step",
              fix="keep the data on the device: make it tensors once, and fetch results every N steps",
              guide=GUIDES["gpu"]))
register(Rule("gpu_launches", Cause.KERNEL_LAUNCH, launches, order=76, measures=("the GPU's kernels",),
              threshold=f"{KERNELS}+ kernels a step with the GPU busy under {SHARE:.0%} of it",
              fix="fewer, larger kernels: a bigger batch, XLA's fused kernels (jit_compile=True), K steps per call",
              guide=GUIDES["gpu"]))
