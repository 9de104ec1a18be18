"""The benchmark lab: harness statistics on a fake clock, every pattern runs, bad input, the crossover."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rlcore.contract.params import ConfigError
from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.catalogue import SUITES, pattern
from rlcore.workloads.bench.config import BenchConfig

ROOT = Path(__file__).resolve().parents[2]


class FakeClock:
    """Time moves only when a fake call says how long it took."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_harness_times_the_first_call_apart_then_repeats_for_at_least_min_seconds():
    clock = FakeClock()
    # First call 2 s (the trace); then repeats whose calls take 0.5, 0.25 and 0.125 s.
    costs = iter([2.0] + [0.5] * 2 + [0.25] * 4 + [0.125] * 8)

    def call():
        clock.now += next(costs)

    timing = bench.time_calls(call, repeats=3, min_seconds=1.0, clock=clock)
    assert timing.first_call_seconds == 2.0
    assert timing.rates == (2.0, 4.0, 8.0)
    assert timing.median == 4.0
    assert timing.iqr == 3.0  # inclusive quartiles of 2, 4, 8: 3 and 6
    assert timing.calls == 14


def test_a_call_slower_than_min_seconds_still_counts_once_per_repeat():
    clock = FakeClock()

    def call():
        clock.now += 5.0

    timing = bench.time_calls(call, repeats=2, min_seconds=1.0, clock=clock)
    assert timing.rates == (0.2, 0.2) and timing.calls == 2 and timing.iqr == 0.0


def test_cell_results_scale_k_step_patterns_and_batches():
    cell = bench.Cell("hjb-step", "xla-k100", "cpu", 50, 8)
    result = bench.cell_result(cell, bench.Timing(1.5, (10.0, 12.0, 11.0), 33), steps_per_call=100)
    assert result["calls_per_second"] == 11.0
    assert result["steps_per_second"] == 1100.0
    assert result["samples_per_second"] == 55_000.0
    assert result["iqr"] == pytest.approx(100.0)  # in steps/s, like the bars it is drawn on
    assert (result["first_call_seconds"], result["calls"]) == (1.5, 33)


# framework-step's patterns (torch, jax) are each built and measured in test_frameworks.py: not built twice.
@pytest.mark.parametrize("workload", [name for name in SUITES if name != "framework-step"])
def test_every_pattern_builds_and_runs_one_call_on_cpu(workload):
    for name in SUITES[workload].patterns:
        p = pattern(workload, name.replace("kN", "k3"))
        call = p.build(batch=4, width=6, seed=0)
        out = call()
        if workload == "dqn-act":
            assert out.shape == (4,) and set(out.tolist()) <= {0, 1, 2, 3}, name
        else:
            assert isinstance(out, float) and out == out, name  # a finite loss came back
        assert p.why, name


def test_plan_orders_cells_by_device_pattern_batch_width_and_metrics_rebuild_them():
    cfg = BenchConfig(workload="dqn-train", patterns="graph,xla", batch="1,8", width="16")
    cells = bench.plan(cfg)
    assert [(c.pattern, c.batch) for c in cells] == [("graph", 1), ("graph", 8), ("xla", 1), ("xla", 8)]
    rows = [(2, bench.CALLS_PER_S, 50.0), (2, bench.SAMPLES_PER_S, 400.0), (2, bench.STEPS_PER_S, 50.0)]
    (rebuilt,) = bench.cells_from_metrics(cfg, rows)
    assert (rebuilt["pattern"], rebuilt["batch"], rebuilt["samples_per_second"]) == ("graph", 8, 400.0)


@pytest.mark.parametrize(("fields", "message"), [
    ({"patterns": "predict,turbo", "workload": "dqn-act"},
     "patterns must be among predict, eager, tf-function, xla for dqn-act, not 'turbo'."),
    ({"patterns": "graph-k0", "workload": "hjb-step"}, "patterns must be among eager, graph, xla, graph-kN, xla-kN"),
    ({"batch": "1,0,10"}, "batch must be whole numbers from 1 to 1,000,000 separated by commas"),
    ({"batch": "-5"}, "batch must be whole numbers"),
    ({"repeats": 0}, "repeats must be at least 1, not 0."),
    ({"device": "tpu"}, "device must be cpu, gpu or cpu,gpu, not 'tpu'."),
])
def test_invalid_bench_settings_are_one_sentence(fields, message):
    with pytest.raises(ConfigError) as e:
        BenchConfig(**fields)
    assert str(e.value).startswith(message)


def _cells(rows):
    return [{"pattern": p, "device": d, "batch": b, "width": 8, "samples_per_second": s} for p, d, b, s in rows]


def test_crossover_is_the_smallest_batch_from_which_the_gpu_stays_ahead():
    cells = _cells([("graph", "cpu", 1, 100), ("graph", "gpu", 1, 10),
                    ("graph", "cpu", 100, 5_000), ("graph", "gpu", 100, 6_000),  # a win that does not last
                    ("graph", "cpu", 1_000, 20_000), ("graph", "gpu", 1_000, 15_000),
                    ("graph", "cpu", 10_000, 30_000), ("graph", "gpu", 10_000, 90_000),
                    ("graph", "cpu", 65_536, 31_000), ("graph", "gpu", 65_536, 400_000)])
    assert bench.crossover(cells, "graph") == 10_000
    assert bench.crossover_sentence(cells, "graph") == "graph: the GPU overtakes the CPU from batch 10,000 on."


def test_no_crossover_when_the_gpu_never_wins_and_plain_words_without_a_gpu():
    slow_gpu = _cells([("xla", "cpu", 1, 100), ("xla", "gpu", 1, 10), ("xla", "cpu", 64, 900), ("xla", "gpu", 64, 800)])
    assert bench.crossover(slow_gpu, "xla") is None
    assert "did not overtake" in bench.crossover_sentence(slow_gpu, "xla")
    cpu_only = _cells([("xla", "cpu", 1, 100), ("xla", "cpu", 64, 900)])
    assert bench.crossover(cpu_only, "xla") is None
    assert bench.crossover_sentence(cpu_only, "xla").startswith("No GPU: CPU only.")


def _rlcore(*args, **env):
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, cwd=ROOT,
                          env=os.environ | env, timeout=300)


def test_cli_bench_measures_each_cell_in_a_device_process_and_writes_json(tmp_path):
    out = tmp_path / "bench.json"
    proc = _rlcore("bench", "--workload", "dqn-act", "--patterns", "eager,tf-function", "--batch", "1,8",
                   "--repeats", "2", "--min-seconds", "0.05", "--json", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    keys = {"workload", "pattern", "device", "batch", "width", "calls_per_second", "samples_per_second", "iqr",
            "first_call_seconds", "calls"}
    assert len(result["cells"]) == 4 and all(keys <= set(c) for c in result["cells"])
    assert [(c["pattern"], c["batch"]) for c in result["cells"]] == [
        ("eager", 1), ("eager", 8), ("tf-function", 1), ("tf-function", 8)]
    assert all(c["calls"] >= 2 and c["device"] == "cpu" for c in result["cells"])
    assert result["environment"]["tensorflow"]
    assert "tf-function" in proc.stdout  # the table


@pytest.mark.parametrize(("args", "message"), [
    (["--workload", "hjb-step", "--patterns", "eager,fast"], "error: patterns must be among eager, graph, xla"),
    (["--batch", "0"], "error: batch must be whole numbers from 1"),
    (["--repeats", "0"], "error: repeats must be at least 1, not 0."),
    (["--workload", "gan"], "error: argument --workload: invalid choice: 'gan'"),
])
def test_cli_bench_rejects_bad_input_in_one_line(args, message):
    proc = _rlcore("bench", *args)
    assert proc.returncode == 2 and proc.stderr.startswith(message)
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_bench_on_gpu_without_one_says_so_and_measures_nothing(tmp_path):
    proc = _rlcore("bench", "--workload", "dqn-act", "--device", "gpu", "--json", str(tmp_path / "x.json"),
                   "--quiet", CUDA_VISIBLE_DEVICES="-1")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("error: GPU requested but TensorFlow sees none")
    assert not (tmp_path / "x.json").exists()


def _cell(pattern, batch, steps, first=0.1, calls=1000, iqr=0.0):
    return {"workload": "hjb-step", "pattern": pattern, "device": "cpu", "batch": batch, "width": 8,
            "steps_per_second": steps, "samples_per_second": steps * batch, "calls_per_second": steps,
            "calls": calls, "first_call_seconds": first, "iqr": iqr}


def test_a_cell_far_below_its_pattern_s_neighbours_is_named_and_a_compile_that_dominated_is_said():
    """The torch-compile cell the issue saw: 15 calls after a 26.8 s first call, 3.25 steps/s, 300x below its row."""
    from rlcore.workloads import bench

    cells = [_cell("torch-compile", 10, 2000.0), _cell("torch-compile", 100, 3.25, first=26.8, calls=15),
             _cell("torch-compile", 1000, 900.0), _cell("tf-function", 100, 1500.0)]
    verdict = bench.judge(None, {"cells": cells})
    assert verdict.word == "outlier" and verdict.level == "rough"
    assert verdict.text.startswith("Outlier: torch-compile at batch 100, width 8 ran 62x below its pattern")
    assert "its first call took 26.8 s, more than its 15 timed calls together: the compile dominated" in verdict.text
    steady = [_cell("graph", 1, 3000.0, first=2.0, calls=1000), _cell("graph", 10, 2900.0)]
    assert bench.judge(None, {"cells": steady}).word == "steady"  # a 2 s compile against 0.33 s of calls is said:
    assert "The first call dominated in graph at batch 1, width 8" in bench.judge(None, {"cells": steady}).text
    assert bench.outliers([_cell("predict", 1, 30.0), _cell("xla", 1, 9000.0)]) == []  # patterns differ: not outliers
