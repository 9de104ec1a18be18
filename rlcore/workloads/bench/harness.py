"""The benchmark lab's harness: it times the catalogue's patterns cell by cell (a pattern at a batch size, width and
device), sweeps them, and finds the crossover.

Importing this module does not import TensorFlow; a pattern's ``build`` does. Each device runs in its own process
(``python -m rlcore.workloads.bench.harness``), because the device of a TensorFlow process is fixed when
TensorFlow starts.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path
from typing import Any

from rlcore.contract.params import from_dict
from rlcore.contract.reporting import Reporter
from rlcore.tracking.run import TrainingRun
from rlcore.workloads.bench.catalogue import MissingFramework, pattern
from rlcore.workloads.bench.config import BenchConfig

PROJECT_ROOT = Path(__file__).resolve().parents[3]

# Metric keys of one measured cell; the cell is identified by its position in plan(cfg) (the record's step).
CALLS_PER_S = "bench/calls_per_second"
STEPS_PER_S = "bench/steps_per_second"
SAMPLES_PER_S = "bench/samples_per_second"
IQR = "bench/iqr"
FIRST_CALL_S = "bench/first_call_seconds"
CALLS = "bench/calls"
SETUP_S = "bench/setup_seconds"

# ---------------------------------------------------------------- the harness


@dataclass(frozen=True)
class Timing:
    """What the harness saw: the first call alone, then one rate (calls/s) per repeat."""

    first_call_seconds: float
    rates: tuple[float, ...]
    calls: int

    @property
    def median(self) -> float:
        return statistics.median(self.rates)

    @property
    def iqr(self) -> float:
        """Interquartile range of the repeats' rates (0 with fewer than two repeats)."""
        if len(self.rates) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.rates, n=4, method="inclusive")
        return q3 - q1


def time_calls(call: Call, *, repeats: int, min_seconds: float,
               clock: Callable[[], float] = time.perf_counter) -> Timing:
    """Time the first call on its own (trace/compile), then ``repeats`` runs of at least ``min_seconds`` each."""
    start = clock()
    call()
    first = clock() - start
    rates, calls = [], 0
    for _ in range(repeats):
        n, start = 0, clock()
        while True:
            call()
            n += 1
            elapsed = clock() - start
            if elapsed >= min_seconds:
                break
        rates.append(n / elapsed)
        calls += n
    return Timing(first, tuple(rates), calls)


Call = Callable[[], object]


@dataclass(frozen=True)
class Cell:
    """One point of the matrix: a pattern on a device at a batch size and width. ``workload`` is the catalogue's
    suite the pattern belongs to (the bench's setting of that name, as stored runs keep it)."""

    workload: str
    pattern: str
    device: str
    batch: int
    width: int


def plan(cfg: BenchConfig) -> list[Cell]:
    """Every cell of a bench, in the order it runs: device, then pattern, batch, width."""
    return [Cell(cfg.workload, p, d, b, w) for d, p, b, w in
            product(cfg.device_list, cfg.pattern_list, cfg.batch_list, cfg.width_list)]


def measure(cell: Cell, cfg: BenchConfig) -> dict[str, Any]:
    """Build the cell's call in this process (on its device) and time it; one JSON-ready result.

    Building is timed too: for tf-function and graph patterns it includes the trace (the call is a traced
    concrete function), so the first call then only shows what is left, such as XLA's compile.
    """
    p = pattern(cell.workload, cell.pattern)
    start = time.perf_counter()
    try:
        call = p.build(cell.batch, cell.width, cfg.seed)
    except MissingFramework as e:
        return asdict(cell) | {"missing": str(e), "steps_per_call": p.steps_per_call}
    setup = time.perf_counter() - start
    timing = time_calls(call, repeats=cfg.repeats, min_seconds=cfg.min_seconds)
    result = cell_result(cell, timing, p.steps_per_call) | {"setup_seconds": setup}
    if cfg.profile:  # after the timing, its own calls: profiling never touches a measured number
        result["profile"] = profile_cell(cell, call, cfg.profile, p.steps_per_call)
    return result


def profile_cell(cell: Cell, call: Call, calls: int, steps_per_call: int) -> dict[str, Any] | None:
    """``calls`` more calls of a measured cell under TensorFlow's profiler, one step marker each; what they show."""
    import tempfile

    from rlcore.contract import profile_text
    from rlcore.tracking import capture, why
    from rlcore.tracking.machine import PROFILE_DIR_ENV

    root = Path(os.environ.get(PROFILE_DIR_ENV) or tempfile.mkdtemp(prefix="rlcore-profile-"))
    window = capture.ProfileWindow(calls, root / f"{cell.pattern}-batch{cell.batch}-width{cell.width}-"
                                   f"{cell.device}", start=0)
    for _ in range(calls):
        with window.step():
            call()
    return profile_text.as_json(why.profile(window.result(), steps_per_marker=steps_per_call))


def cell_result(cell: Cell, timing: Timing, steps_per_call: int) -> dict[str, Any]:
    calls_per_second = timing.median
    steps_per_second = calls_per_second * steps_per_call
    return asdict(cell) | {
        "calls_per_second": calls_per_second, "steps_per_call": steps_per_call,
        "steps_per_second": steps_per_second, "samples_per_second": steps_per_second * cell.batch,
        "iqr": timing.iqr * steps_per_call, "first_call_seconds": timing.first_call_seconds, "calls": timing.calls,
    }


def cell_metrics(result: dict[str, Any]) -> dict[str, float]:
    metrics = {CALLS_PER_S: result["calls_per_second"], STEPS_PER_S: result["steps_per_second"],
               SAMPLES_PER_S: result["samples_per_second"], IQR: result["iqr"],
               FIRST_CALL_S: result["first_call_seconds"], CALLS: float(result["calls"])}
    if "setup_seconds" in result:
        metrics[SETUP_S] = result["setup_seconds"]
    return metrics


def cells_from_metrics(cfg: BenchConfig, metrics: Iterable[tuple[int, str, float]]) -> list[dict[str, Any]]:
    """Rebuild measured cells from stored (step, name, value) rows: step k is the k-th cell of plan(cfg)."""
    cells = plan(cfg)
    values: dict[int, dict[str, float]] = {}
    for step, name, value in metrics:
        if name.startswith("bench/") and 1 <= step <= len(cells):
            values.setdefault(step, {})[name] = value
    out = []
    for step, got in sorted(values.items()):
        if CALLS_PER_S not in got:
            continue
        p = pattern(cfg.workload, cells[step - 1].pattern)
        out.append(asdict(cells[step - 1]) | {
            "calls_per_second": got[CALLS_PER_S], "steps_per_call": p.steps_per_call,
            "steps_per_second": got.get(STEPS_PER_S, got[CALLS_PER_S]), "samples_per_second": got.get(SAMPLES_PER_S),
            "iqr": got.get(IQR), "first_call_seconds": got.get(FIRST_CALL_S), "calls": int(got.get(CALLS, 0)),
            "setup_seconds": got.get(SETUP_S)})
    return out


# ---------------------------------------------------------------- the crossover


def crossover(cells: Iterable[dict[str, Any]], pattern_name: str, width: int | None = None) -> int | None:
    """The smallest batch from which GPU samples/s stay above CPU's for a pattern, or None.

    Only batches measured on both devices count; "stay above" means the GPU also wins at every larger
    measured batch, so a noisy win at one small batch is not called a crossover.
    """
    by_device: dict[str, dict[int, float]] = {"cpu": {}, "gpu": {}}
    for c in cells:
        if c["pattern"] == pattern_name and (width is None or c["width"] == width) and c["device"] in by_device:
            by_device[c["device"]][c["batch"]] = c["samples_per_second"]
    common = sorted(set(by_device["cpu"]) & set(by_device["gpu"]))
    answer = None
    for batch in reversed(common):
        if by_device["gpu"][batch] > by_device["cpu"][batch]:
            answer = batch
        else:
            break
    return answer


def crossover_sentence(cells: list[dict[str, Any]], pattern_name: str) -> str:
    """What the crossover chart says in words; never a GPU claim without GPU cells."""
    devices = {c["device"] for c in cells if c["pattern"] == pattern_name}
    if "gpu" not in devices:
        return "No GPU: CPU only. Run the lab on a machine where TensorFlow sees a GPU to find the crossover."
    batch = crossover(cells, pattern_name)
    if batch is None:
        return f"{pattern_name}: the GPU did not overtake the CPU at any measured batch size."
    return f"{pattern_name}: the GPU overtakes the CPU from batch {batch:,} on."


# ---------------------------------------------------------------- running a bench


def run_device_cells(cfg: BenchConfig, device: str) -> Iterator[dict[str, Any]]:
    """Measure this device's cells in this process (its device already pinned)."""
    for cell in plan(cfg):
        if cell.device == device:
            yield measure(cell, cfg)


def _device_command(cfg: BenchConfig, device: str) -> list[str]:
    return [sys.executable, "-m", __name__, json.dumps(asdict(cfg)), device]


def device_main(argv: list[str]) -> int:
    """The child process of one device (``python -m rlcore.workloads.bench.harness CONFIG_JSON DEVICE``): its
    environment card, then each measured cell, as one JSON line each; a device TensorFlow cannot use is one line on
    stderr."""
    from rlcore.tracking.machine import DeviceError, check_device, environment_card, pin_device

    values, device = json.loads(argv[0]), argv[1]
    cfg = from_dict(BenchConfig, values | {"device": device})
    pin_device(device)

    try:
        placement = check_device(device)
    except DeviceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import tensorflow as tf

    print(json.dumps({"environment": environment_card()}), flush=True)
    with tf.device(placement):
        for result in run_device_cells(cfg, device):
            print(json.dumps(result), flush=True)
    return 0


def run(cfg: BenchConfig, reporter: Reporter | None = None) -> dict[str, Any]:
    """Measure every cell, one child process per device; report each cell as it lands. Returns the summary."""
    from rlcore.tracking.machine import DeviceError, pin_device

    cells = plan(cfg)
    bench = TrainingRun(reporter, kind="bench", unit="cells", total=len(cells), config=asdict(cfg), rate_key=None)
    results: list[dict[str, Any]] = []
    environments: dict[str, Any] = {}
    bench.start(None)
    for device in cfg.device_list:
        env = dict(os.environ)
        pin_device(device, env)
        proc = subprocess.Popen(_device_command(cfg, device), cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            for line in proc.stdout:
                message = json.loads(line)
                if "environment" in message:
                    environments[device] = message["environment"]
                    continue
                results.append(message)
                bench.advance()
                following = cells[len(results)] if len(results) < len(cells) else None
                if not bench.emit({} if "missing" in message else cell_metrics(message), step=len(results),
                                  phase=f"measuring {following.pattern} at batch {following.batch:,} on "
                                        f"{following.device}" if following else ""):
                    break
        finally:
            if bench.stopped:
                proc.terminate()
            _, err = proc.communicate()
        if not bench.stopped and proc.returncode != 0:
            lines = err.strip().splitlines()
            message = lines[-1].removeprefix("error: ") if lines else f"the {device} bench process failed."
            raise (DeviceError if proc.returncode == 2 else RuntimeError)(message)
        if bench.stopped:
            break
    measured = [c for c in results if "missing" not in c]
    rates = [c["steps_per_second"] for c in measured]
    fastest = max(measured, key=lambda c: c["steps_per_second"]) if measured else None
    summary = {"cells": results, "environment": environments.get(cfg.device_list[0], {}),
               "environments": environments, "stopped_early": bench.stopped,
               "crossover": {p: crossover(measured, p) for p in cfg.pattern_list},
               "train_seconds": bench.stop_clock(),
               "best_pattern": fastest["pattern"] if fastest else None,
               "best_steps_per_second": max(rates) if rates else None,
               "speedup": same_batch_speedup(measured),
               "missing": sorted({c["missing"] for c in results if "missing" in c})}
    return bench.finish(summary)


def same_batch_speedup(cells: list[dict[str, Any]]) -> float | None:
    """The largest fastest / slowest ratio among patterns measured on the same device, batch and width: like with
    like, as the bars show it (a ratio across batches would mix the pattern's cost with the batch's)."""
    groups: dict[tuple, list[float]] = {}
    for c in cells:
        groups.setdefault((c["device"], c["batch"], c["width"]), []).append(c["steps_per_second"])
    ratios = [max(rates) / min(rates) for rates in groups.values() if len(rates) > 1 and min(rates) > 0]
    return max(ratios) if ratios else None


def cells_table(cells: list[dict[str, Any]]):
    """The cells as a table for people: rates rounded, the slowest pattern of each batch as the 1x reference."""
    import pandas as pd

    table = pd.DataFrame(cells, columns=["workload", "pattern", "device", "batch", "width", "calls_per_second",
                                         "steps_per_second", "samples_per_second", "iqr", "setup_seconds",
                                         "first_call_seconds", "calls", "missing"])
    slowest = table.groupby(["device", "batch", "width"])["steps_per_second"].transform("min")
    table["speedup"] = (table["steps_per_second"] / slowest).round(1)
    table.insert(6, "us_per_step", (1e6 / table["steps_per_second"]).round(1))
    table["missing"] = table["missing"].fillna("")
    return table.round({"calls_per_second": 1, "steps_per_second": 1, "samples_per_second": 0, "iqr": 1,
                        "setup_seconds": 3, "first_call_seconds": 3})


if __name__ == "__main__":
    raise SystemExit(device_main(sys.argv[1:]))
