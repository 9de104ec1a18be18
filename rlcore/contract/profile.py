"""A profiled run's "why" as typed data: the ``Profile`` a run's summary keeps, its ``Finding``s (each of one
``Cause``), the ``GpuEstimate``, and the places in the person's code a finding happened (``Where``).

Made in a run's own process (``rlcore.tracking.why``), stored as versioned JSON in the run's summary, read back by
the dashboard, the CLI and ``--json`` through ``Profile.from_json``, which upgrades what older stores hold (version
1: an untyped dict whose findings named their category in English). No TensorFlow here: the dashboard reads it.
The sentences made from these fields live in ``rlcore.contract.profile_text``.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

VERSION = 2


class Cause(enum.StrEnum):
    """What a step's time goes to, as a verdict names it (the values are the verdicts stored runs carry)."""

    PREDICT = "predict-bound"
    INDEXING = "indexing"
    LAUNCH = "launch-bound"
    SYNC = "sync-bound"
    KERAS = "keras-overhead"
    KERAS_CALLS = "call-setup-bound"  # a Keras training method called per batch or per sample
    CALLBACK = "callback-bound"
    INPUT = "input-bound"
    RETRACING = "retracing"
    CONVERSION = "conversion"
    PYTHON = "python-bound"
    DISPATCH = "dispatch-bound"
    COMPILE = "compile-bound"
    COMPUTE = "compute-bound"
    COPY = "copy-bound"
    KERNEL_LAUNCH = "kernel-launch-bound"
    UNEXPLAINED = "not-explained"  # a part of the step no rule explains: said as such, with its ops
    OTHER = "other"  # a cause a plug-in rule names that this lab does not know (an older lab reading a newer store)

    @classmethod
    def of(cls, value: Any) -> Cause | str:
        """The cause a stored value names; a value no built-in cause has (a plug-in rule's) stays as text."""
        try:
            return cls(value)
        except ValueError:
            return str(value)

    @property
    def once_per_run(self) -> bool:
        """Paid once per run, not per step (a compile): its share is of the run's time, and it follows the others."""
        return self is Cause.COMPILE

# Parts no change of the person's code removes: the arithmetic (what remains), and what no rule explains.
NOT_A_CHANGE = (Cause.COMPUTE, Cause.UNEXPLAINED)


@dataclass(frozen=True)
class Where:
    """A line of the person's code a finding happened at: the file as they named it, its 1-based line, the source
    text, and how often per step it ran and what it cost per step."""

    file: str
    line: int
    code: str = ""
    calls_per_step: float = 0.0
    seconds_per_step: float = 0.0
    function: str = ""  # the function the line is in, where known


@dataclass(frozen=True)
class Finding:
    """One cause of a step's time: its title in the code's words ("model.predict in a loop"), the seconds per step
    it costs and its share of the step (of the run, for a cause paid once), the change to make, the guide that
    explains it, what was seen, the lines of the person's code, and ``in_effect``: the fix already made (when the
    rule found it in effect, ``fix`` says what would help instead)."""

    cause: Cause | str
    title: str
    seconds_per_step: float
    share: float
    fix: str
    guide: str
    evidence: str = ""
    where: tuple[Where, ...] = ()
    in_effect: str = ""
    try_fix: str = ""  # a fix the lab can try without editing the code (rlcore profile --try-fixes), by name

    @property
    def once_per_run(self) -> bool:
        return isinstance(self.cause, Cause) and self.cause.once_per_run


@dataclass(frozen=True)
class GpuEstimate:
    """What a step would at least pay on a GPU that it does not pay on this CPU (``measured``: read off a GPU's own
    timeline instead), with the published constants it rests on."""

    seconds_per_step: float
    range_seconds_per_step: tuple[float, float]
    launches_per_step: float
    copies_per_step: float
    cpu_step_seconds: float
    measured: bool = False
    sources: tuple[str, ...] = ()
    measured_step_seconds: float = 0.0  # on a GPU: the step as measured
    copy_seconds: float = 0.0  # on a GPU: host <-> device copies per step
    cpu_basis: str = ""  # which CPU step the estimate is held against ("the window's quicker steps", ...)
    steps_per_call: int = 1  # K steps per compiled call, in effect
    xla: bool = False  # XLA's fused kernels, in effect

    @property
    def slower(self) -> bool:
        """Whether the launches alone would take longer than the whole step on this CPU."""
        return self.seconds_per_step > self.cpu_step_seconds


@dataclass(frozen=True)
class TopOp:
    name: str
    self_seconds_per_step: float
    share: float


@dataclass(frozen=True)
class Profile:
    """What a profiled window found, per training step (K steps per compiled call divided out). ``error`` set: no
    profile could be made, and the sentence says why (the other fields are empty)."""

    verdict: Cause | str = Cause.COMPUTE
    findings: tuple[Finding, ...] = ()
    gpu_estimate: GpuEstimate | None = None
    steps: int = 0
    wanted_steps: int = 0
    steps_per_marker: int = 1
    step_seconds: float = 0.0
    ops_per_step: float = 0.0
    eager_ops_per_step: float = 0.0
    function_calls_per_step: float = 0.0
    graph_ops_per_step: float = 0.0
    xla_ops_per_step: float = 0.0
    compute_seconds: float = 0.0
    dispatch_seconds: float = 0.0
    python_seconds: float = 0.0
    conversion_seconds: float = 0.0
    input_seconds: float = 0.0
    retraces: int = 0
    retraced: tuple[str, ...] = ()
    compile_seconds: float = 0.0
    train_seconds: float = 0.0
    gpu: bool = False
    device_kernels_per_step: float = 0.0
    device_busy_seconds: float = 0.0
    copy_seconds: float = 0.0
    top_ops: tuple[TopOp, ...] = ()
    spans: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    eager_by_type: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    functions: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    capture: str = ""
    logdir: str = ""
    error: str = ""
    notes: tuple[str, ...] = ()  # what the engine left out and why (a plug-in rule that raised), one sentence each
    # Sentences of a store made before this version, kept as they were read (an upgrade cannot remake them).
    stored_sentence: str = ""
    stored_reading: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def damaged(self) -> bool:
        """A stored profile that could not be read (a hand-edited or half-written row), not one that found nothing."""
        return self.error.startswith(DAMAGED)

    @property
    def open_with(self) -> str:
        return f"xprof --logdir {self.logdir}  (or: tensorboard --logdir {self.logdir})" if self.logdir else ""

    @property
    def leading(self) -> Finding | None:
        """The change to make first: the costliest finding a change removes, worth a change (not the arithmetic,
        which is what remains after the others); else the first finding, but never a part no rule explains."""
        return next((f for f in self.findings if f.cause not in NOT_A_CHANGE and f.share >= MIN_SHARE),
                    next((f for f in self.findings if f.cause != Cause.UNEXPLAINED), None))

    # ------------------------------------------------------------ JSON, as a run's summary stores it

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types, with the version (``profile_text.as_json`` adds the sentences a summary carries)."""
        out = _plain(dataclasses.asdict(self))
        out["version"] = VERSION
        return {k: v for k, v in out.items() if v is not None and v != ""}

    @classmethod
    def from_json(cls, data: Any) -> Profile | None:
        """A stored profile of any version (None for what is no profile: a run that asked for none); unknown keys
        are left out, missing ones take their defaults. A damaged value (a version of "x", a count of 10**400,
        seconds stored as text) makes a profile whose ``error`` says so, never an exception: one run's row must
        not take down a listing."""
        if not isinstance(data, Mapping):
            return None
        try:
            data = dict(data)
            if _whole(data.get("version") or 1, "version") < 2:
                data = _upgrade_v1(data)
            names = {f.name for f in dataclasses.fields(cls)}
            return cls(**_checked(cls, _typed({k: v for k, v in data.items() if k in names})))
        except (TypeError, ValueError, OverflowError, AttributeError, KeyError) as e:
            return cls(error=f"{DAMAGED} ({str(e)[:120]}): it cannot be read, and the rest of the run stands.")


DAMAGED = "This run's stored profile is damaged"  # how a profile that cannot be read begins its sentence
MIN_SHARE = 0.10  # of the step: a cause worth a change (the engine names nothing smaller first)


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _number(value: Any, name: str) -> float:
    """A stored number as a finite float; anything else (text, a list, a bool, 1e400, 10**400) is damage."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"its {name} is {str(value)[:40]!r}, not a number")
    number = float(value)  # OverflowError for an int past a float's range
    if not math.isfinite(number):
        raise ValueError(f"its {name} is {number}, not a finite number")
    return number


def _whole(value: Any, name: str) -> int:
    number = _number(value, name)
    if number != int(number):
        raise ValueError(f"its {name} is {number}, not a whole number")
    return int(number)


def _checked(cls: type, values: dict[str, Any]) -> dict[str, Any]:
    """Each number field of a dataclass as its type (float or int), each text field as text: what ``json``
    parsed from a hand-edited row may be anything."""
    out = dict(values)
    for f in dataclasses.fields(cls):
        if f.name not in out:
            continue
        if f.type == "float":
            out[f.name] = _number(out[f.name], f.name)
        elif f.type == "int":
            out[f.name] = _whole(out[f.name], f.name)
        elif f.type == "bool":
            out[f.name] = bool(out[f.name])
        elif f.type == "str" and not isinstance(out[f.name], str):
            raise ValueError(f"its {f.name} is not text")
    return out


def _typed(values: dict[str, Any]) -> dict[str, Any]:
    """Stored JSON back into the fields' types."""
    out = dict(values)
    if "verdict" in out:
        out["verdict"] = Cause.of(out["verdict"])
    out["findings"] = tuple(_finding(f) for f in out.get("findings") or () if isinstance(f, Mapping))
    gpu = out.get("gpu_estimate")
    out["gpu_estimate"] = _gpu(gpu) if isinstance(gpu, Mapping) else None
    out["top_ops"] = tuple(TopOp(str(op.get("name", "?")), _number(op.get("self_seconds_per_step") or 0.0, "op's time"),
                                 _number(op.get("share") or 0.0, "op's share")) for op in out.get("top_ops") or ()
                           if isinstance(op, Mapping))
    out["retraced"] = tuple(str(name) for name in out.get("retraced") or ())
    out["notes"] = tuple(str(note) for note in out.get("notes") or ())
    for key in ("spans", "functions", "eager_by_type"):
        table = out.get(key)
        out[key] = {str(k): tuple(_number(x, key) for x in v) for k, v in table.items()} \
            if isinstance(table, Mapping) else {}
    return out


def _finding(data: Mapping[str, Any]) -> Finding:
    names = {f.name for f in dataclasses.fields(Finding)}
    values = {k: v for k, v in data.items() if k in names}
    values["cause"] = Cause.of(values.get("cause", Cause.OTHER))
    values["where"] = tuple(Where(**_checked(Where, {k: v for k, v in w.items()
                                                     if k in {f.name for f in dataclasses.fields(Where)}}))
                            for w in values.get("where") or () if isinstance(w, Mapping))
    return Finding(**_checked(Finding, {"title": "", "seconds_per_step": 0.0, "share": 0.0, "fix": "", "guide": ""}
                              | values))


def _gpu(data: Mapping[str, Any]) -> GpuEstimate:
    names = {f.name for f in dataclasses.fields(GpuEstimate)}
    values = {k: v for k, v in data.items() if k in names}
    low = _number(values.get("seconds_per_step") or 0.0, "GPU estimate")
    values["range_seconds_per_step"] = tuple(_number(x, "GPU range")
                                             for x in values.get("range_seconds_per_step") or (low, low))
    values["sources"] = tuple(str(x) for x in values.get("sources") or ())
    return GpuEstimate(**_checked(GpuEstimate, {"seconds_per_step": low, "launches_per_step": 0.0,
                                                "copies_per_step": 0.0, "cpu_step_seconds": 0.0} | values))


def _upgrade_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (stores before the typed profile): findings named by their English ``cause`` with a ``category``;
    the verdicts and sentences top-level; an error as {"error", "wanted_steps"}."""
    out = dict(data)
    out["findings"] = [f | {"cause": f.get("category", Cause.OTHER), "title": f.get("cause", "")}
                       for f in data.get("findings") or () if isinstance(f, Mapping)]
    out["stored_sentence"] = str(data.get("sentence") or "")
    out["stored_reading"] = str(data.get("tf_reading") or data.get("sentence") or "")
    gpu = data.get("gpu_estimate")
    if isinstance(gpu, Mapping) and gpu.get("measured"):
        out["gpu_estimate"] = dict(gpu) | {"measured_step_seconds": gpu.get("cpu_step_seconds", 0.0)}
    return out


def of_summary(summary: Mapping[str, Any] | None) -> Profile | None:
    """The profile a run's summary holds, typed (None: the run has none): a stored run's ``RunSummary`` parsed it
    once; a summary still being made (a plain dict) is parsed here."""
    if not isinstance(summary, Mapping):
        return None
    parsed = getattr(summary, "profile", None)  # RunSummary.profile (a dict has no such attribute)
    return parsed if parsed is not None or hasattr(summary, "profile") else Profile.from_json(summary.get("profile"))
