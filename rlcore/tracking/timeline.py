"""A capture's timeline as plain Python: the planes, lines and events of one ``.xplane.pb`` file.

The file is TensorFlow's profiler's ``XSpace`` protobuf. Its schema (``xplane_pb2``) is the one the installed
TensorFlow ships, loaded from its file, so a process that only reads a capture (the dashboard's check of an upload
among them) never imports TensorFlow. The protobuf runtime (upb, in C) parses the file and this module walks it once:
a 5 MB capture of 302,854 events in 0.59 s, where xprof's ``ProfileData`` (a ctypes wrapper, a finalizer per event)
took 2.81 s, and the whole reading of it 4.3 s → 1.66 s (benchmarks/capture_reading.py). Names, times and stats are
those ``ProfileData`` gives (a stat that refers to a shared string is its text, where xprof gives its number); a test
compares the two, event by event, on the lab's, Keras's and the V100 captures. xprof stays the reader of its own
tools (the framework-op table, the overview page).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

_SCHEMA = "tensorflow.tsl.profiler.protobuf.xplane_pb2"
_LOADED = "rlcore_xplane_pb2"  # the same file loaded by path, TensorFlow not imported


class Event:
    """One timeline event, its times in seconds; ``stats`` by name, each value as text (as xprof gives them)."""

    __slots__ = ("duration", "end", "name", "start", "stats")

    def __init__(self, name: str, start: float, duration: float, stats: dict[str, str]) -> None:
        self.name = name
        self.start = start
        self.duration = duration
        self.end = start + duration
        self.stats = stats

    def __repr__(self) -> str:
        return f"Event({self.name!r}, start={self.start:.9f}, duration={self.duration:.9f})"


@dataclasses.dataclass(frozen=True)
class Line:
    """One thread's (or a GPU stream's) events, in the file's order."""

    name: str
    events: list[Event]


@dataclasses.dataclass(frozen=True)
class Plane:
    """The host ("/host:CPU") or one device ("/device:GPU:0"), its lines."""

    name: str
    lines: list[Line]


def schema() -> ModuleType:
    """TensorFlow's ``xplane_pb2``: TensorFlow's own module when it is imported already, else the same file loaded
    by path (the same descriptor either way: the protobuf pool takes an identical file twice)."""
    for loaded in (_SCHEMA, _LOADED):
        if loaded in sys.modules:
            return sys.modules[loaded]
    if "tensorflow" in sys.modules:
        return importlib.import_module(_SCHEMA)
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or spec.origin is None:
        raise ImportError("TensorFlow is not installed: its profiler's capture schema comes with it.")
    path = Path(spec.origin).parent / "tsl" / "profiler" / "protobuf" / "xplane_pb2.py"
    loader_spec = importlib.util.spec_from_file_location(_LOADED, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ImportError(f"TensorFlow's capture schema is not at {path}.")
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    sys.modules[_LOADED] = module
    return module


def read(path: str | Path) -> list[Plane]:
    """The capture's planes; ``ValueError`` when the file is no ``XSpace`` (a truncated file, or another kind)."""
    pb2 = schema()
    try:
        space = pb2.XSpace.FromString(Path(path).read_bytes())
    except Exception as e:  # protobuf's DecodeError: its text names wire formats, nothing a person can act on
        raise ValueError("its bytes are not the profiler's XSpace format") from e
    return [_plane(plane) for plane in space.planes]


def _plane(plane: Any) -> Plane:
    names = {key: meta.name for key, meta in plane.event_metadata.items()}
    stat_names = {key: meta.name for key, meta in plane.stat_metadata.items()}
    lines = []
    for line in plane.lines:
        base_ns = float(line.timestamp_ns)
        events = []
        for e in line.events:
            start_ns = base_ns + e.offset_ps / 1000.0
            stats = {stat_names.get(s.metadata_id, ""): _value(s, stat_names) for s in e.stats} if e.stats else {}
            events.append(Event(names.get(e.metadata_id, ""), start_ns * 1e-9, e.duration_ps * 1e-12, stats))
        lines.append(Line(line.display_name or line.name, events))
    return Plane(plane.name, lines)


def _value(stat: Any, stat_names: dict[int, str]) -> str:
    kind = stat.WhichOneof("value")
    if kind == "ref_value":  # a string kept once in the plane's stat metadata
        return stat_names.get(stat.ref_value, "")
    if kind == "bytes_value":
        return stat.bytes_value.decode("utf-8", errors="replace")
    if kind is None:
        return ""
    if kind == "double_value":
        return f"{stat.double_value:f}"  # as xprof writes a double: six decimals
    return str(getattr(stat, kind))
