"""The DQN and HJB pages: defaults, bad links, launching exactly one run, and a stored run's view."""

import json
import re

import pytest
from pagetest import APP, drawn_charts, go, open_page, shown, values
from streamlit.testing.v1 import AppTest

from rlcore.contract import reporting
from rlcore.runs import service
from rlcore.workloads.dqn import metrics as dqn_metrics


def page(name: str, query: dict[str, str] | None = None):
    return open_page(name, query)


@pytest.mark.parametrize("name", ["dqn", "hjb"])
def test_page_renders_with_defaults_and_says_there_is_no_gpu(store, name):
    at = page(name)
    assert not at.exception
    assert at.button(key="launch")
    assert any("no GPU visible to TensorFlow" in c.value for c in at.sidebar.caption)
    assert not at.warning


@pytest.mark.parametrize("name", ["dqn", "hjb"])
def test_gpu_is_offered_off_with_the_reason_and_choosing_it_says_why_and_launches_nothing(store, name, launched):
    """Not hidden: the device field lists gpu with why it is off here; chosen, one sentence and Launch stays off."""
    at = page(name)
    device = at.selectbox(key="device")
    assert device.options == ["cpu", "gpu (off here: no GPU visible to TensorFlow)"]
    assert any(c.value.startswith("gpu is off on this machine: no GPU visible to TensorFlow.") for c in at.caption)
    at = device.select("gpu").run()
    assert not at.exception and at.button(key="launch").disabled
    assert shown(at.error[0]).startswith("device gpu is off on this machine (no GPU visible to TensorFlow)")
    assert not launched and not store.list_runs()


def test_a_bad_number_in_a_link_is_shown_as_linked_and_judged_at_its_field(store, launched):
    at = page("dqn", {"batch": "-5"})
    assert not at.exception and not at.warning and at.text_input(key="batch").value == "-5"
    assert shown(at.error[0]).startswith("batch must be at least 1, not -5.") and at.button(key="launch").disabled


@pytest.mark.parametrize(("name", "query", "warning"), [
    ("dqn", {"exec": "fast"}, "exec must be one of naive, eager, graph, xla, pytorch"),
    ("dqn", {"run": "abc"}, "run must be a run id like 3"),
    ("dqn", {"run": "999"}, "run 999 does not exist"),
])
def test_bad_link_values_warn_in_one_sentence(store, launched, name, query, warning):
    at = page(name, query)
    assert not at.exception
    assert at.warning and at.warning[0].value.startswith(warning)
    assert launched == [] and store.list_runs() == []


@pytest.mark.parametrize("name", ["dqn", "hjb"])
def test_launch_creates_exactly_one_queued_run(store, launched, name):
    at = page(name)
    at.button(key="launch").click().run()
    assert not at.exception
    runs = store.list_runs()
    assert len(runs) == 1 and runs[0].status == "queued" and runs[0].kind == name
    assert launched == [runs[0].id]


def test_an_invalid_combination_launches_nothing(store, launched):
    at = page("dqn")
    at.text_input(key="batch").input("2000").run()
    assert at.error and at.error[0].value.startswith("batch must not exceed memory")
    assert at.button(key="launch").disabled  # AppTest, like a browser, cannot click it
    assert store.list_runs() == [] and launched == []


def test_link_values_are_judged_together(store):
    at = page("dqn", {"batch": "2000", "memory": "5000"})
    assert not at.warning and not at.error and at.text_input(key="batch").value == "2000"
    alone = page("dqn", {"batch": "2000"})
    assert not alone.warning and alone.text_input(key="batch").value == "2000"  # shown as linked, judged as a form
    assert alone.error[0].value.startswith("batch must not exceed memory") and alone.button(key="launch").disabled
    both = page("hjb", {"k_min": "5", "k_max": "1"})
    assert shown(both.error[0]).startswith("k_min must be below k_max (5 >= 1).") and both.button(key="launch").disabled


def test_a_finished_dqn_run_shows_its_charts_summary_and_replay(store):
    run_id = service.create_run(store, "dqn", {"epochs": 10}, label="seeded")
    rows = [(s, s / 10, name, value) for s in range(1, 40)
            for name, value in ((reporting.LOSS, 1.0 / s), (dqn_metrics.ENV_STEPS_PER_S, 250.0),
                                (dqn_metrics.GAMES, s / 4),
                                ("time/act", s * 1e-3), ("time/train", s * 2e-3))]
    store.append_metrics(run_id, [*rows, (39, 3.9, dqn_metrics.WIN_RATE, 0.9)])
    store.run_dir(run_id).mkdir(parents=True)
    board = {"player": [0, 3], "goal": [0, 0], "pit": [0, 1], "wall": [1, 1]}
    (store.run_dir(run_id) / "replays.json").write_text(json.dumps(
        [{"boards": [board, board | {"player": [0, 2]}], "actions": [2], "action_names": ["left"],
          "rewards": [-1.0], "won": False}]))
    store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 250.0, "train_seconds": 4.0})
    at = page("dqn", {"run": str(run_id)})
    assert not at.exception
    replay = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert [s["layout"]["title"]["text"] for s in replay] == ["start"]
    assert len(replay[0]["frames"]) == 2  # the replay: one frame per board
    charts = drawn_charts(at)  # the run's own charts, drawn in place
    assert set(charts) == {"loss", "env steps per second", "win rate (the book's test)", "where the time goes"}
    raw, smoothed, newest = charts["loss"]["data"]
    assert values(raw, "y") == pytest.approx([1.0 / s for s in range(1, 40)]) and raw["opacity"] == 0.25  # faint
    assert values(smoothed, "y")[-1] > values(raw, "y")[-1]  # smoothed: behind the falling raw values
    assert newest["mode"] == "text" and values(newest, "x") == [39]  # the newest value written at the line's end
    assert charts["loss"]["layout"]["yaxis"]["type"] == "log"
    assert charts["where the time goes"]["data"][0]["y"] == ["act", "train"]
    assert [m.value for m in at.metric] == ["90.0%", "250 steps/s", "4.0 s"]
    assert at.success[0].value.startswith("Converged: it won 90.0%")
    codes = [c.value for c in at.code]
    assert f"?run={run_id}" in codes  # the Share popover's link (AppTest has no page address)
    assert any("+ - . P" in c for c in codes)  # the start as the book prints it


def test_reproduce_the_seeds_question_queues_the_port_the_pytorch_original_and_graph_and_compares_them(
        store, launched):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.button(key="reproduce").click().run()
    assert not at.exception
    runs = sorted(store.list_runs(), key=lambda r: r.id)
    # The port profiled, the original (the frameworks extra is installed), the fix; a bench of predict per move.
    assert [r.config.get("exec_mode") for r in runs] == ["naive", "pytorch", "graph", None]
    assert [r.config["profile"] for r in runs[:3]] == [8, 0, 0] and runs[3].config["workload"] == "dqn-act"
    assert all(r.status == "queued" and r.config["epochs"] == 15 for r in runs[:3])
    assert launched == [runs[0].id]  # one launch starts the queue runner, which takes them all in order
    assert at.title[0].value == "Runs"
    assert at.subheader[0].value == "Comparing 3 runs"
    assert at.query_params["metric"] == "games played" and at.query_params["x"] == "training seconds"
    assert at.selectbox(key="metric").value == "progress/games" and at.radio(key="x").value == "wall"
    port = {"step_seconds": 0.183, "findings": [
        {"cause": "model.predict in a loop", "category": "predict-bound", "seconds_per_step": 0.064, "share": 0.35,
         "fix": "call the model instead: model(x, training=False)"},
        {"cause": "indexing a tensor in a Python loop", "category": "indexing", "seconds_per_step": 0.046,
         "share": 0.25, "fix": "take the values in one op: tf.gather(q, actions, batch_dims=1)"}]}
    for run, speed in zip(runs, (17.0, 905.0, 1370.0), strict=False):  # as the issue measured them
        store.finish(run.id, "done", summary={"win_rate": 0.1, "steps_per_second": speed, "train_seconds": 1.0} | (
            {"profile": port} if run.config["exec_mode"] == "naive" else {}))
    store.finish(runs[3].id, "done", summary={"cells": [
        {"pattern": "predict", "batch": 1, "calls_per_second": 30.0},
        {"pattern": "tf-function", "batch": 1, "calls_per_second": 4000.0}]})
    at = page("runs", {"runs": ",".join(str(r.id) for r in runs[:3])})
    (headline,) = [shown(m) for m in at.markdown if m.value.startswith("####")]
    assert headline == ("#### your port (naive): 17 env steps/s; the PyTorch original: 905; graph: 1,370 — the port "
                        "ran 53x slower than the original; graph, the fix, ran 1.5x the original.")
    (why,) = [m.value for m in at.markdown if m.value.startswith("Why the port")]
    predict, gather = why.split("\n")[2:4]
    assert predict.startswith("- **model.predict in a loop**: 64 ms of each 183 ms step (35.0%)")
    assert f"[its profile](dqn?run={runs[0].id}#why)" in predict
    assert f"(bench?run={runs[3].id}): predict takes 33 ms a call, the model called in a tf.function 250 µs" in predict
    assert gather.startswith("- **indexing a tensor in a Python loop**: 46 ms") and "tf.gather" in gather


def test_reproduce_the_gpu_question_queues_the_seed_s_hjb_profiled_and_its_view_leads_with_the_answer(store, launched):
    """Home's second question in one click: the seed's HJB set-up (its preset), profiled; the finished run's view
    opens on the answer (labelled an estimate here), the seed's own numbers beside it, how to measure on a GPU."""
    from rlcore.workloads.hjb.config import GPU_QUESTION

    at = AppTest.from_file(APP, default_timeout=60).run()
    at.button(key="reproduce_gpu").click().run()
    assert not at.exception
    (run,) = store.list_runs()
    assert (run.kind, run.preset, run.status) == ("hjb", "seed", "queued") and launched == [run.id]
    assert run.config["steps"] == GPU_QUESTION["steps"] and run.config["profile"] == GPU_QUESTION["profile"]
    assert at.query_params["run"] in (str(run.id), [str(run.id)])
    estimate = {"seconds_per_step": 0.0016, "range_seconds_per_step": [0.0016, 0.0063], "launches_per_step": 315,
                "copies_per_step": 1, "cpu_step_seconds": 0.00083, "cpu_basis": "the window's quicker steps",
                "sources": ["Holistic Trace Analysis"]}
    store.finish(run.id, "done", summary={"steps": 3000, "steps_per_second": 1200.0, "train_seconds": 2.5, "profile": {
        "version": 2, "verdict": "dispatch-bound", "step_seconds": 0.0009, "gpu_estimate": estimate}})
    at = page("runs", {"run": str(run.id)})
    assert not at.exception
    assert at.subheader[1].value == "Why is my GPU slower than my CPU?"  # the answer first, before the charts
    assert shown(at.markdown[0]).startswith("Not measured here (no GPU): slower on a GPU than on this CPU: 315 "
                                            "launches a step")
    assert [m.value for m in at.metric[:3]] == ["0.83 ms", "2 ms – 6 ms", "0.91 ms / 2.17 ms"]
    assert any("rlcore why logs/" in c.value for c in at.code)


def test_without_the_frameworks_extra_home_says_the_install_line_and_queues_two(store, launched, monkeypatch):
    from rlcore.contract import frameworks

    monkeypatch.setattr(frameworks, "version", lambda name: None)
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert any("requirements-frameworks.txt" in c.value for c in at.caption)
    at.button(key="reproduce").click().run()
    queued = sorted(store.list_runs(), key=lambda r: r.id)
    assert [r.config.get("exec_mode") for r in queued] == ["naive", "graph", None]  # and the bench


def test_the_share_link_of_a_form_carries_only_the_changed_settings(store):
    at = page("hjb", {"preset": "accurate", "steps": "5000"})
    assert not at.exception
    assert at.code[0].value == "?preset=accurate&steps=5000"


def test_a_form_value_does_not_follow_the_user_to_another_page(store):
    """DQN and HJB share URL names (exec, batch) with different choices; state must not leak between them."""
    at = page("dqn")
    at.selectbox(key="exec").select("naive").run()
    at.text_input(key="batch").input("50").run()
    go(at, "hjb").run()
    assert not at.exception
    assert (at.selectbox(key="exec").value, at.text_input(key="batch").value) == ("graph", "100")
    go(at, "bench").run()
    assert not at.exception and at.text_input(key="batch").value == "1"  # a list there, one number on the DQN page


def test_an_unknown_hjb_preset_in_a_link_warns_and_shows_the_seed_preset(store):
    at = page("hjb", {"preset": "fastest"})
    assert not at.exception
    assert at.warning[0].value.startswith("preset must be one of seed, accurate, not 'fastest'.")
    assert at.selectbox(key="preset").value == "seed"


def test_a_live_run_shows_phase_progress_and_time_left_and_cancel_is_immediate(store):
    import os
    import time

    run_id = service.create_run(store, "dqn", {"epochs": 300}, label="live")
    assert store.mark_running(run_id, os.getpid(), {"cpu": "test"})  # this process stands in for its worker
    started = time.time() - 30
    with store._connect() as db:  # started 30 s ago, 40% done
        db.execute("UPDATE runs SET started = ? WHERE id = ?", (started, run_id))
    store.report(run_id, [(100, 1.0, reporting.LOSS, 0.5)], progress=0.4, phase="training")
    before = time.time()
    at = page("dqn", {"run": str(run_id), "refresh": "paused"})
    after = time.time()
    assert not at.exception
    (bar,) = at.get("progress")
    left = re.search(r"^running · training · 40% · about (\d+) s left$", bar.proto.text)
    # 60% to go at the speed of the first 40%: 1.5x the time it has run, read while the page rendered (the clock
    # runs meanwhile, as long as the machine takes: the relation is asserted, not a number).
    assert left and 1.5 * (before - started) - 1 <= int(left.group(1)) <= 1.5 * (after - started) + 1, bar.proto.text
    at.button(key=f"cancel_{run_id}").click().run()
    assert store.get_run(run_id).cancel_requested and not at.exception
    assert "cancel requested" in at.get("progress")[0].proto.text


def test_a_watched_live_run_is_marked_in_the_store_and_its_finished_view_says_so(store):
    import os
    import time

    run_id = service.create_run(store, "dqn", {"epochs": 300}, label="watched")
    assert store.mark_running(run_id, os.getpid(), {"cpu": "test"})
    with store._connect() as db:
        db.execute("UPDATE runs SET started = ? WHERE id = ?", (time.time() - 30, run_id))
    store.report(run_id, [(100, 1.0, reporting.LOSS, 0.5)], progress=0.4, phase="training")
    page("dqn", {"run": str(run_id), "refresh": "paused"})
    assert store.get_run(run_id).watched_seconds == 0  # a paused view does not watch
    opened = time.time()
    at = page("dqn", {"run": str(run_id), "refresh": "1s"})
    open_for = time.time() - opened
    assert not at.exception
    run = store.get_run(run_id)
    # The first draw counts one period; on a loaded machine the view may draw again before the page run ends,
    # adding at most the time it was open (never a number that assumes the machine's speed).
    assert 0.8 <= run.watched_seconds <= 1.0 + open_for + 0.2 and run.watch_refresh == 1.0

    store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 250.0, "train_seconds": 30.0})
    at = page("dqn", {"run": str(run_id)})
    assert [m.label for m in at.metric] == ["win rate", "env steps/s (watched)", "training time (watched)"]
    (caption,) = [c.value for c in at.caption if "live view" in c.value]
    said = re.search(r"A live view was open for ([\d.]+) s of its ([\d.]+) s while it ran, refreshing every 1 s",
                     caption)
    # What the store holds (one period, or more where the machine drew again), of the run's 30 s and more.
    assert said and float(said.group(1)) == pytest.approx(run.watched_seconds, abs=0.05), caption
    assert float(said.group(2)) >= 30.0
    assert store.get_run(run_id).watched_seconds == run.watched_seconds  # a finished run's view watches nothing
