"""The GPU question on a machine without one: what a step would at least pay on a GPU that it does not pay on this
CPU, a launch per op and a copy between host and device per conversion of host data and per fetch to Python
(model.predict copies its input over and its output back). Not measured here: each constant is a published figure,
and the estimate is a range from the low to the high one. On a GPU run, the measured step stands beside it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rlcore.contract.profile import GpuEstimate
from rlcore.tracking.facts import StepFacts
from rlcore.tracking.hooks import LOGS, PREDICT, SYNC

LAUNCH_SECONDS = (5e-6, 20e-6)
LAUNCH_SOURCES = ("Holistic Trace Analysis (Meta), CUDA kernel launch statistics: \"the launch time on the CPU side "
                  "is between 5-20 microseconds\" (the range used here)",
                  "TensorFlow guide, Optimize TensorFlow GPU performance, Small GPU kernels and host kernel launch "
                  "delays: a launch latency \"around 20-40 μs\" (its example's 21.9 μs is a kernel's duration, not "
                  "a launch cost), so the range's top is no overstatement")
COPY_SECONDS = (5e-6, 7e-6)
COPY_SOURCE = ("Wu et al., DualPath (arXiv 2602.21548), §5.2: \"submitting a single copy operation via "
               "cudaMemcpyAsync incurs a latency overhead of approximately 5-7 μs\"")


def estimate(n: Any, *, steps_per_marker: int = 1, facts: StepFacts | Mapping[str, Any] | None = None) -> GpuEstimate:
    """The estimate for a capture's numbers (``xplane.StepNumbers``), per training step, held against the CPU step
    as the machine runs it with the least interference: the least of the window's quickest step and the process's
    own CPU time in a step, so a machine busy with other work does not turn the answer
    (a loaded CPU step is longer, a GPU's launches are not; on one shared core every step is longer, but not the
    CPU time it gets)."""
    facts = StepFacts.of(facts)
    k = max(1, steps_per_marker)
    launches = n.ops / k
    spans = {name: v[0] / k for name, v in n.spans.items()}
    copies = spans.get(SYNC, 0.0) + 2 * spans.get(PREDICT, 0.0) + n.conversions / k
    copies = max(copies, spans.get(LOGS, 0.0))
    low = launches * LAUNCH_SECONDS[0] + copies * COPY_SECONDS[0]
    high = launches * LAUNCH_SECONDS[1] + copies * COPY_SECONDS[1]
    step = n.step_seconds / k
    cpu = facts.cpu_seconds_per_marker
    bases = {"": step, "the window's quickest step": n.quiet_step_seconds / k or step,
             "the process's own CPU time in a step": cpu / k or step}
    basis = min(bases, key=lambda name: bases[name])
    xla = n.xla_ops > 0 or facts.compiled_with_xla
    return GpuEstimate(seconds_per_step=low, range_seconds_per_step=(low, high), launches_per_step=launches,
                       copies_per_step=copies, cpu_step_seconds=bases[basis], measured=bool(n.gpu),
                       sources=(*LAUNCH_SOURCES, COPY_SOURCE), measured_step_seconds=step if n.gpu else 0.0,
                       copy_seconds=n.copy_seconds / k, cpu_basis=basis, steps_per_call=k, xla=xla)
