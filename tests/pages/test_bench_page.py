"""The benchmark lab page: defaults, bad links, launching one bench run, and a stored bench's charts."""


import pytest
from pagetest import drawn_charts, open_page, shown

from rlcore.runs import service
from rlcore.workloads.bench import harness as bench
from rlcore.workloads.bench.config import BenchConfig


def bench_page(query: dict[str, str] | None = None):
    return open_page("bench", query)


def test_renders_with_the_workloads_defaults_and_explains_each_pattern(store):
    at = bench_page({"workload": "dqn-act"})
    assert not at.exception and not at.warning
    assert at.text_input(key="patterns").value == "predict,eager,tf-function,xla"
    assert at.text_input(key="batch").value == "1"
    why = " ".join(m.value for m in at.markdown)
    assert "model.predict" in why and "jit_compile" in why


@pytest.mark.parametrize(("query", "sentence"), [
    ({"workload": "dqn-act", "patterns": "predict,fast"}, "patterns must be among predict, eager, tf-function, xla"),
    ({"batch": "0"}, "batch must be whole numbers from 1"),
    ({"device": "cpu,gpu"}, "device gpu is off on this machine"),
])
def test_bad_text_in_a_link_is_shown_and_judged_and_launches_nothing(store, launched, query, sentence):
    """Text fields show what the link says; the form marks it and keeps Launch off."""
    at = bench_page(query)
    assert not at.exception and not at.warning
    assert at.error and at.error[0].value.startswith(sentence)
    assert at.button(key="launch").disabled  # AppTest, like a browser, cannot click it
    assert store.list_runs() == [] and launched == []


def test_a_number_out_of_range_in_a_link_is_shown_and_judged_at_its_field(store, launched):
    at = bench_page({"repeats": "-1"})
    assert not at.exception and not at.warning and at.text_input(key="repeats").value == "-1"
    assert shown(at.error[0]).startswith("repeats must be at least 1, not -1.") and at.button(key="launch").disabled


def test_launch_queues_exactly_one_bench_run(store, launched):
    at = bench_page({"workload": "dqn-train", "batch": "1,64"})
    at.button(key="launch").click().run()
    assert not at.exception
    (run,) = store.list_runs()
    assert (run.kind, run.status, run.config["workload"], run.config["batch"]) == ("bench", "queued", "dqn-train",
                                                                                   "1,64")
    assert run.preset == "dqn-train" and run.config["patterns"] == "naive,eager,graph,xla"
    assert launched == [run.id]


def test_a_stored_bench_shows_bars_with_speedups_the_crossover_and_no_gpu_in_plain_words(store):
    cfg = BenchConfig(workload="dqn-act", patterns="predict,tf-function", batch="1,64", repeats=3)
    run_id = service.create_run(store, "bench", cfg, label="seeded")
    speeds = {("predict", 1): 30.0, ("predict", 64): 28.0, ("tf-function", 1): 3000.0, ("tf-function", 64): 1500.0}
    rows = []
    for step, cell in enumerate(bench.plan(cfg), start=1):
        result = bench.cell_result(cell, bench.Timing(0.5, (speeds[cell.pattern, cell.batch],) * 3, 30), 1)
        rows += [(step, step * 1.0, name, value) for name, value in bench.cell_metrics(result).items()]
    store.append_metrics(run_id, rows)
    store.finish(run_id, "done", summary={"cells": [], "environment": {}})
    at = bench_page({"run": str(run_id)})
    assert not at.exception
    specs = {figure["layout"]["title"]["text"]: figure for figure in drawn_charts(at).values()}
    bars = specs["dqn-act at batch 64, width 150"]
    assert [t["text"] for t in bars["data"]] == [["1.0x", "53.6x"]]  # over the slowest bar: 1500 / 28
    crossover = specs["Samples per second against batch size"]
    assert [t["name"] for t in crossover["data"]] == ["predict on cpu", "tf-function on cpu"]
    assert at.info[0].value.startswith("No GPU: CPU only.")


def test_an_unknown_workload_in_a_link_is_replaced_by_the_default_it_promises(store):
    at = bench_page({"workload": "gan"})
    assert not at.exception
    assert at.warning[0].value.startswith(
        "workload must be one of dqn-act, dqn-train, hjb-step, framework-step, not 'gan'.")
    assert at.selectbox(key="workload").value == "dqn-act"
    assert at.text_input(key="batch").value == "1"
