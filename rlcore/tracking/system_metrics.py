"""What the machine did while a run trained, as users of W&B's and MLflow's system metrics expect: the run's CPU
(cores busy, of the machine's), the machine's, the run's threads and resident memory, and a visible GPU's
utilisation and memory (NVIDIA's management library, where a GPU and its driver are present).

A thread samples about once a second, off the training thread, and hands ordinary metric rows to the run's
reporter (``system/...`` keys), so the store, the charts and comparisons treat them like any other metric.
Sampling costs the run little (benchmarks/profiling_cost.py measures it, on and off); ``RLCORE_SYSTEM_METRICS=0`` turns
it off.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from rlcore.contract import settings

PREFIX = "system/"
RUN_CORES = PREFIX + "run_cpu_cores"  # cores this run's processes kept busy (2.0 = two whole cores)
MACHINE_CORES = PREFIX + "machine_cpu_cores"  # cores busy on the whole machine, this run included
THREADS = PREFIX + "run_threads"
RSS_MB = PREFIX + "run_memory_mb"
GPU_UTIL = PREFIX + "gpu_utilization"  # a fraction, 0..1
GPU_MEMORY_MB = PREFIX + "gpu_memory_mb"
SWITCH_ENV = settings.SYSTEM_METRICS.name
EVERY_SECONDS = 1.0

Row = tuple[int, float, str, float]


def enabled() -> bool:
    return settings.SYSTEM_METRICS.text() != "0"


class Sampler:
    """Samples every ``every`` seconds in a thread, and once more at the end; ``send(rows)`` takes each sample's
    rows, ``step()`` says which step of the run they belong to. A context manager: the thread lives while the run
    trains; the rows of the last reading leave with the reporter's next flush."""

    def __init__(self, send: Callable[[list[Row]], None], step: Callable[[], int],
                 every: float = EVERY_SECONDS) -> None:
        import psutil

        self.send, self.step, self.every = send, step, every
        self.process = psutil.Process()
        self.cores = psutil.cpu_count() or 1
        self.samples: list[dict[str, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="system-metrics", daemon=True)
        self._t0 = time.monotonic()
        self._gpu = _Gpu.open()

    def __enter__(self) -> Sampler:
        import psutil

        psutil.cpu_percent(None)  # the first reading of a counter only starts it
        self._cpu_seconds = self._tree_cpu_seconds()
        self._last = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.every + 5)
        self._take()  # a last reading: even a run shorter than one period has one
        if self._gpu is not None:
            self._gpu.close()

    def _tree_cpu_seconds(self) -> float:
        """CPU seconds of this process and its children (a bench measures in child processes)."""
        total = 0.0
        for proc in [self.process, *self._children()]:
            with contextlib.suppress(Exception):
                times = proc.cpu_times()
                total += times.user + times.system
        return total

    def _children(self) -> list[Any]:
        with contextlib.suppress(Exception):
            return self.process.children(recursive=True)
        return []

    def sample(self) -> dict[str, float]:
        """One reading: cores busy since the previous one, threads, memory (and the GPU's)."""
        import psutil

        now, cpu = time.monotonic(), self._tree_cpu_seconds()
        elapsed = max(now - self._last, 1e-6)
        reading = {RUN_CORES: max(0.0, cpu - self._cpu_seconds) / elapsed,
                   MACHINE_CORES: psutil.cpu_percent(None) / 100 * self.cores}
        self._cpu_seconds, self._last = cpu, now
        with contextlib.suppress(Exception):
            reading[THREADS] = float(self.process.num_threads())
            reading[RSS_MB] = self.process.memory_info().rss / 2**20
        if self._gpu is not None:
            reading |= self._gpu.sample()
        return reading

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self._take()

    def _take(self) -> None:
        with contextlib.suppress(Exception):  # a reading that fails is a gap in a chart, never a failed run
            reading = self.sample()
            self.samples.append(reading)
            step, wall = self.step(), time.monotonic() - self._t0
            self.send([(step, wall, name, value) for name, value in reading.items()])

    def summary(self) -> dict[str, Any]:
        """What the run's summary keeps: the machine's cores, the run's mean and peak cores busy, its peak memory,
        the GPU's mean utilisation where one was sampled."""
        if not self.samples:
            return {"machine_cores": self.cores}
        run = [s[RUN_CORES] for s in self.samples]
        out: dict[str, Any] = {"machine_cores": self.cores, "run_cpu_cores_mean": sum(run) / len(run),
                               "run_cpu_cores_max": max(run), "samples": len(self.samples),
                               "machine_cpu_cores_mean": sum(s[MACHINE_CORES] for s in self.samples) / len(run)}
        if any(RSS_MB in s for s in self.samples):
            out["run_memory_mb_max"] = max(s.get(RSS_MB, 0.0) for s in self.samples)
        gpu = [s[GPU_UTIL] for s in self.samples if GPU_UTIL in s]
        if gpu:
            out["gpu_utilization_mean"] = sum(gpu) / len(gpu)
        return out


class _Gpu:
    """The first visible GPU through NVIDIA's management library (nvidia-ml-py); None where there is none."""

    def __init__(self, nvml: Any, handle: Any) -> None:
        self.nvml, self.handle = nvml, handle

    @staticmethod
    def open() -> _Gpu | None:
        if os.environ.get("CUDA_VISIBLE_DEVICES") in ("-1", ""):
            return None  # this run was given no GPU
        try:
            import pynvml

            pynvml.nvmlInit()
        except Exception:  # no library, no driver, no GPU: nothing to sample
            return None
        try:
            visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
            index = int(visible) if visible.isdigit() else 0
            return _Gpu(pynvml, pynvml.nvmlDeviceGetHandleByIndex(index))
        except Exception:
            with contextlib.suppress(Exception):
                pynvml.nvmlShutdown()
            return None

    def sample(self) -> dict[str, float]:
        rates = self.nvml.nvmlDeviceGetUtilizationRates(self.handle)
        memory = self.nvml.nvmlDeviceGetMemoryInfo(self.handle)
        return {GPU_UTIL: rates.gpu / 100, GPU_MEMORY_MB: memory.used / 2**20}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.nvml.nvmlShutdown()


class NoSampler:
    """Sampling switched off: nothing runs."""

    def __enter__(self) -> NoSampler:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def summary(self) -> dict[str, Any]:
        return {}


def sampler(send: Callable[[list[Row]], None], step: Callable[[], int]) -> Sampler | NoSampler:
    return Sampler(send, step) if enabled() else NoSampler()
