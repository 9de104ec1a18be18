"""The benchmark lab's settings: one suite of the catalogue, its patterns, batch sizes, widths and devices."""

from __future__ import annotations

from dataclasses import dataclass

from rlcore.contract.params import DEVICES, ConfigError, check_fields, int_list, param, profile_param, shown
from rlcore.workloads.bench.catalogue import SUITES, is_pattern


@dataclass(frozen=True)
class BenchConfig:
    """A benchmark: patterns of one workload, timed over batch sizes, widths and devices."""

    workload: str = param(next(iter(SUITES)), "What one call does: " + ", ".join(
        f"{s.name} ({s.description})" for s in SUITES.values()) + ".", choices=tuple(SUITES))
    patterns: str = param("", "Comma-separated patterns; empty = all of the workload's. " + "; ".join(
        f"{s.name}: {', '.join(s.patterns)}" for s in SUITES.values()) + " (kN: N steps per call).")
    batch: str = param("", "Comma-separated batch sizes, e.g. 1,100,10000; empty = the workload's (" + ", ".join(
        f"{s.defaults['batch']} for {s.name}" for s in SUITES.values()) + ").")
    width: str = param("", "Comma-separated hidden widths; empty = the workload's (" + ", ".join(
        f"{s.defaults['width']} for {s.name}" for s in SUITES.values()) + ").", advanced=True)
    device: str = param("cpu", "cpu, gpu or cpu,gpu: each device is measured in its own process.")
    repeats: int = param(5, "Timed repeats per cell; the median is reported with the interquartile range.",
                         lo=1, hi=1000)
    min_seconds: float = param(1.0, "Minimum length of each timed repeat, in seconds.", lo=0.01, hi=3600,
                               advanced=True)
    seed: int = param(0, "Seed of the networks and the input data.", lo=0, hi=2**31 - 1, advanced=True)
    profile: int = profile_param("Bench: calls of each cell, after its timing.")

    def __post_init__(self) -> None:
        check_fields(self)
        known = SUITES[self.workload].patterns
        for name in self.pattern_list:
            if not is_pattern(self.workload, name):
                raise ConfigError(f"patterns must be among {', '.join(known)} for {self.workload}, not "
                                  f"{shown(name)}.", "patterns")
        if not self.pattern_list:
            raise ConfigError(f"patterns must name at least one of {', '.join(known)}.", "patterns")
        _ = self.batch_list, self.width_list
        devices = self.device_list
        if not devices or any(d not in DEVICES for d in devices):
            raise ConfigError(f"device must be cpu, gpu or cpu,gpu, not {shown(self.device)}.", "device")

    def _or_default(self, name: str) -> str:
        return getattr(self, name).strip() or SUITES[self.workload].defaults[name]

    @property
    def pattern_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.strip() for p in self._or_default("patterns").split(",") if p.strip()))

    @property
    def batch_list(self) -> tuple[int, ...]:
        return int_list("batch", self._or_default("batch"), 1_000_000)

    @property
    def width_list(self) -> tuple[int, ...]:
        return int_list("width", self._or_default("width"), 4096)

    @property
    def device_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.strip() for d in self.device.split(",") if d.strip()))
