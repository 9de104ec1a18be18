"""Why a run is as fast as it is, read from what TensorFlow's own profiler recorded.

A run with ``profile = N`` captures N training steps after its warm-up (``ProfileWindow``): TensorFlow's profiler runs
for exactly that window, each step wrapped in a step marker, and the window's time and steps are left out of the
run's throughput (the loop asks ``window.capturing``). The capture is kept in the layout TensorBoard's profile
plugin and xprof open (``<logdir>/plugins/profile/<session>/<host>.xplane.pb``) and read here with xprof: its
framework-op table where it has rows, its raw events (planes, lines, events) where it has none (eager ops on a CPU).

What is read per step: the ops executed, how many of them were launched one by one from Python (eager), the
function (graph) calls, the ops inside XLA clusters, retracings, and the host's time split into the ops'
arithmetic, TensorFlow's dispatch around them, Python between TensorFlow calls, and on a GPU the kernels and the
copies between host and device. ``judge`` turns those numbers into one verdict and one sentence.

xprof's modules are internal (pinned in requirements.txt; the parsing is tested on real captures). Nothing here is
imported by the dashboard: a run's summary carries the profile as plain numbers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rlcore.contract.text import seconds_text
from rlcore.tracking.hooks import SPAN, Instruments
from rlcore.tracking.machine import PROFILE_DIR_ENV  # where this process keeps a capture (CLI, worker, Ray task)

STEP_MARKER = "train"  # the name of each captured step's marker on the timeline (TensorBoard's step markers)
PROFILE_DIR = "profile"  # a run's capture, under its folder: open it with `xprof --logdir <run folder>/profile`
# The verdicts, most specific first; each has a sentence under it.
CATEGORIES = ("retracing", "compile-bound", "copy-bound", "kernel-launch-bound", "launch-bound", "conversion",
              "python-bound", "dispatch-bound", "compute-bound", "predict-bound", "indexing", "sync-bound",
              "keras-overhead", "callback-bound", "input-bound")
SPECIFIC = ("retracing", "compile-bound", "copy-bound", "kernel-launch-bound")  # TensorFlow's reading stands
LAUNCH_BOUND_OPS = 20  # eager ops per step from which launching them one by one is the story
UNTESTED_GPU = ("(read from the GPU's timeline as TensorFlow's profiler documents it; this reading has not been "
                "checked against a real GPU)")

_GRAPH_OP = re.compile(r"^[^\s:]+:[A-Za-z_]\w*$")  # a graph op kernel's event: "scope/name:OpType"
_NOT_OPS = ("ThreadpoolListener", "ExecutorState", "ThunkExecutor", "end: ")
_HLO_CONTAINERS = ("while", "call", "conditional", "async-start", "async-done")


# ---------------------------------------------------------------- what a capture says


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


def read_capture(path: str | Path) -> StepNumbers:
    """Per-step numbers from one ``.xplane.pb`` capture with step markers (xprof reads the file)."""
    from xprof.profile_data import ProfileData

    data = ProfileData.from_file(str(path))
    host, devices = [], []
    for plane in data.planes:
        lines = [(line.name, [_Event(e) for e in line.events]) for line in plane.lines]
        if plane.name == "/host:CPU":
            host = lines
        elif plane.name.startswith("/device:GPU"):
            devices.extend(lines)
    # The training thread's line: the one with the step markers (a line is named by its thread, which is the
    # process's name on the main thread: "python", or "rlcore" under the console command).
    python = max((events for _, events in host), key=lambda es: sum(e.name == STEP_MARKER for e in es), default=[])
    markers = [e for e in python if e.name == STEP_MARKER]
    if not markers:
        raise ValueError("the capture has no step markers: no training step ran while the profiler recorded.")
    steps = len(markers)
    windows = sorted((m.start, m.end) for m in markers)
    inside = _within(windows)

    graph_ops = xla_ops = 0
    compute = tf_time = 0.0
    eager_compute: dict[str, float] = {}
    calls = [e for e in python if e.name == "EagerExecute" and inside(e)]
    eager_ops = sum(e.stats.get("is_func") == "0" for e in calls)
    function_calls = sum(e.stats.get("is_func") == "1" for e in calls)
    # The ops' arithmetic: an eager op's kernel runs inside its EagerExecute on the Python thread; a function's
    # ops (graph kernels, XLA's HLO ops) run on TensorFlow's threads, or inline.
    for kernel, holders in _nested(python, "EagerKernelExecute"):
        call = next((h for h in reversed(holders) if h.name == "EagerExecute"), None)
        if call is not None and call.stats.get("is_func") == "0" and inside(kernel):
            compute += kernel.duration
            named = next((h for h in reversed(holders) if h.name.startswith("EagerLocalExecute: ")), None)
            op_type = named.name.removeprefix("EagerLocalExecute: ") if named else "?"
            eager_compute[op_type] = eager_compute.get(op_type, 0.0) + kernel.duration
    xla_compute: dict[str, float] = {}
    for _, events in host:
        for e in events:
            if not inside(e) or e.name.startswith(_NOT_OPS):
                continue
            if "hlo_op" in e.stats:
                base = re.sub(r"\.\d+$", "", e.name)
                if base in _HLO_CONTAINERS:
                    continue  # a loop or call holds other ops: counted through them
                xla_ops += 1
                compute += e.duration
                xla_compute[base] = xla_compute.get(base, 0.0) + e.duration
            elif _GRAPH_OP.match(e.name):
                graph_ops += 1
                compute += e.duration
    for e in _top_level(python, inside):
        tf_time += e.duration
    retraced = _retraces(python, inside)
    step_total = sum(end - start for start, end in windows)
    compute = min(compute, tf_time) if tf_time else compute
    device_kernels = device_busy = copies = 0.0
    for _, events in devices:
        for e in events:
            if inside(e):
                if "memcpy" in e.name.lower():
                    copies += e.duration
                else:
                    device_kernels += 1
                    device_busy += e.duration
    # The ops by self time: graph kernels from xprof's framework-op table (an XLA cluster there is one op, so its
    # fused ops are read from the raw events instead), eager kernels from the raw events (the table has none).
    top = _ranked(_merged(_framework_ops(path), eager_compute, xla_compute), steps)
    spans, eager_by_type, input_seconds, functions, conversions, conversion = _in_the_code_s_words(
        python, inside, steps)
    return StepNumbers(
        spans=spans, eager_by_type=eager_by_type, input_seconds=input_seconds, functions=functions,
        conversions=conversions,
        steps=steps, step_seconds=step_total / steps, ops=(eager_ops + graph_ops + xla_ops) / steps,
        eager_ops=eager_ops / steps, function_calls=function_calls / steps, graph_ops=graph_ops / steps,
        xla_ops=xla_ops / steps, retraces=sum(retraced.values()), retraced=tuple(retraced),
        compute_seconds=compute / steps, dispatch_seconds=max(0.0, tf_time - compute) / steps,
        python_seconds=max(0.0, step_total - tf_time) / steps, conversion_seconds=conversion,
        top_ops=tuple(top), device_kernels=device_kernels / steps, device_busy_seconds=device_busy / steps,
        copy_seconds=copies / steps, gpu=bool(devices))


class _Event:
    """One timeline event in seconds, with its stats as text."""

    __slots__ = ("duration", "end", "name", "start", "stats")

    def __init__(self, event: Any) -> None:
        self.name = str(event.name)
        self.start = float(event.start_ns) * 1e-9
        self.duration = float(event.duration_ns) * 1e-9
        self.end = self.start + self.duration
        self.stats = {str(k): str(v) for k, v in dict(event.stats).items()} if event.stats else {}


def _within(windows: list[tuple[float, float]]):
    """Whether an event lies inside one of the (sorted, disjoint) step windows; a binary search per event."""
    import bisect

    starts = [start for start, _ in windows]

    def inside(e: _Event) -> bool:
        i = bisect.bisect_right(starts, e.start) - 1
        return i >= 0 and e.end <= windows[i][1] + 1e-9
    return inside


def _nested(events: list[_Event], name: str) -> Iterator[tuple[_Event, list[_Event]]]:
    """Each event called ``name`` with the events that hold it, outermost first (one thread's events nest)."""
    open_events: list[_Event] = []
    for e in sorted(events, key=lambda e: (e.start, -e.duration)):
        while open_events and open_events[-1].end <= e.start + 1e-12:
            open_events.pop()
        if e.name == name:
            yield e, list(open_events)
        open_events.append(e)


def _top_level(python: list[_Event], inside) -> Iterator[_Event]:
    """The Python thread's outermost TensorFlow events inside the steps (the step markers themselves excluded, and
    the lab's own spans, which hold TensorFlow's events and Python alike)."""
    reach = float("-inf")
    for e in sorted((e for e in python if e.name != STEP_MARKER and not e.name.startswith(SPAN) and inside(e)),
                    key=lambda e: (e.start, -e.duration)):
        if e.start >= reach:
            reach = e.end
            yield e


_CONVERSIONS = ("convert_to_tensor", "tf.constant")


def _in_the_code_s_words(python: list[_Event], inside, steps: int) -> tuple[Any, ...]:
    """What the steps spent in the code's own terms, per step: the lab's spans (outermost ones: a fetch inside
    model.predict is predict's), and outside them eager ops by type (the time of each launch, and of its kernel),
    waits on a tf.data iterator, the calls of each tf.function, and values turned into tensors."""
    spans: dict[str, list[float]] = {}
    by_type: dict[str, list[float]] = {}
    functions: dict[str, list[float]] = {}
    waiting = converting = 0.0
    conversions = 0
    stack: list[_Event] = []
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
                by_type.setdefault(named.name.removeprefix("EagerLocalExecute: "), [0.0, 0.0, 0.0])[2] += e.duration
        elif e.name.startswith("IteratorGetNext") and not any(h.name.startswith("IteratorGetNext") for h in stack):
            waiting += e.duration
        elif "tracing_count" in e.stats and not any("tracing_count" in h.stats for h in stack):
            entry = functions.setdefault(e.name, [0.0, 0.0])
            entry[0] += 1
            entry[1] += e.duration
        elif e.name in _CONVERSIONS and not any(h.name in _CONVERSIONS for h in stack):
            converting += e.duration
            conversions += 1
        stack.append(e)
    per = 1.0 / steps

    def per_step(table: dict[str, list[float]]) -> dict[str, list[float]]:
        return {k: [x * per for x in v] for k, v in sorted(table.items(), key=lambda kv: -kv[1][1])}
    return (per_step(spans), per_step(by_type), waiting * per, per_step(functions), conversions * per,
            converting * per)


def _retraces(python: list[_Event], inside) -> dict[str, int]:
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


# ---------------------------------------------------------------- the verdict


def _t(seconds: float) -> str:
    return seconds_text(seconds)


def judge(n: StepNumbers, compile_seconds: float = 0.0, train_seconds: float = 0.0,
          steps_per_marker: int = 1) -> tuple[str, str]:
    """One verdict (a name from CATEGORIES) and its sentence, with the numbers under it. ``steps_per_marker``: the
    training steps one marker holds (K steps per compiled call)."""
    step = n.step_seconds
    per = f" per call of {steps_per_marker:,} steps" if steps_per_marker > 1 else " per step"
    tf_share = (n.compute_seconds + n.dispatch_seconds) / step if step else 0.0
    if n.retraces:
        names = ", ".join(sorted(n.retraced))[:120]
        return "retracing", (f"Retracing: {names} was traced again {n.retraces:,} times in {n.steps:,} steps "
                             f"(each step {_t(step)}): a Python number or a new shape among its arguments makes "
                             "every call a new graph; pass tensors, or fix an input_signature.")
    if compile_seconds > 0 and train_seconds > 0 and compile_seconds > train_seconds:
        return "compile-bound", (f"Compile-bound: tracing and compiling took {_t(compile_seconds)}, more than the "
                                 f"{_t(train_seconds)} of training it served; a longer run, or a kept compile "
                                 "(XLA's cache), pays it back.")
    if n.gpu and n.copy_seconds > 0.3 * step:
        return "copy-bound", (f"Copy-bound: copies between host and GPU take {_t(n.copy_seconds)} of each step's "
                              f"{_t(step)}; keep the data on the device {UNTESTED_GPU}.")
    if n.gpu and n.device_kernels >= LAUNCH_BOUND_OPS and n.device_busy_seconds < 0.3 * step:
        return "kernel-launch-bound", (
            f"Kernel-launch-bound: the GPU runs {n.device_kernels:,.0f} kernels{per} but is busy only "
            f"{_t(n.device_busy_seconds)} of {_t(step)}: each kernel is too small to pay for its launch; larger "
            f"batches or XLA's fused kernels help {UNTESTED_GPU}.")
    if n.eager_ops >= LAUNCH_BOUND_OPS and n.dispatch_seconds + n.python_seconds > n.compute_seconds:
        each = (n.dispatch_seconds + n.python_seconds) / n.eager_ops
        return "launch-bound", (f"Launch-bound: each step runs {n.eager_ops:,.0f} ops one at a time from Python "
                                f"(≈ {_t(each)} each, {_t(step)} in all); the arithmetic itself takes "
                                f"{_t(n.compute_seconds)}; a tf.function would make it one call.")
    if n.conversion_seconds > 0.3 * step:
        return "conversion", (f"Conversion: turning numpy arrays or Python values into tensors takes "
                              f"{_t(n.conversion_seconds)} of each step's {_t(step)}; keep the data as tensors "
                              "(or in the graph).")
    if n.python_seconds > 0.5 * step:
        return "python-bound", (f"Python-bound: {_t(n.python_seconds)} of each step's {_t(step)} passes in Python "
                                f"between TensorFlow calls (the environment, the replay memory, the loop); "
                                f"TensorFlow itself takes {_t(n.compute_seconds + n.dispatch_seconds)} "
                                f"({n.ops:,.0f} ops in {n.function_calls:,.1f} function calls).")
    if n.dispatch_seconds > n.compute_seconds:
        calls = f"{n.function_calls:,.1f} function call{'s' if n.function_calls != 1 else ''}"
        return "dispatch-bound", (f"Dispatch-bound: {calls}{per} cost {_t(n.dispatch_seconds)} to set up and "
                                  f"launch, more than the {_t(n.compute_seconds)} its {n.ops:,.0f} ops compute; "
                                  "more steps per call (a loop inside the function) spread that cost.")
    return "compute-bound", (f"Compute-bound: the ops' arithmetic takes {_t(n.compute_seconds)} of each "
                             f"{'call' if steps_per_marker > 1 else 'step'}'s {_t(step)} ({n.ops:,.0f} ops, "
                             f"{tf_share:.0%} of it in TensorFlow); the overhead around them is small, so only "
                             "less arithmetic, or faster hardware, makes it faster.")


# ---------------------------------------------------------------- capturing a window


class ProfileWindow:
    """Captures ``steps`` training steps of a loop, starting at its ``start``-th step (after warm-up): the loop
    wraps each step in ``window.step()`` and leaves out of its throughput the steps and seconds for which
    ``capturing`` was true (``excluded_steps``, ``excluded_seconds``, counted in the loop's own units)."""

    def __init__(self, steps: int, logdir: str | Path | None, start: int = 1) -> None:
        self.wanted, self.logdir, self.start = steps, Path(logdir) if logdir else None, start
        self.seen = self.captured = 0
        self.capturing = False
        self.excluded_seconds = 0.0
        self.excluded_steps = 0
        self.error: str | None = None
        self._t0 = 0.0
        self._trace: Any = None
        self.instruments = Instruments()

    @property
    def active(self) -> bool:
        return self.wanted > 0 and self.logdir is not None

    @property
    def pending(self) -> bool:
        """Whether the window still wants steps: a loop bounded by time runs on until it has them (the profiled
        steps are no part of its time), so a profile never depends on how fast the machine is."""
        return self.active and not self.error and self.captured < self.wanted

    def begin(self) -> bool:
        """A step of the loop begins: the profiler starts when the window opens, and a step marker (xprof's
        ``_r=1`` root event) opens around the step. True when this step is recorded."""
        self._trace = None
        if not self.active or self.error or self.captured >= self.wanted:
            return False
        if self.seen >= self.start and not self.capturing:
            self._begin()
        if not self.capturing:
            return False
        import tensorflow as tf

        self._trace = tf.profiler.experimental.Trace(STEP_MARKER, step_num=self.captured, _r=1)
        self._trace.__enter__()
        return True

    def end(self, units: int = 1, counted: int | None = None) -> bool:
        """The step ends (``units``: the loop's own steps it held, such as K per call, left out of its speed;
        ``counted``: what it counts toward the window's size, when that is not its units: turbo's window counts
        calls of its compiled loop); True when it was recorded."""
        self.seen += 1
        trace, self._trace = self._trace, None
        if trace is None:
            return False
        trace.__exit__(None, None, None)
        self.captured += units if counted is None else counted
        self.excluded_steps += units
        if self.captured >= self.wanted:
            self.finish()
        return True

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        """Around one step of the loop (``units``: the loop's own steps it holds, such as K per call)."""
        self.begin()
        try:
            yield
        finally:
            self.end(units)

    def _begin(self) -> None:
        import tensorflow as tf

        self._t0 = time.perf_counter()
        try:
            tf.profiler.experimental.start(str(self.logdir), options=tf.profiler.experimental.ProfilerOptions(
                host_tracer_level=3, python_tracer_level=0, device_tracer_level=1))
        except Exception as e:  # another capture runs in this process, or the profiler is unavailable
            self.error = (f"TensorFlow's profiler could not start ({type(e).__name__}: "
                          f"{str(e).strip().splitlines()[0][:200] if str(e).strip() else 'no reason given'}), "
                          "so this run has no profile; its numbers are unaffected.")
            return
        self.capturing = True
        self.instruments.install()  # the code's own calls named on the timeline while it records

    def finish(self) -> None:
        """Stop the capture (when the loop ends before the window is full, too)."""
        if not self.capturing:
            return
        import tensorflow as tf

        self.instruments.remove()
        with contextlib.suppress(Exception):
            tf.profiler.experimental.stop()
        self.capturing = False
        self.excluded_seconds += time.perf_counter() - self._t0

    def profile(self, *, compile_seconds: float = 0.0, train_seconds: float = 0.0, steps_per_marker: int = 1,
                context: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """What the window found, as the run's summary keeps it (None when no profile was asked for)."""
        if not self.wanted:
            return None
        self.finish()
        if self.error:
            return {"error": self.error, "wanted_steps": self.wanted}
        captures = sorted(self.logdir.glob("plugins/profile/*/*.xplane.pb")) if self.logdir else []
        if not self.captured or not captures:
            return {"error": f"The run ended before its profiled window began (it asked for {self.wanted:,} "
                             "steps after warm-up), so it has no profile.", "wanted_steps": self.wanted}
        try:
            numbers = read_capture(captures[-1])
        except Exception as e:  # a capture xprof cannot read: say so, keep the file
            return {"error": f"The capture could not be read ({type(e).__name__}: {str(e)[:200]}).",
                    "capture": str(captures[-1]), "wanted_steps": self.wanted}
        retraces = {name: note.why for name, note in self.instruments.retraces.items()}
        context = {"retraces": retraces, "compile_seconds": compile_seconds, "train_seconds": train_seconds} | dict(
            context or {})
        return summary(numbers, captures[-1], self.logdir, wanted=self.wanted, compile_seconds=compile_seconds,
                       train_seconds=train_seconds, steps_per_marker=steps_per_marker, context=context)


def summary(numbers: StepNumbers, capture: Path, logdir: Path, *, wanted: int, compile_seconds: float = 0.0,
            train_seconds: float = 0.0, steps_per_marker: int = 1,
            context: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The profile as plain numbers for a run's summary and the CLI's JSON (per training step, K steps per
    compiled call divided out): TensorFlow's verdict and its sentence, then the findings in the code's words, their
    headline, and what a GPU would at least add."""
    from rlcore.tracking import findings

    tf_verdict, tf_reading = judge(numbers, compile_seconds, train_seconds, steps_per_marker)
    found = findings.explain(numbers, steps_per_marker=steps_per_marker, context=context)
    k = max(1, steps_per_marker)
    # The verdict is the costliest cause in the code's words; TensorFlow's own reading stands when it names the
    # same thing (its sentence has the op-level numbers) or a thing only it sees (a retrace, a compile, a GPU's).
    verdict, sentence = tf_verdict, tf_reading
    if found and tf_verdict not in SPECIFIC and found[0]["category"] != tf_verdict:
        verdict = found[0]["category"]
        sentence = findings.headline(found, numbers.step_seconds / k)
    per_step = {"ops_per_step": numbers.ops / k, "eager_ops_per_step": numbers.eager_ops / k,
                "function_calls_per_step": numbers.function_calls / k, "graph_ops_per_step": numbers.graph_ops / k,
                "xla_ops_per_step": numbers.xla_ops / k, "step_seconds": numbers.step_seconds / k,
                "compute_seconds": numbers.compute_seconds / k, "dispatch_seconds": numbers.dispatch_seconds / k,
                "python_seconds": numbers.python_seconds / k, "conversion_seconds": numbers.conversion_seconds / k}
    return {"verdict": verdict, "sentence": sentence, "tf_verdict": tf_verdict, "tf_reading": tf_reading, **per_step,
            "retraces": numbers.retraces, "retraced": list(numbers.retraced),
            "top_ops": [op | {"self_seconds_per_step": op["self_seconds_per_step"] / k} for op in numbers.top_ops],
            "steps": numbers.steps * k, "wanted_steps": wanted, "steps_per_marker": k, "gpu": numbers.gpu,
            "device_kernels_per_step": numbers.device_kernels / k, "copy_seconds": numbers.copy_seconds / k,
            "capture": str(capture), "logdir": str(logdir),
            "open_with": f"xprof --logdir {logdir}  (or: tensorboard --logdir {logdir})",
            "findings": found, "headline": findings.headline(found, numbers.step_seconds / k),
            "gpu_estimate": findings.gpu_estimate(numbers, steps_per_marker=steps_per_marker),
            "spans": numbers.spans, "eager_by_type": numbers.eager_by_type, "functions": numbers.functions,
            "input_seconds": numbers.input_seconds / k}


def capture_files(logdir: Path) -> dict[str, bytes]:
    """The capture's files as a run keeps them (paths under the run's folder), for executors that return bytes."""
    return {str(Path(PROFILE_DIR) / p.relative_to(logdir)): p.read_bytes()
            for p in sorted(logdir.rglob("*")) if p.is_file()}


class NoWindow:
    """The window of a run that profiles nothing: every step passes straight through."""

    capturing = False
    excluded_seconds = 0.0
    excluded_steps = 0
    active = False
    pending = False
    error = None

    def begin(self) -> bool:
        return False

    def end(self, units: int = 1, counted: int | None = None) -> bool:
        return False

    @contextlib.contextmanager
    def step(self, units: int = 1) -> Iterator[None]:
        yield

    def finish(self) -> None:
        pass

    def profile(self, **_: Any) -> None:
        return None


def window(steps: int, start: int = 1, logdir: str | Path | None = None) -> ProfileWindow | NoWindow:
    """The profiling window of a loop: ``steps`` steps from its ``start``-th, kept in ``logdir`` (by default the
    folder this process was given in RLCORE_PROFILE_DIR, else a temporary one)."""
    if steps <= 0:
        return NoWindow()
    if logdir is None:
        import os
        import tempfile

        logdir = os.environ.get(PROFILE_DIR_ENV) or tempfile.mkdtemp(prefix="rlcore-profile-")
    return ProfileWindow(steps, logdir, start)
