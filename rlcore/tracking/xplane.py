"""What a capture says: per-step numbers from one ``.xplane.pb`` file with step markers.

The file's raw events (planes, lines, events: ``tracking.timeline``) where xprof's framework-op table has no rows
(eager ops on a CPU); xprof's table for graph kernels. Read per step: the ops executed, how many were launched
one by one from Python (eager), the function (graph) calls, the ops inside XLA clusters, retracings, the host's time
split into the ops' arithmetic, TensorFlow's dispatch around them and Python between TensorFlow calls; on a GPU its
kernels and copies; and in the code's words, the lab's spans (``rlcore:<what>``), eager ops by type outside them,
waits on a tf.data iterator, each tf.function's calls, and values turned into tensors.

xprof's modules are internal (pinned in requirements.txt; the parsing is tested on real captures). This module is
the data's second stage: capture (``tracking.capture``) -> reading (here) -> rules (``tracking.causes``) -> profile
(``tracking.why``).
"""

from __future__ import annotations

import bisect
import dataclasses
import json
import re
import statistics
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rlcore.tracking import timeline
from rlcore.tracking.capture import STEP_MARKER
from rlcore.tracking.hooks import SPAN
from rlcore.tracking.timeline import Event, Plane
from rlcore.tracking.waits import WAITED

GRAPH_OP = re.compile(r"^[^\s:]+:[A-Za-z_]\w*$")  # a graph op kernel's event: "scope/name:OpType"
_NOT_OPS = ("ThreadpoolListener", "ExecutorState", "ThunkExecutor", "end: ")
_HLO_CONTAINERS = ("while", "call", "conditional", "async-start", "async-done")
LAB_MARKERS = "the lab's step markers"
KERAS_MARKER = "Profiled batch"  # Keras 3's TensorBoard(profile_batch=...) wraps each batch in it (no _r=1)
KERAS_STEPS = "Keras's \"Profiled batch\" markers"
WHOLE = "the whole capture as one span (it has no step markers)"


@dataclasses.dataclass(frozen=True)
class StepNumbers:
    """Per-step means over the captured steps (seconds; counts per step)."""

    steps: int
    step_seconds: float
    ops: float
    eager_ops: float
    function_calls: float
    graph_ops: float
    xla_ops: float
    retraces: int
    retraced: tuple[str, ...]
    compute_seconds: float  # the ops' own arithmetic (kernels)
    dispatch_seconds: float  # TensorFlow around the ops: launching, conversion, function-call set-up
    python_seconds: float  # between TensorFlow calls, in Python
    conversion_seconds: float  # numpy (or Python values) turned into tensors, outside the spans
    top_ops: tuple[dict[str, Any], ...]
    device_kernels: float = 0.0  # on a GPU: kernels per step
    device_busy_seconds: float = 0.0
    copy_seconds: float = 0.0  # host <-> device copies per step
    gpu: bool = False
    # In the code's words, per step: the lab's spans (model.predict, tensor indexing, fetches to Python, Keras's
    # logs and callbacks) as {name: [count, seconds]}; outside them, eager ops by type {type: [count, seconds
    # launching each, seconds of its kernel]}, the time waiting on a tf.data iterator, each tf.function's calls
    # {name: [count, seconds]}, and the values turned into tensors (``conversions``, ``conversion_seconds``).
    spans: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    eager_by_type: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    input_seconds: float = 0.0
    functions: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    conversions: float = 0.0  # numpy (or Python values) turned into tensors, per step
    # The quickest step's own time: the step as the machine runs it with the least interference. A scheduler gives
    # a process runs of milliseconds, so on a busy machine some steps still run whole, while most are lengthened
    # (beside four busy processes and a test suite on two cores the lower quartile stretched a 0.9 ms step past
    # 2 ms). What a GPU estimate, and the part no rule explains, are held against.
    quiet_step_seconds: float = 0.0
    # The Python tf.data's own threads ran per step (a generator, a py_function or numpy_function map: PyFunc ops).
    # It overlaps the step; only the wait (``input_seconds``) is the step's own time.
    pipeline_python_seconds: float = 0.0
    # The step's own time (outside its waits for input) while tf.data's threads ran Python beside it, per step: the
    # step's Python then waits for the GIL the pipeline holds (Keras's set-up, its logs, the script's own lines). It
    # is the pipeline's cost, not theirs: it is taken out of ``dispatch_seconds`` and ``python_seconds`` (the part
    # outside TensorFlow's calls is ``input_held_outside_seconds``) and read by the input rule. Measured from the
    # timeline (an interval beside an interval), so a busy machine moves it with the parts it is taken from.
    input_held_seconds: float = 0.0
    input_held_outside_seconds: float = 0.0
    # Per step: what eager kernels took beyond their own time at the same place in the other steps (a kernel held
    # off its core on a busy machine: in a window of five 7 ms steps one stalled 18 ms beside a loaded suite). It is
    # the machine's, not the code's: left out of the arithmetic, of the step and of every part of it.
    stalled_seconds: float = 0.0
    # Python run as an op inside the step (a tf.py_function in the training function), per step: measured in its own
    # op, no part of the arithmetic nor of a call's set-up, and read by no rule: a part no rule explains, measured.
    python_op_seconds: float = 0.0
    steps_from: str = LAB_MARKERS  # how the steps were found
    # Steps of the window the machine held (``_undisturbed``): counted in ``steps`` (the steps captured) and left out
    # of every other number here; ``held_ratio`` is the least of them against the median of the same work's steps.
    held_steps: int = 0
    held_ratio: float = 0.0
    # Per step: how long the training thread waited for a core (``tracking.waits``, carried on the lab's markers;
    # 0 in a capture made elsewhere). Beside a test suite on 2 cores it was 63-75% of the naive port's step.
    waited_seconds: float = 0.0

    @property
    def read_steps(self) -> int:
        """The steps the per-step numbers are the means of."""
        return self.steps - self.held_steps


def read_capture(path: str | Path, *, any_capture: bool = False, planes: list[Plane] | None = None) -> StepNumbers:
    """Per-step numbers from one ``.xplane.pb`` capture with step markers; ``any_capture``: a
    capture made elsewhere, whose steps are Keras's "Profiled batch" markers, or with none the whole capture as one
    span (``steps_from`` says which). ``planes``: the file's timeline already read (``timeline.read``)."""
    host, devices = _lines(path, planes)
    python, windows, steps_from = _steps(host, any_capture)
    pipeline = _pipeline_python(host)
    compiled_waits = [e for _, events in host for e in events if e.name == COMPILED_WAIT]
    windows, held, held_ratio = _undisturbed(python, windows, [(e.start, e.end) for e in compiled_waits] + pipeline)
    steps = len(windows)
    inside = _within(windows)
    stalls = _stalls(python, windows)
    stalled = sum(e.duration - seconds for e, seconds in stalls.values())
    ops = _ops(python, host, inside, stalls)
    top_level = list(_top_level(python, inside))
    tf_time = sum(e.duration for e in top_level) - stalled
    calls = _union([(e.start, e.end) for e in top_level])
    retraced = _retraces(python, inside)
    step_total = sum(end - start for start, end in windows) - stalled
    compute = min(ops.compute, tf_time) if tf_time else ops.compute
    device_kernels, device_busy, copies = _device(devices, inside)
    # The ops by self time: graph kernels from xprof's framework-op table (an XLA cluster there is one op, so its
    # fused ops are read from the raw events instead), eager kernels from the raw events (the table has none).
    top = _ranked(_merged(_framework_ops(path), ops.eager_compute, ops.xla_compute), steps)
    spans, eager_by_type, python_waits, functions, conversions, conversion = _in_the_code_s_words(
        python, inside, windows, stalls)
    # Inside a compiled step (model.fit, a tf.function that iterates) the wait for input is no event of the Python
    # thread: it is the iterator's GetNext, on tf.data's own line.
    waits = _union(python_waits + [(e.start, e.end) for e in compiled_waits if inside(e)])
    waited = _covered(waits)  # inside TensorFlow's calls: not dispatch
    input_seconds = _steady(waits, windows)
    # TensorFlow's work inside the lab's spans (a callback's model call, model.predict) is the span's, counted in its
    # seconds: the set-up around the step's own calls leaves it out (a callback's launches read as Keras's set-up).
    spanned = _union([(e.start, e.end) for e in python if e.name.startswith(SPAN) and inside(e)])
    in_a_span = _within(spanned)
    tf_in_spans = _covered(_intersect(calls, spanned))
    kernels_in_spans = sum(_own(k, stalls) for k in ops.kernels if in_a_span(k))
    dispatch = max(0.0, (tf_time - tf_in_spans) - max(0.0, compute - kernels_in_spans) - waited - ops.python_ops)
    between = max(0.0, step_total - tf_time)
    held_in_calls = min(dispatch, _covered(_minus(_intersect(pipeline, calls), waits)))
    held_outside = min(between, _covered(_minus(_intersect(pipeline, windows), calls)))
    waited_for_a_core = _waited(python, windows)
    durations = [end - start for start, end in windows]
    quiet = min(durations)
    return StepNumbers(
        spans=spans, eager_by_type=eager_by_type, input_seconds=input_seconds, functions=functions,
        conversions=conversions, quiet_step_seconds=quiet,
        steps=steps + held, step_seconds=step_total / steps, ops=(ops.eager + ops.graph + ops.xla) / steps,
        eager_ops=ops.eager / steps, function_calls=ops.function_calls / steps, graph_ops=ops.graph / steps,
        xla_ops=ops.xla / steps, retraces=sum(retraced.values()), retraced=tuple(retraced),
        compute_seconds=compute / steps,
        dispatch_seconds=(dispatch - held_in_calls) / steps,
        python_seconds=(between - held_outside) / steps, conversion_seconds=conversion,
        input_held_seconds=(held_in_calls + held_outside) / steps, input_held_outside_seconds=held_outside / steps,
        top_ops=tuple(top), device_kernels=device_kernels / steps, device_busy_seconds=device_busy / steps,
        copy_seconds=copies / steps, gpu=bool(devices), steps_from=steps_from,
        pipeline_python_seconds=ops.pipeline_python / steps, stalled_seconds=stalled / steps,
        python_op_seconds=ops.python_ops / steps, held_steps=held, held_ratio=held_ratio,
        waited_seconds=waited_for_a_core / steps)


def _waited(python: list[Event], windows: list[tuple[float, float]]) -> float:
    """The training thread's wait for a core in the read steps, from their markers (0 when they carry none)."""
    starts = {start for start, _ in windows}
    total = 0.0
    for marker in python:
        if marker.name == STEP_MARKER and marker.start in starts and WAITED in marker.stats:
            try:
                total += max(0.0, float(marker.stats[WAITED])) * 1e-9
            except ValueError:
                continue  # a marker's text the lab did not write: no wait read from it
    return total


def _steps(host: list[tuple[str, list[Event]]], any_capture: bool) -> tuple[list[Event], list[tuple[float, float]],
                                                                             str]:
    """The training thread's events, its steps' windows and how they were found. The training thread's line is the
    one with the step markers (a line is named by its thread: "python", or "rlcore" under the console command)."""
    for name, found in ((STEP_MARKER, LAB_MARKERS), (KERAS_MARKER, KERAS_STEPS)):
        if name != STEP_MARKER and not any_capture:
            break
        python = max((events for _, events in host), key=lambda es: sum(e.name == name for e in es), default=[])
        markers = [e for e in python if e.name == name]
        if markers:
            return python, _disjoint(sorted((m.start, m.end) for m in markers)), found
    if not any_capture:
        raise ValueError("the capture has no step markers: no training step ran while the profiler recorded.")
    # No markers: the thread that launched the most TensorFlow work, its whole recorded span one step.
    python = max((events for _, events in host), key=lambda es: sum(e.name == "EagerExecute" for e in es),
                 default=[])
    if not python:
        raise ValueError("the capture holds no TensorFlow work on the host.")
    return python, [(min(e.start for e in python), max(e.end for e in python) + 1e-9)], WHOLE


HELD_RATIO = 1.25  # a step this many times the median of the same work's steps was held by the machine ...
HELD_SECONDS = 2e-3  # ... and longer by this much (a scheduler's slice: a few milliseconds)


def _undisturbed(python: list[Event], windows: list[tuple[float, float]],
                 not_its_own: list[tuple[float, float]]) -> tuple[list[tuple[float, float]], int, float]:
    """The steps the machine did not hold, how many it held and the least ratio of those to their work's median.

    Steps that ran the same TensorFlow calls in the same order (the same work) take about the same time on a quiet
    machine (the naive port's eight: 107-122 ms). On a busy one a step now and then takes a stall whole, in whichever
    part of it ran (a 59 ms launch part in a 148 ms step whose neighbours took 34 of 116): read in the mean, one such
    step reorders two causes a fifth apart. Such a step is left out when its own time (less its waits for input and
    the time tf.data's Python held the GIL beside it: the pipeline's, however uneven) is HELD_RATIO times the median
    of its work's steps and HELD_SECONDS more; never more than a minority of the window (the slowest first), and
    never a step whose work is its own (a heavier step, a checkpoint's, is the code's)."""
    if len(windows) < SAME_PLACE:
        return windows, 0, 0.0
    starts = [start for start, _ in windows]
    work: list[list[tuple[float, str]]] = [[] for _ in windows]
    waits: list[tuple[float, float]] = []
    for e in python:
        i = bisect.bisect_right(starts, e.start) - 1
        if i >= 0 and e.end <= windows[i][1] + 1e-9 and e.name != STEP_MARKER:
            work[i].append((e.start, e.name))
            if e.name.startswith("IteratorGetNext"):
                waits.append((e.start, e.end))
    waits = _union(waits + not_its_own)
    own = [end - start for start, end in windows]
    for start, end in _intersect(waits, windows):
        own[bisect.bisect_right(starts, start) - 1] -= end - start
    same: dict[tuple[str, ...], list[int]] = {}
    for i, events in enumerate(work):
        same.setdefault(tuple(name for _, name in sorted(events)), []).append(i)
    held: list[tuple[float, int]] = []
    for steps in same.values():
        if len(steps) < SAME_PLACE:
            continue
        median = statistics.median(own[i] for i in steps)
        held += [(own[i] / median, i) for i in steps
                 if median > 0 and own[i] > HELD_RATIO * median and own[i] - median > HELD_SECONDS]
    left_out = sorted(held, reverse=True)[:(len(windows) - 1) // 2]
    if not left_out:
        return windows, 0, 0.0
    gone = {i for _, i in left_out}
    return [w for i, w in enumerate(windows) if i not in gone], len(gone), min(r for r, _ in left_out)


def _disjoint(windows: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Step windows that do not overlap (a marker nested in another is its step's own)."""
    out: list[tuple[float, float]] = []
    for start, end in windows:
        if out and start < out[-1][1]:
            continue
        out.append((start, end))
    return out


def _lines(path: str | Path, planes: list[Plane] | None = None) -> tuple[list[tuple[str, list[Event]]],
                                                                      list[tuple[str, list[Event]]]]:
    """The host's lines (one per thread) and every GPU's, each as (name, events)."""
    host, devices = [], []
    for plane in timeline.read(path) if planes is None else planes:
        lines = [(line.name, line.events) for line in plane.lines]
        if plane.name == "/host:CPU":
            host = lines
        elif plane.name.startswith("/device:GPU"):
            devices.extend(lines)
    return host, devices


@dataclasses.dataclass
class _Ops:
    eager: int = 0
    function_calls: int = 0
    graph: int = 0
    xla: int = 0
    compute: float = 0.0
    eager_compute: dict[str, float] = dataclasses.field(default_factory=dict)
    xla_compute: dict[str, float] = dataclasses.field(default_factory=dict)
    pipeline_python: float = 0.0  # Python run as an op on tf.data's threads (a generator, a py_function map)
    python_ops: float = 0.0  # Python run as an op inside the step (a tf.py_function in the training function)
    kernels: list[Event] = dataclasses.field(default_factory=list)  # each kernel counted in compute


PIPELINE_THREADS = "tf_data"  # tf.data's threads: "tf_data_private_threadpool", "tf_data_iterator_resource", ...
PYTHON_OPS = ("PyFunc", "EagerPyFunc", "PyFuncStateless")
WAIT_OPS = ("IteratorGetNext", "IteratorGetNextSync", "IteratorGetNextAsOptional", "OptionalGetValue")
COMPILED_WAIT = "IteratorGetNextOp::DoCompute"  # a compiled step's wait for its next batch, on tf.data's own line


def _ops(python: list[Event], host: list[tuple[str, list[Event]]], inside,
         stalls: Mapping[int, tuple[Event, float]]) -> _Ops:
    """The ops inside the steps and their arithmetic: an eager op's kernel runs inside its EagerExecute on the
    Python thread; a function's ops (graph kernels, XLA's HLO ops) run on TensorFlow's threads, or inline."""
    ops = _Ops()
    calls = [e for e in python if e.name == "EagerExecute" and inside(e)]
    ops.eager = sum(e.stats.get("is_func") == "0" for e in calls)
    ops.function_calls = sum(e.stats.get("is_func") == "1" for e in calls)
    for kernel, holders in _nested(python, "EagerKernelExecute"):
        call = next((h for h in reversed(holders) if h.name == "EagerExecute"), None)
        if call is not None and call.stats.get("is_func") == "0" and inside(kernel):
            named = next((h for h in reversed(holders) if h.name.startswith("EagerLocalExecute: ")), None)
            op_type = named.name.removeprefix("EagerLocalExecute: ") if named else "?"
            if op_type in WAIT_OPS:
                continue  # `for batch in dataset`: the kernel waits for the next batch (input, not arithmetic)
            own = _own(kernel, stalls)
            ops.compute += own
            ops.kernels.append(kernel)
            ops.eager_compute[op_type] = ops.eager_compute.get(op_type, 0.0) + own
    for line_name, events in host:
        pipeline = line_name.startswith(PIPELINE_THREADS)
        for e in events:
            if not inside(e) or e.name.startswith(_NOT_OPS):
                continue
            op_type = e.name.rsplit(":", 1)[1] if GRAPH_OP.match(e.name) else ""
            if pipeline:  # tf.data's threads overlap the step: none of it is the step's arithmetic
                if op_type in PYTHON_OPS:
                    ops.pipeline_python += e.duration
                continue
            if op_type in WAIT_OPS:
                continue  # the step waiting for its input inside a compiled call: input, not arithmetic
            if op_type in PYTHON_OPS:
                ops.python_ops += e.duration  # Python run as an op: not the kernels' arithmetic
                continue
            if "hlo_op" in e.stats:
                base = re.sub(r"\.\d+$", "", e.name)
                if base in _HLO_CONTAINERS:
                    continue  # a loop or call holds other ops: counted through them
                ops.xla += 1
                ops.compute += e.duration
                ops.kernels.append(e)
                ops.xla_compute[base] = ops.xla_compute.get(base, 0.0) + e.duration
            elif op_type:
                ops.graph += 1
                ops.compute += e.duration
                ops.kernels.append(e)
    return ops


STALL_RATIO = 3.0  # a kernel this many times its own time at the same place in the other steps ...
STALL_SECONDS = 5e-4  # ... and longer by this much (a scheduler holds a process off its core for milliseconds)
SAME_PLACE = 3  # steps that launched the same eager ops in the same order: fewer give no kernel's own time


def _stalls(python: list[Event], windows: list[tuple[float, float]]) -> dict[int, tuple[Event, float]]:
    """The eager kernels that stalled, each (by ``id``) with its own time: the median of the kernels at its place
    (the same ordinal, in steps that launched the same ops in the same order: the same work). An eager kernel runs
    on the Python thread, so one held off its core on a busy machine takes the wait into its time; a kernel whose
    work differs between steps is at no same place, so a heavier step is never read as a stall."""
    starts = [start for start, _ in windows]
    per_step: list[list[tuple[str, Event]]] = [[] for _ in windows]
    for kernel, holders in _nested(python, "EagerKernelExecute"):
        call = next((h for h in reversed(holders) if h.name == "EagerExecute"), None)
        named = next((h for h in reversed(holders) if h.name.startswith("EagerLocalExecute: ")), None)
        if call is None or call.stats.get("is_func") != "0" or named is None or any(
                h.name.startswith((SPAN, "IteratorGetNext")) or h.name in _CONVERSIONS for h in holders):
            # A span's, a function call's, a wait's or a conversion's time is measured whole, as its own (a wait's
            # and a conversion's stalls are held by ``_steady``): a kernel inside one keeps all of it.
            continue
        i = bisect.bisect_right(starts, kernel.start) - 1
        if i >= 0 and kernel.end <= windows[i][1] + 1e-9:
            per_step[i].append((named.name, kernel))
    same_work: dict[tuple[str, ...], list[list[Event]]] = {}
    for kernels in per_step:
        if kernels:
            same_work.setdefault(tuple(name for name, _ in kernels), []).append([k for _, k in kernels])
    stalls: dict[int, tuple[Event, float]] = {}
    for steps in same_work.values():
        if len(steps) < SAME_PLACE:
            continue
        for place in zip(*steps, strict=True):
            own = statistics.median(k.duration for k in place)
            for k in place:
                if k.duration > STALL_RATIO * own and k.duration - own > STALL_SECONDS:
                    stalls[id(k)] = (k, own)
    return stalls


def _own(kernel: Event, stalls: Mapping[int, tuple[Event, float]]) -> float:
    """A kernel's own time: its measured time, or at a stall the time it takes at its place in the other steps."""
    found = stalls.get(id(kernel))
    return found[1] if found is not None else kernel.duration


def _device(devices: list[tuple[str, list[Event]]], inside) -> tuple[float, float, float]:
    """On a GPU: kernels, their busy seconds and the copies' seconds inside the steps."""
    kernels = busy = copies = 0.0
    for _, events in devices:
        for e in events:
            if inside(e):
                if "memcpy" in e.name.lower():
                    copies += e.duration
                else:
                    kernels += 1
                    busy += e.duration
    return kernels, busy, copies


def _within(windows: list[tuple[float, float]]):
    """Whether an event lies inside one of the (sorted, disjoint) step windows; a binary search per event."""
    starts = [start for start, _ in windows]

    def inside(e: Event) -> bool:
        i = bisect.bisect_right(starts, e.start) - 1
        return i >= 0 and e.end <= windows[i][1] + 1e-9
    return inside


def _nested(events: list[Event], name: str) -> Iterator[tuple[Event, list[Event]]]:
    """Each event called ``name`` with the events that hold it, outermost first (one thread's events nest)."""
    open_events: list[Event] = []
    for e in sorted(events, key=lambda e: (e.start, -e.duration)):
        while open_events and open_events[-1].end <= e.start + 1e-12:
            open_events.pop()
        if e.name == name:
            yield e, list(open_events)
        open_events.append(e)


def _top_level(python: list[Event], inside) -> Iterator[Event]:
    """The Python thread's outermost TensorFlow events inside the steps (the step markers themselves excluded, and
    the lab's own spans, which hold TensorFlow's events and Python alike)."""
    reach = float("-inf")
    for e in sorted((e for e in python if e.name != STEP_MARKER and not e.name.startswith(SPAN) and inside(e)),
                    key=lambda e: (e.start, -e.duration)):
        if e.start >= reach:
            reach = e.end
            yield e


_CONVERSIONS = ("convert_to_tensor", "tf.constant")


def _in_the_code_s_words(python: list[Event], inside, windows: list[tuple[float, float]],
                         stalls: Mapping[int, tuple[Event, float]]) -> tuple[Any, ...]:
    """What the steps spent in the code's own terms, per step: the lab's spans (outermost ones: a fetch inside
    model.predict is predict's), and outside them eager ops by type (the time of each launch, and of its kernel),
    waits on a tf.data iterator, the calls of each tf.function, and values turned into tensors."""
    spans: dict[str, list[float]] = {}
    by_type: dict[str, list[float]] = {}
    functions: dict[str, list[float]] = {}
    waits: list[tuple[float, float]] = []
    converting: list[tuple[float, float]] = []
    conversions = 0
    stack: list[Event] = []
    for e in sorted((e for e in python if inside(e) and e.name != STEP_MARKER), key=lambda e: (e.start, -e.duration)):
        while stack and stack[-1].end <= e.start + 1e-12:
            stack.pop()
        if any(h.name.startswith(SPAN) for h in stack):
            stack.append(e)
            continue
        if e.name.startswith(SPAN):
            spans.setdefault(e.name, [0.0, 0.0])
            spans[e.name][0] += 1
            spans[e.name][1] += e.duration
        elif e.name.startswith("EagerLocalExecute: "):
            call = next((h for h in reversed(stack) if h.name == "EagerExecute"), None)
            if call is not None and call.stats.get("is_func") == "0":
                entry = by_type.setdefault(e.name.removeprefix("EagerLocalExecute: "), [0.0, 0.0, 0.0])
                entry[0] += 1
                entry[1] += call.duration
        elif e.name == "EagerKernelExecute":
            call = next((h for h in reversed(stack) if h.name == "EagerExecute"), None)
            named = next((h for h in reversed(stack) if h.name.startswith("EagerLocalExecute: ")), None)
            if call is not None and call.stats.get("is_func") == "0" and named is not None:
                entry = by_type.setdefault(named.name.removeprefix("EagerLocalExecute: "), [0.0, 0.0, 0.0])
                entry[1] -= e.duration - _own(e, stalls)  # its launch holds its kernel, and the kernel's stall
                entry[2] += _own(e, stalls)
        elif e.name.startswith("IteratorGetNext") and not any(h.name.startswith("IteratorGetNext") for h in stack):
            waits.append((e.start, e.end))
        elif "tracing_count" in e.stats and not any("tracing_count" in h.stats for h in stack):
            entry = functions.setdefault(e.name, [0.0, 0.0])
            entry[0] += 1
            entry[1] += e.duration
        elif e.name in _CONVERSIONS and not any(h.name in _CONVERSIONS or "tracing_count" in h.stats for h in stack):
            # (one inside a tf.function's call is the call's own, its trace's: counted in the function's time)
            converting.append((e.start, e.end))
            conversions += 1
        stack.append(e)
    per = 1.0 / len(windows)

    def per_step(table: dict[str, list[float]]) -> dict[str, list[float]]:
        return {k: [x * per for x in v] for k, v in sorted(table.items(), key=lambda kv: -kv[1][1])}
    # A conversion's time like a wait's: one step stalled inside a convert_to_tensor (105 ms of a 90 ms step's
    # 2 ms of conversions, beside a loaded suite) is the machine's, not the code's.
    return (per_step(spans), per_step(by_type), waits, per_step(functions), conversions * per,
            _steady(_union(converting), windows))


def _pipeline_python(host: list[tuple[str, list[Event]]]) -> list[tuple[float, float]]:
    """When tf.data's threads ran Python: their Python ops (PyFunc: a generator's elements, a py_function map's
    calls), as sorted, disjoint intervals."""
    return _union([(e.start, e.end) for name, events in host if name.startswith(PIPELINE_THREADS) for e in events
                   if GRAPH_OP.match(e.name) and e.name.rsplit(":", 1)[1] in PYTHON_OPS])


def _steady(waits: list[tuple[float, float]], windows: list[tuple[float, float]]) -> float:
    """The time per step in ``waits`` (sorted, disjoint: waits for input, conversions), each step's held to the upper
    quartile of the steps': a pipeline the step waits on makes most steps wait, while one step stalled on a busy
    machine (a tf.data thread without a core for 8 ms, in a window of five steps that otherwise waited 50 µs each)
    is the machine's, not the pipeline's. The stall is then in no part of the step; the set-up keeps none of it (its
    time is measured without the waits)."""
    per_step = [0.0] * len(windows)
    j = 0
    for i, (start, end) in enumerate(windows):
        while j < len(waits) and waits[j][1] <= start:
            j += 1
        k = j
        while k < len(waits) and waits[k][0] < end:
            per_step[i] += min(end, waits[k][1]) - max(start, waits[k][0])
            k += 1
    if not per_step:
        return 0.0
    upper = sorted(per_step)[(3 * (len(per_step) - 1)) // 4]
    return sum(min(w, upper) for w in per_step) / len(per_step)


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Intervals that may overlap as sorted, disjoint ones."""
    out: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _intersect(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Where two sorted, disjoint interval lists overlap."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _minus(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The parts of ``a`` outside ``b`` (both sorted and disjoint)."""
    out, j = [], 0
    for start, end in a:
        while j < len(b) and b[j][1] <= start:
            j += 1
        k, cursor = j, start
        while k < len(b) and b[k][0] < end:
            if b[k][0] > cursor:
                out.append((cursor, b[k][0]))
            cursor = max(cursor, b[k][1])
            k += 1
        if cursor < end:
            out.append((cursor, end))
    return out


def _covered(intervals: list[tuple[float, float]]) -> float:
    """The time covered by intervals that may overlap (an eager GetNext holds the iterator's own event)."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(intervals):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total


def _retraces(python: list[Event], inside) -> dict[str, int]:
    """A tf.function's own event carries how often it has been traced: a count that grows inside the window
    means it was traced again there."""
    counts: dict[str, list[int]] = {}
    for e in python:
        if "tracing_count" in e.stats and inside(e) and e.stats["tracing_count"].isdigit():
            counts.setdefault(e.name, []).append(int(e.stats["tracing_count"]))
    return {name: max(c) - min(c) for name, c in counts.items() if max(c) > min(c)}


def _merged(*parts: Mapping[str, float]) -> dict[str, float]:
    merged: dict[str, float] = {}
    for part in parts:
        for name, seconds in part.items():
            merged[name] = merged.get(name, 0.0) + seconds
    return merged


def _framework_ops(path: str | Path) -> dict[str, float]:
    """Graph kernels' self seconds by op type, from xprof's framework-op table (empty where it has no rows); an
    XLA cluster, which the table shows as one op, is left to the raw events' fused ops."""
    from xprof.convert import raw_to_tool_data

    data, _ = raw_to_tool_data.xspace_to_tool_data([str(path)], "framework_op_stats", {})
    if not data:
        return {}
    table = json.loads(data)[0]
    ids = [c["id"] for c in table["cols"]]
    by_type: dict[str, float] = {}
    for row in table.get("rows", []):
        values = dict(zip(ids, (c.get("v") for c in row["c"]), strict=False))
        op_type = str(values.get("type") or "")
        if (op_type in ("", "IDLE") or values.get("host_or_device") != "Host" or op_type.startswith("__inference")
                or values.get("operation") == SPAN.rstrip(":")):  # xprof reads the lab's "rlcore:sync" as an op
            continue
        by_type[op_type] = by_type.get(op_type, 0.0) + float(values["total_self_time"]) * 1e-6
    return by_type


def _ranked(seconds_by_name: Mapping[str, float], steps: int, keep: int = 8) -> list[dict[str, Any]]:
    total = sum(seconds_by_name.values())
    ranked = sorted(seconds_by_name.items(), key=lambda kv: -kv[1])[:keep]
    return [{"name": name, "self_seconds_per_step": seconds / steps, "share": seconds / total if total else 0.0}
            for name, seconds in ranked]

