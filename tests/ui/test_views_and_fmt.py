"""The pure view helpers (no Streamlit): one number format, links, headlines that compare like with like, the
machine at a glance, the profiles side by side."""

import time

import pytest

from rlcore.runs.store import Run
from ui import fmt, views


def _run(run_id: int, style: str, speed: float, **config) -> Run:
    now = time.time()
    return Run(id=run_id, kind="dqn", status="done", config={"exec_mode": style, "epochs": 15} | config,
               label=f"seed question: {style}", created=now, started=now, finished=now + 1,
               summary={"steps_per_second": speed, "win_rate": 0.1, "train_seconds": 1.0}, environment={}, pid=None,
               heartbeat=None, error=None, cancel_requested=False)


def test_one_number_format_for_fields_values_and_seconds():
    assert [fmt.field_text(v) for v in (5000, 0.001, 1e-7, 100000.0, "x")] == ["5000", "0.001", "1e-7", "100000", "x"]
    assert [fmt.value(v) for v in (246_289.4, 1.877e-7, 95.83)] == ["246,289", "1.88e-7", "95.8"]
    assert fmt.value(0.958, percent=True) == "95.8%" and fmt.seconds(0.000007) == "7 µs"
    assert fmt.metric_title("throughput/env_steps_per_s") == "env steps per second"  # the workload's chart title


def test_a_link_cell_shows_the_id_and_name_after_the_address():
    assert views.link("dqn", "run", 4, "graph  epochs=40") == "dqn?run=4#4: graph epochs=40"


def test_a_difference_within_the_noise_is_not_stated_as_a_finding():
    sentence = views.comparison_sentence([_run(1, "graph", 300.0, epochs=40), _run(2, "graph", 330.0, epochs=300)])
    assert "ran at about the same env steps/s" in sentence and "within what two runs" in sentence
    found = views.comparison_sentence([_run(1, "naive", 17.0), _run(2, "graph", 1370.0)])
    assert found.startswith("seed question: graph (run 2) ran 81x the env steps/s of seed question: naive (run 1)")


def test_the_seed_question_against_the_original_names_all_three():
    runs = [_run(1, "naive", 17.0), _run(2, "pytorch", 905.0), _run(3, "graph", 1370.0)]
    assert views.comparison_sentence(runs) == ("your port (naive): 17 env steps/s; the PyTorch original: 905; "
                                               "graph: 1,370 — the port ran 53x slower than the original; graph, the "
                                               "fix, ran 1.5x the original.")


def test_the_fix_s_first_training_call_is_said_apart_and_a_damaged_stored_value_is_not():
    runs = [_run(1, "naive", 17.0), _run(2, "pytorch", 905.0), _run(3, "graph", 1370.0)]
    runs[2].summary["first_train_call_seconds"] = 0.174
    assert views.comparison_sentence(runs).endswith(
        "graph, the fix, ran 1.5x the original (its first training call, 174 ms of setting its graph up, is timed "
        "apart from its speed).")
    runs[2].summary["first_train_call_seconds"] = "abc"  # a damaged row: the sentence stands without it
    assert views.comparison_sentence(runs).endswith("graph, the fix, ran 1.5x the original.")


def test_the_machine_at_a_glance():
    system = {"machine_cores": 2, "run_cpu_cores_mean": 1.04, "run_cpu_cores_max": 1.2, "machine_cpu_cores_mean": 1.3,
              "run_memory_mb_max": 812.0, "gpu_utilization_mean": 0.03}
    assert views.machine_sentence(system) == ("It kept 1.0 of the machine's 2 cores busy on average (peak 1.2); the "
                                              "whole machine 1.3; at most 812 MB of memory; GPU 3.00% busy.")
    assert views.machine_sentence({"machine_cores": 2}) is None


def test_two_profiles_explain_part_of_the_speed_ratio():
    naive, graph = _run(1, "naive", 10.0), _run(2, "graph", 750.0)
    naive.summary["profile"] = {"step_seconds": 0.2, "eager_ops_per_step": 4250.0, "ops_per_step": 4259.0}
    graph.summary["profile"] = {"step_seconds": 0.0022, "eager_ops_per_step": 5.7, "function_calls_per_step": 1.7,
                                "ops_per_step": 236.0}
    sentence = views.profile_comparison([naive, graph])
    assert sentence.startswith("Per profiled step seed question: naive (run 1) launches 4,250 ops one by one (200 ms)")
    assert "a step 90.9x shorter, of the 75.0x measured in env steps/s" in sentence


@pytest.mark.parametrize(("environment", "rows"), [
    ({"tensorflow": "2.21.0", "cores": 2, "gpus": []}, [("TensorFlow", "2.21.0"), ("CPU cores", "2"),
                                                        ("GPUs", "none")]),
    ({"node": {"host": "vm", "cpus": 1}}, [("Ray node: host", "vm"), ("Ray node: cpus", "1")]),
])
def test_the_environment_card_reads_as_a_table(environment, rows):
    table = views.environment_rows(environment)
    assert list(zip(table["item"], table["value"], strict=True)) == rows


def test_a_live_run_of_unknown_length_reads_its_steps_not_zero_percent():
    """Main: a running script read "running · training · 0%" 80 steps in."""
    now = time.time()
    rest = {"environment": {}, "finished": None, "pid": None, "heartbeat": None, "summary": None, "error": None,
            "cancel_requested": False}
    script = Run(id=1, kind="script", status="running", config={}, label="train.py", created=now - 9,
                 started=now - 8, phase="training", progress=0.0, **rest)
    assert views.progress_text(script, now, steps_done=80) == "running · training · 80 steps so far"
    known = Run(id=2, kind="dqn", status="running", config={}, label="x", created=now - 9, started=now - 8,
                phase="training", progress=0.5, **rest)
    assert views.progress_text(known, now, steps_done=80).startswith("running · training · 50%")


@pytest.mark.parametrize(("per_step", "said"), [(214.0, "214 copies"), (0.95, "1 copy"), (1.0, "1 copy"),
                                                 (2.5, "2.5 copies"), (0.25, "0.25 copies"), (1_500.4, "1,500 copies")])
def test_counts_are_whole_where_they_are_whole(per_step, said):
    """Main: "214.0 copies", "0.95 calls a step" (a window's edge made one call a step read as 0.95)."""
    from rlcore.contract.text import count_text

    assert count_text(per_step, "copy", "copies") == said


def test_two_runs_of_one_script_are_named_by_id_spoken_of_as_scripts_and_the_noise_said():
    """Main: "b_run_eagerly.py ran 1.3x the steps/s of b_run_eagerly.py ... Same settings but the style": no ids,
    "style" for scripts, no word that a shared machine could make that difference."""
    now = time.time()

    def run(run_id: int, speed: float, sha: str) -> Run:
        return Run(id=run_id, kind="script", status="done", config={"path": "/w/b.py", "args": "[]"}, label="b.py",
                   created=now, started=now, finished=now + 1,
                   summary={"steps_per_second": speed, "train_seconds": 1.0, "shared_machine": {"sentence": "x"}},
                   environment={"code": {"path": "/w/b.py", "sha256": sha}}, pid=None, heartbeat=None, error=None,
                   cancel_requested=False)

    said = views.comparison_sentence([run(3, 36.0, "aa"), run(4, 47.0, "aa")])
    assert said.startswith("b.py (run 4) ran 1.3x the steps/s of b.py (run 3)"), said
    assert "style" not in said and "The same script, unchanged, with the same arguments." in said
    assert "Other work shared the machine while run 4 and run 3 ran" in said
    assert "The same script, changed between them." in views.comparison_sentence([run(3, 36.0, "a"), run(4, 90, "b")])
