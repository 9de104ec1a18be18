"""A capture made anywhere, read: Keras's ``TensorBoard(profile_batch=...)``, ``tf.profiler.experimental.start/stop``,
xprof's capture on a GPU machine, a Colab logdir. ``find`` turns what a person points at (a logdir laid out as
TensorBoard's profile plugin lays it out, ``plugins/profile/RUN/HOST.xplane.pb``; a run's folder; one
``.xplane.pb``) into one file, or says in one sentence why it cannot. ``read`` reads it:

- a capture the lab made (its ``_r=1`` step markers) goes through the lab's own engine (``tracking.xplane`` and the
  rules), the same causes as its stored profile;
- any other capture through xprof's own step analysis (``overview_page``, ``input_pipeline_analyzer``: xprof groups
  the steps however the capture holds them, a device's Steps line included): per step the device's compute, the
  time it waited on the host ("All others": Python, I/O), input, kernel launches, host compute; the share of the
  device's compute in 16-bit; the input pipeline's stages. Those are said in the lab's words, as measured, and a
  part the capture cannot tell apart is said as such (a Python generator feeding the step is named as where the
  idle time likely went, never as a measured cause).

Either way the reading carries a typed ``Profile`` (``contract.profile``) so a capture stored as a run (the
``capture`` workload) has the Why panel, comparisons and exports of any run; a GPU capture's profile is made of
xprof's measured parts, never of the CPU estimate. Nothing is stored here (the ``capture`` workload stores it).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

from rlcore.contract.profile import Cause, Finding, GpuEstimate, Profile
from rlcore.tracking.timeline import Plane

MOST_BYTES = 1 << 30  # a capture larger than this is not opened (read whole into memory, then parsed)
SUFFIX = ".xplane.pb"


class CaptureError(ValueError):
    """Why a path is no capture this reader can open, in one sentence."""


@dataclasses.dataclass(frozen=True)
class StepPart:
    """One part of a step as xprof measures it (ms per step, mean over the steps), and its share of the step."""

    name: str
    ms: float
    share: float


@dataclasses.dataclass(frozen=True)
class InputStage:
    """A stage of the capture's input pipeline (``Iterator::Prefetch::Generator``) and its self time in the capture."""

    name: str
    calls: int
    self_ms: float


@dataclasses.dataclass(frozen=True)
class DeviceSteps:
    """One GPU's timeline per step, as measured (its Steps line, or the capture's span): kernels and their time, the
    kernels shorter than a launch (5 µs: the least a launch costs the host, Meta's Holistic Trace Analysis), copies
    (synchronous ones: ``async:0`` in the capture, a pageable buffer), and the launching thread's host time per
    kernel (TensorFlow's ``tf_gpu_private`` thread for this device, where the capture has it)."""

    device: str
    step_ms: float
    kernels: float
    kernel_ms: float
    kernel_median_us: float
    shorter_than_a_launch: float
    copies: float
    copy_ms: float
    synchronous_copies: float
    host_us_per_kernel: float | None


SHORTEST_LAUNCH_US = 5.0  # the least a kernel launch costs the CPU (Meta's Holistic Trace Analysis: 5-20 µs)


@dataclasses.dataclass(frozen=True)
class CaptureReading:
    """What a capture made anywhere says, read with xprof; ``lab_causes``: the lab's own findings when it made it."""

    file: str
    hardware: str  # "GPU", "CPU", "TPU": what xprof says the steps ran on
    steps: int
    step_ms: float
    parts: tuple[StepPart, ...]
    half_precision: float | None  # the device's compute in 16-bit (0..1), where the capture has it
    input_stages: tuple[InputStage, ...]
    xprof_says: str
    devices: tuple[str, ...]  # the device planes that hold events (the ones read)
    lab_made: bool = False
    lab_causes: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    device_steps: tuple[DeviceSteps, ...] = ()
    profile: Profile | None = None  # the reading as a run's profile (its causes and shares), typed

    def to_json(self) -> dict[str, Any]:
        from rlcore.contract import profile_text

        out = dataclasses.asdict(dataclasses.replace(self, profile=None))
        out["profile"] = profile_text.as_json(self.profile) if self.profile is not None else None
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaptureReading:
        """A reading as a run's summary stored it (its profile left to ``RunSummary.profile``)."""
        names = {f.name for f in dataclasses.fields(cls)} - {"profile"}
        values = {k: v for k, v in data.items() if k in names}
        values["parts"] = tuple(StepPart(**p) for p in values.get("parts") or ())
        values["input_stages"] = tuple(InputStage(**s) for s in values.get("input_stages") or ())
        values["device_steps"] = tuple(DeviceSteps(**d) for d in values.get("device_steps") or ())
        for name in ("devices", "lab_causes", "notes"):
            values[name] = tuple(values.get(name) or ())
        return cls(**values)

    @property
    def host(self) -> str:
        """The machine the capture was made on, as its file is named (``HOST.xplane.pb``)."""
        return Path(self.file).name.removesuffix(SUFFIX)


def find(path: str | Path, run: str | None = None) -> Path:
    """The one ``.xplane.pb`` a person means by ``path`` (a logdir: its newest run, or ``run``)."""
    given = Path(path)
    if not given.exists():
        raise CaptureError(f"No such file or folder: {given}.")
    if given.is_dir():
        return _in_folder(given, run)
    mode = given.stat().st_mode
    if not stat.S_ISREG(mode):
        raise CaptureError(f"{given} is not a regular file (a capture is a {SUFFIX} file).")
    if not given.name.endswith(SUFFIX):
        raise CaptureError(f"{given} is not a TensorFlow profile: a capture is a HOST{SUFFIX} file (TensorBoard's "
                           f"profile plugin writes them under LOGDIR/plugins/profile/RUN/).")
    size = given.stat().st_size
    if size > MOST_BYTES:
        raise CaptureError(f"{given} is {size / 2**30:,.1f} GB, more than the {MOST_BYTES / 2**30:,.0f} GB this "
                           "reader opens.")
    return given


def _in_folder(folder: Path, run: str | None) -> Path:
    runs_folder = folder / "plugins" / "profile" if (folder / "plugins" / "profile").is_dir() else folder
    if run is not None:
        chosen = runs_folder / run
        if not chosen.is_dir():
            names = sorted(p.name for p in runs_folder.iterdir() if p.is_dir())
            raise CaptureError(f"No run {run!r} under {runs_folder}" + (f" (its runs: {', '.join(names[:8])})."
                                                                       if names else "."))
        runs_folder = chosen
    files = sorted(runs_folder.rglob(f"*{SUFFIX}"), key=lambda p: (p.stat().st_mtime, str(p)))
    if not files:
        raise CaptureError(f"No TensorFlow profile under {folder}: a capture is a HOST{SUFFIX} file, in a logdir "
                           f"as plugins/profile/RUN/HOST{SUFFIX}.")
    return find(files[-1])  # the newest run's (its checks: a regular file, its size)


def opened(path: str | Path) -> list[Plane]:
    """The capture's planes parsed (``timeline.read``), or one sentence why not: what is checked before a capture is
    stored as a run (a fraction of a second for a few MB)."""
    from rlcore.tracking import timeline

    path = Path(path)
    try:
        planes = timeline.read(path)
    except ValueError as e:
        raise CaptureError(f"{path} is not a TensorFlow profile that can be read: {e} (a truncated file, or "
                           "another kind of file).") from e
    if not planes or not any(p.name == "/host:CPU" for p in planes):
        raise CaptureError(f"{path} holds no host timeline: the profiler recorded nothing (a capture stopped as it "
                           "started, or a file that is not a profile).")
    return planes


CHECK_SECONDS = 120.0  # a bound on the check, never a claim about its speed (a 1 GB capture parses in seconds)


def check(path: str | Path) -> None:
    """``opened``'s check in a process of its own: the caller (the dashboard's) never loads a parser; one sentence
    (``CaptureError``) when the file is no capture that can be read."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-m", "rlcore.tracking.foreign", str(path)], capture_output=True,
                              text=True, timeout=CHECK_SECONDS, env=os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"})
    except subprocess.TimeoutExpired:
        raise CaptureError(f"{path} could not be checked within {CHECK_SECONDS:,.0f} s.") from None
    if done.returncode != 0:
        said = done.stdout.strip().splitlines()
        raise CaptureError(said[-1] if said else f"{path} could not be checked ({done.stderr.strip()[-200:]}).")


def read(path: str | Path) -> CaptureReading:
    """A capture's reading; a file that is no capture is a ``CaptureError``."""
    path = Path(path)
    planes = opened(path)
    # xprof's tools write their cache (ALL_HOSTS.op_stats_v2.pb) beside the file they read: they read a copy in a
    # folder of their own, so a person's logdir (read-only, or shared) is never written to.
    with tempfile.TemporaryDirectory(prefix="rlcore-capture-") as folder:
        copy = Path(folder) / path.name
        try:
            os.link(path, copy)
        except OSError:  # another file system, or links refused
            shutil.copyfile(path, copy)
        reading = _read(copy, planes)
    return dataclasses.replace(reading, file=str(path), profile=dataclasses.replace(
        reading.profile, capture=str(path), logdir=str(path.parent)) if reading.profile is not None else None)


def _read(path: Path, planes: list[Plane]) -> CaptureReading:
    from xprof.convert import raw_to_tool_data

    devices = tuple(p.name for p in planes if p.name.startswith("/device:") and any(
        line.events for line in p.lines))
    if _has_lab_markers(planes) or not devices:  # a CPU capture: the lab's engine reads it, whoever made it
        return _with_the_lab_s_engine(path, devices, planes)
    overview = _tool(raw_to_tool_data, path, "overview_page")
    pipeline = _tool(raw_to_tool_data, path, "input_pipeline_analyzer")
    reading = _of_overview(path, overview, pipeline, devices)
    reading = dataclasses.replace(reading, device_steps=tuple(_device_steps(planes)))
    return dataclasses.replace(reading, profile=measured_profile(reading))


def _device_steps(planes: list[Plane]) -> list[DeviceSteps]:
    """Each GPU's kernels and copies per step (its Steps line's steps; else the whole capture as one)."""
    import statistics

    from rlcore.tracking.xplane import GRAPH_OP

    host = next(p for p in planes if p.name == "/host:CPU")
    launching: dict[str, list[Any]] = {}  # a GPU's number -> the ops its private host threads ran (they launch)
    for line in host.lines:
        if line.name.startswith("tf_gpu_private_"):
            number = line.name.split("/")[0].removeprefix("tf_gpu_private_")
            launching.setdefault(number, []).extend(e for e in line.events if GRAPH_OP.match(e.name))
    out = []
    for plane in planes:
        if not plane.name.startswith("/device:GPU"):
            continue
        lines = {line.name: line.events for line in plane.lines}
        kernels = [e for name, events in lines.items() if name.endswith("(Compute)") for e in events]
        copies = [e for name, events in lines.items() if "Memcpy" in name for e in events]
        if not kernels:
            continue
        marked = lines.get("Steps", [])
        steps = max(1, len(marked))
        step_ms = (sum(e.duration for e in marked) / steps if marked else
                   (max(e.end for e in kernels) - min(e.start for e in kernels))) * 1e3
        durations = [e.duration * 1e6 for e in kernels]
        synchronous = sum("async:0" in e.stats.get("memcpy_details", "") for e in copies)
        ops = launching.get(plane.name.rsplit(":", 1)[-1], [])
        host_us = sum(e.duration for e in ops) * 1e6 / len(kernels) if len(ops) >= len(kernels) // 2 else None
        out.append(DeviceSteps(plane.name, step_ms, len(kernels) / steps, sum(durations) / 1e3 / steps,
                               statistics.median(durations),
                               sum(d < SHORTEST_LAUNCH_US for d in durations) / steps, len(copies) / steps,
                               sum(e.duration for e in copies) * 1e3 / steps, synchronous / steps, host_us))
    return out


def _tool(module: Any, path: Path, tool: str) -> list[Any]:
    data, _ = module.xspace_to_tool_data([str(path)], tool, {})
    try:
        return json.loads(data) if data else []
    except ValueError:
        return []


def _has_lab_markers(planes: list[Plane]) -> bool:
    from rlcore.tracking.capture import STEP_MARKER

    host = next(p for p in planes if p.name == "/host:CPU")
    return any(e.name == STEP_MARKER for line in host.lines for e in line.events)


def _with_the_lab_s_engine(path: Path, devices: tuple[str, ...], planes: list[Plane]) -> CaptureReading:
    """A capture the lab made, or any capture of a CPU: the lab's own engine reads it, its steps found however the
    capture holds them (the facts only a live run knows, such as the lines behind each cause, are not in the
    file)."""
    from rlcore.tracking import why, xplane
    from rlcore.tracking.capture import Captured

    try:
        numbers = xplane.read_capture(path, any_capture=True, planes=planes)  # the file read once
    except ValueError as e:
        raise CaptureError(f"{path}: {e}") from e
    profile = why.of_numbers(numbers, Captured(wanted=numbers.steps, path=path, logdir=path.parent), facts={})
    found = profile.findings
    ms = numbers.step_seconds * 1e3
    parts = [StepPart("the kernels' arithmetic", numbers.compute_seconds * 1e3, 0.0),
             StepPart("TensorFlow's dispatch", numbers.dispatch_seconds * 1e3, 0.0),
             StepPart("Python between TensorFlow's calls", numbers.python_seconds * 1e3, 0.0),
             StepPart("waiting for input", numbers.input_seconds * 1e3, 0.0)]
    parts = [dataclasses.replace(p, share=p.ms / ms if ms else 0.0) for p in parts if p.ms]
    causes = tuple({"cause": str(f.cause), "title": f.title, "share": f.share, "seconds_per_step": f.seconds_per_step,
                    "fix": f.fix} for f in found)
    lab_made = numbers.steps_from == xplane.LAB_MARKERS
    return CaptureReading(str(path), "GPU" if numbers.gpu else "CPU", numbers.steps, ms, tuple(parts), None, (),
                          "", devices, lab_made=lab_made, lab_causes=causes,
                          notes=(f"Read with the lab's own engine, its steps from {numbers.steps_from}; the lines "
                                 "behind each cause are counted while a run is live, so they are not in the file.",),
                          profile=profile)


IDLE = "the device idle, the host busy elsewhere"


def measured_profile(reading: CaptureReading) -> Profile:
    """A device's capture as a run's profile: each part of the step xprof measured is a finding of its own (they do
    not overlap), costliest first; the device idle while the host is busy is named as waiting for input only where
    the capture's input pipeline is a Python generator, and then said as likely, not measured."""
    from rlcore.tracking import gpu
    from rlcore.tracking.causes import GUIDES

    step = reading.step_ms / 1e3
    generator = next((s for s in reading.input_stages if s.name.endswith("::Generator")), None)
    causes = {"the device's compute": (Cause.COMPUTE, "the GPU's own kernels (the arithmetic)",
                                       "mixed precision (16-bit on tensor cores) and fewer, larger kernels (XLA)",
                                       "gpu"),
              "waiting for input": (Cause.INPUT, "waiting for the input pipeline",
                                    "prefetch and parallel map in tf.data; data built from tensors", "data"),
              "launching kernels": (Cause.KERNEL_LAUNCH, "launching kernels",
                                    "fewer, larger kernels: XLA (jit_compile=True), a bigger batch", "gpu")}
    findings = []
    for part in reading.parts:
        if part.share < 0.01:
            continue
        if part.name.startswith(IDLE):
            if generator is not None:
                cause, title = Cause.INPUT, "the GPU idle, the host in Python or I/O (likely its Python generator)"
                fix = ("build the dataset from tensors (from_tensor_slices, its work in TensorFlow ops, prefetch) and "
                       "capture again to see the idle time go")
                evidence = (f"xprof's 'All others': the device idle {part.ms:,.1f} ms a step; {generator.name} ran "
                            f"{generator.self_ms:,.1f} ms in {generator.calls:,} calls; likely, not measured as the "
                            "wait: the capture has no Python trace to split it")
            else:
                cause, title = Cause.UNEXPLAINED, "the GPU idle, the host in Python or I/O (not split)"
                fix = ("capture with the Python tracer on (tf.profiler's python_tracer_level=1) to see what the host "
                       "ran while the device waited")
                evidence = f"xprof's 'All others': the device idle {part.ms:,.1f} ms a step"
            guide = GUIDES["gpu"]
        elif part.name in causes:
            cause, title, fix, guide_name = causes[part.name]
            guide, evidence = GUIDES[guide_name], f"xprof's step analysis: {part.ms:,.1f} ms a step"
            if cause == Cause.COMPUTE and reading.half_precision is not None:
                evidence += f"; {reading.half_precision:.1%} of it in 16-bit"
        else:
            cause, title, fix, guide = Cause.OTHER, part.name, "", GUIDES["profiler"]
            evidence = f"xprof's step analysis: {part.ms:,.1f} ms a step"
        findings.append(Finding(cause=cause, title=title, seconds_per_step=part.ms / 1e3, share=part.share,
                                fix=fix, guide=guide, evidence=evidence))
    findings.sort(key=lambda f: -f.share)
    devices = reading.device_steps
    kernels = max((d.kernels for d in devices), default=0.0)
    copies = max((d.copies for d in devices), default=0.0)
    low = kernels * gpu.LAUNCH_SECONDS[0] + copies * gpu.COPY_SECONDS[0]
    high = kernels * gpu.LAUNCH_SECONDS[1] + copies * gpu.COPY_SECONDS[1]
    on_gpu = reading.hardware == "GPU" or bool(devices)
    estimate = GpuEstimate(seconds_per_step=low, range_seconds_per_step=(low, high), launches_per_step=kernels,
                           copies_per_step=copies, cpu_step_seconds=step, measured=True,
                           sources=(*gpu.LAUNCH_SOURCES, gpu.COPY_SOURCE), measured_step_seconds=step,
                           copy_seconds=max((d.copy_ms for d in devices), default=0.0) / 1e3) if on_gpu else None
    value = {f.cause for f in findings}
    verdict = next((f.cause for f in findings if f.cause not in (Cause.UNEXPLAINED, Cause.OTHER)),
                   Cause.UNEXPLAINED if Cause.UNEXPLAINED in value else Cause.COMPUTE)
    parts = {p.name: p.ms / 1e3 for p in reading.parts}
    split = "; ".join(f"{p.name} {p.ms:,.1f} ms" for p in reading.parts)
    said = (f"xprof's step analysis (the capture holds no Python-level ops to count): {split}"
            + "".join(f"; {d.device}: {d.kernels:,.0f} kernels a step of {d.kernel_median_us:,.1f} µs (median)"
                      for d in devices[:2]) + ".")
    return Profile(stored_reading=said, verdict=verdict, findings=tuple(findings),
                   gpu_estimate=estimate,
                   steps=reading.steps, wanted_steps=reading.steps, step_seconds=step,
                   compute_seconds=parts.get("the device's compute", 0.0),
                   dispatch_seconds=parts.get("launching kernels", 0.0),
                   input_seconds=parts.get("waiting for input", 0.0), gpu=on_gpu,
                   device_kernels_per_step=kernels, device_busy_seconds=parts.get("the device's compute", 0.0),
                   copy_seconds=estimate.copy_seconds if estimate else 0.0, capture=reading.file,
                   notes=reading.notes)


_PARTS = (("deviceComputeTimeMs", "the device's compute"), ("otherTimeMs", "the device idle, the host busy elsewhere "
          "(xprof's 'All others': Python, I/O)"), ("infeedTimeMs", "waiting for input"),
          ("kernelLaunchTimeMs", "launching kernels"), ("hostComputeTimeMs", "host compute"),
          ("deviceToDeviceTimeMs", "device to device copies"), ("deviceCollectivesTimeMs", "collectives"),
          ("compileTimeMs", "compiling"), ("outfeedTimeMs", "output"))


def _of_overview(path: Path, overview: list[Any], pipeline: list[Any], devices: tuple[str, ...]) -> CaptureReading:
    summary = overview[0].get("p", {}) if overview else {}
    analysis = overview[1].get("p", {}) if len(overview) > 1 else {}
    table = pipeline[1] if len(pipeline) > 1 else {}
    ids = [c["id"] for c in table.get("cols", [])]
    rows = [dict(zip(ids, (c.get("v") for c in row["c"]), strict=False)) for row in table.get("rows", [])]
    steps = len(rows)
    notes = []
    if not steps:
        notes.append("xprof found no steps in this capture (no step markers, no device Steps line): it is read as "
                     "one span, without a per-step split.")
    mean = {key: sum(float(r.get(key) or 0.0) for r in rows) / steps if steps else 0.0 for key, _ in _PARTS}
    step_ms = sum(mean.values())
    parts = tuple(StepPart(name, mean[key], mean[key] / step_ms if step_ms else 0.0)
                  for key, name in _PARTS if mean[key] > 0)
    stages_table = pipeline[2] if len(pipeline) > 2 else {}
    stage_ids = [c["id"] for c in stages_table.get("cols", [])]
    stages = []
    for row in stages_table.get("rows", []):
        values = dict(zip(stage_ids, (c.get("v") for c in row["c"]), strict=False))
        stages.append(InputStage(str(values.get("opName", "")), int(values.get("count") or 0),
                                 float(values.get("selfTimeInMs") or 0.0)))
    half = _percent(summary.get("device_compute_16bit_percent")) if devices else None
    return CaptureReading(str(path), str(analysis.get("hardware_type") or ("GPU" if devices else "CPU")), steps,
                          step_ms, parts, half, tuple(stages), str(analysis.get("input_conclusion") or ""), devices,
                          notes=tuple(notes))


def _percent(text: Any) -> float | None:
    try:
        return float(str(text).rstrip("%")) / 100
    except ValueError:
        return None


def sentences(reading: CaptureReading) -> list[str]:
    """The reading in the lab's words: the step's parts as measured, then what they point at."""
    if reading.lab_causes or reading.lab_made:
        lines = [f"{'A capture the lab made' if reading.lab_made else 'A capture'}: {reading.steps:,} "
                 f"step{'s' if reading.steps != 1 else ''} of {reading.step_ms:,.2f} ms on the {reading.hardware}."]
        lines += [f"{i}. {c['title']}: {c['share']:.1%} of the step; {c['fix']}"
                  for i, c in enumerate(reading.lab_causes, start=1)]
        return lines + list(reading.notes)
    where = f" ({', '.join(reading.devices)} hold events; they are read)" if reading.devices else ""
    lines = [f"{reading.steps:,} step{'s' if reading.steps != 1 else ''} of {reading.step_ms:,.1f} ms on the "
             f"{reading.hardware}{where}, measured:"]
    lines += [f"  {p.name}: {p.ms:,.1f} ms ({p.share:.1%})" for p in reading.parts]
    if reading.half_precision is not None:
        lines.append(f"  the device's compute in 16-bit: {reading.half_precision:.1%}")
    idle = next((p for p in reading.parts if p.name.startswith("the device idle")), None)
    python_stage = next((s for s in reading.input_stages if s.name.endswith("::Generator")), None)
    if idle is not None and idle.share >= 0.05:
        said = (f"The device waits {idle.ms:,.1f} ms of each step ({idle.share:.0%}) while the host does something "
                "the capture does not split (Python or I/O).")
        if python_stage is not None:
            said += (f" The input pipeline is a Python generator ({python_stage.name}: {python_stage.self_ms:,.1f} ms "
                     f"in {python_stage.calls:,} calls): Dataset.from_generator runs Python one element at a time, "
                     "the likely holder of that time; build the dataset from tensors (from_tensor_slices, its work in "
                     "TensorFlow ops, prefetch) and profile again to see it gone. Not measured as the wait: this "
                     "capture has no Python trace.")
        lines.append(said)
    for d in reading.device_steps:
        lines.append(
            f"  {d.device}: {d.kernels:,.0f} kernels a step of {d.kernel_median_us:,.1f} µs (median), "
            f"{d.kernel_ms:,.1f} ms of its {d.step_ms:,.1f} ms step; {d.shorter_than_a_launch:,.0f} of them shorter "
            f"than the {SHORTEST_LAUNCH_US:.0f} µs a launch costs at least; {d.copies:,.0f} copies "
            f"({d.copy_ms:,.2f} ms, {d.synchronous_copies:,.0f} synchronous)"
            + (f"; its launching thread spent {d.host_us_per_kernel:,.1f} µs of host time per kernel"
               if d.host_us_per_kernel is not None else ""))
    if reading.xprof_says:
        lines.append(f"xprof says: {reading.xprof_says}")
    lines += list(reading.notes)
    return lines


if __name__ == "__main__":  # ``check``'s child: exit 0, or the one sentence and exit 2
    import sys

    try:
        opened(sys.argv[1])
    except CaptureError as error:
        print(error)
        sys.exit(2)

