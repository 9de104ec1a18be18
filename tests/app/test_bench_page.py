"""The benchmark lab page: defaults, bad links, launching one bench run, and a stored bench's charts."""

import json

import pytest
from pagetest import open_page

from rlcore import bench
from rlcore.config import BenchConfig


def bench_page(query: dict[str, str] | None = None):
    return open_page("bench", query)


def test_renders_with_the_workloads_defaults_and_explains_each_pattern(store):
    at = bench_page({"workload": "dqn-act"})
    assert not at.exception and not at.warning
    assert at.text_input(key="patterns").value == "predict,eager,tf-function,xla"
    assert at.text_input(key="batch").value == "1"
    why = " ".join(m.value for m in at.markdown)
    assert "model.predict" in why and "jit_compile" in why


@pytest.mark.parametrize(("query", "warning"), [
    ({"workload": "dqn-act", "patterns": "predict,fast"}, "patterns must be among predict, eager, tf-function, xla"),
    ({"batch": "0"}, "batch must be whole numbers from 1"),
    ({"repeats": "-1"}, "repeats must be at least 1"),
    ({"device": "cpu,gpu"}, "device gpu is not available here"),
])
def test_bad_link_values_warn_and_launch_nothing(store, launched, query, warning):
    at = bench_page(query)
    assert not at.exception
    assert at.warning and at.warning[0].value.startswith(warning)
    assert store.list_runs() == [] and launched == []


def test_launch_queues_exactly_one_bench_run(store, launched):
    at = bench_page({"workload": "dqn-train", "batch": "1,64"})
    at.button(key="launch").click().run()
    assert not at.exception
    (run,) = store.list_runs()
    assert (run.kind, run.status, run.config["workload"], run.config["batch"]) == ("bench", "queued", "dqn-train",
                                                                                   "1,64")
    assert launched == [run.id]


def test_a_stored_bench_shows_bars_with_speedups_the_crossover_and_no_gpu_in_plain_words(store):
    cfg = BenchConfig(workload="dqn-act", patterns="predict,tf-function", batch="1,64", repeats=3)
    run_id = store.create_run("bench", cfg, label="seeded")
    speeds = {("predict", 1): 30.0, ("predict", 64): 28.0, ("tf-function", 1): 3000.0, ("tf-function", 64): 1500.0}
    rows = []
    for step, cell in enumerate(bench.plan(cfg), start=1):
        result = bench.cell_result(cell, bench.Timing(0.5, (speeds[cell.pattern, cell.batch],) * 3, 30), 1)
        rows += [(step, step * 1.0, name, value) for name, value in bench.cell_metrics(result).items()]
    store.append_metrics(run_id, rows)
    store.finish(run_id, "done", summary={"cells": [], "environment": {}})
    at = bench_page({"run": str(run_id)})
    assert not at.exception
    specs = {json.loads(c.proto.spec)["layout"]["title"]["text"]: json.loads(c.proto.spec)
             for c in at.get("plotly_chart")}
    bars = specs["dqn-act at batch 64, width 150"]
    assert [t["text"] for t in bars["data"]] == [["1.0x", "53.6x"]]  # over the slowest bar: 1500 / 28
    crossover = specs["Samples per second against batch size"]
    assert [t["name"] for t in crossover["data"]] == ["predict on cpu", "tf-function on cpu"]
    assert at.info[0].value.startswith("No GPU: CPU only.")


@pytest.mark.parametrize(("query", "warning"), [
    ({"workload": "gan"}, "workload must be one of dqn-act, dqn-train, hjb-step, not 'gan'."),
    ({"batch": "-5"}, "batch must be whole numbers"),
])
def test_a_bad_link_value_is_replaced_by_the_default_it_promises(store, query, warning):
    at = bench_page(query)
    assert not at.exception and at.warning[0].value.startswith(warning)
    assert at.selectbox(key="workload").value == "dqn-act"
    batch = [w for w in at.text_input if w.label == "batch"]
    assert [w.value for w in batch] == ["1"]
