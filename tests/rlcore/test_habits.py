"""The habits people really have, read from what was measured (benchmarks/habits/: each script labelled with the
cause a right reading leads with, the lines its ``where`` names and the words its fix holds; the benchmark's scorer
runs them all, these tests run the habits the lab learned last and a part no rule explains).

Each script runs under ``rlcore profile`` as a person would run it. Counts, lines and causes decide; no speed is
compared, so the tests hold on a busy machine as on a quiet one: a cause is named from its own measured part (the
step's wait in the iterator, Python run as an op, the Keras calls the hooks counted), never from the machine's pace.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scripts import HERE as SCRIPTS

HABITS = Path(__file__).resolve().parents[2] / "benchmarks" / "habits"
_spec = importlib.util.spec_from_file_location("habits_score", HABITS / "score.py")
score = sys.modules["habits_score"] = importlib.util.module_from_spec(_spec)  # dataclasses look their module up
_spec.loader.exec_module(score)
LABELS = {label.script: label for label in score.labels()}
# The benchmark's window. In 5 steps a busy machine once put Keras's work ahead of a callback that costs twice as much
# on a quiet one (a clean clone's suite with other work beside it): a mean over few steps takes a stall whole.
WINDOW = ("--steps", "10", "--warmup", "4")


@pytest.fixture(scope="module")
def reading(tmp_path_factory):
    """Each habit script profiled once for this module (several tests read the same run: each costs a TensorFlow
    start)."""
    home = tmp_path_factory.mktemp("habits")
    done: dict[str, dict] = {}

    def read(script: str) -> dict:
        if script not in done:  # the Python-value retrace with --try-fixes: it must try nothing it cannot help
            flags = ("--try-fixes",) if script == "retrace_python_value.py" else ()
            done[script] = profile(home, HABITS / script, flags=(*WINDOW, *flags))
        return done[script]
    return read


def profile(home: Path, script: Path, *args: str, flags: tuple[str, ...] = ()) -> dict:
    env = os.environ | {"RLCORE_HOME": str(home), "TF_CPP_MIN_LOG_LEVEL": "2"}
    out = home / f"{script.stem}.json"
    done = subprocess.run([sys.executable, "-m", "rlcore", "profile", *flags, "--json", str(out), str(script), *args],
                          capture_output=True, text=True, env=env, timeout=600, cwd=script.parent)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def line_of(script: Path, text: str) -> int:
    """The 1-based line of the script's code (its label and docstring passed over) that holds ``text``."""
    lines = script.read_text().splitlines()
    code_starts = next(i for i, line in enumerate(lines) if i and line.rstrip().endswith('"""')) + 1
    return next(i for i, line in enumerate(lines, start=1) if i > code_starts and text in line)


def per_step(document: dict) -> list[dict]:
    return [f for f in document["profile"]["findings"] if f["cause"] != "compile-bound"]


@pytest.mark.parametrize("script", ["run_eagerly.py", "generator_pipeline.py", "retrace_python_value.py",
                                    "retrace_shapes.py", "fit_per_batch.py", "function_in_loop.py",
                                    "numpy_every_step.py", "train_on_batch_per_sample.py", "callback_per_batch.py"])
def test_a_habit_leads_with_its_cause_at_its_lines_with_a_fix_in_the_api_the_person_used(script, reading):
    label = LABELS[script]
    document = reading(script)
    lead = per_step(document)[0]
    assert lead["cause"] == label.cause, (lead["title"], document["profile"]["sentence"])
    lines = {(w["line"], w["code"]) for w in lead["where"]}
    wanted = {(line_of(HABITS / script, text), text) for text in label.where}
    assert any(n == number and code.startswith(text) for n, code in lines for number, text in wanted), (lines, wanted)
    assert label.fix.lower() in lead["fix"].lower(), lead["fix"]
    shares = [f["share"] for f in per_step(document)]
    assert sum(shares) <= 1 + 1e-9 and all(share >= 0.02 for share in shares)  # no "0 µs per step (0%)"


def test_run_eagerly_is_named_at_the_compile_line_with_no_advice_a_keras_user_cannot_take(reading):
    eager = reading("run_eagerly.py")
    lead = per_step(eager)[0]
    assert "run_eagerly=True" in lead["title"] and lead["try_fix"] == "no_run_eagerly"
    assert [w["line"] for w in lead["where"]] == [line_of(HABITS / "run_eagerly.py", "model.compile(")]
    assert "decorate" not in lead["fix"]  # a Keras user has no training step to decorate
    assert "steps_per_execution" not in " ".join(f["title"] for f in per_step(eager))  # it cannot spread eager work


def test_a_python_value_retrace_never_offers_reduce_retracing_and_a_shape_retrace_does(reading):
    value = per_step(reading("retrace_python_value.py"))[0]
    assert "reduce_retracing" not in (value["try_fix"] or "")  # --try-fixes tries only what a finding names
    tried = reading("retrace_python_value.py")["profile"].get("tries", [])
    assert all(t["fix"] != "reduce_retracing" for t in tried)
    assert "tf.constant(lr)" in value["fix"] and "never Python values" in value["fix"]
    shape = per_step(reading("retrace_shapes.py"))[0]
    assert shape["try_fix"] == "reduce_retracing" and "input_signature" in shape["fix"]


def test_the_generator_pipeline_s_time_is_input_not_arithmetic(reading):
    document = reading("generator_pipeline.py")
    lead = per_step(document)[0]
    assert lead["cause"] == "input-bound" and "from_generator" in lead["title"]
    assert "the arithmetic itself" not in [f["title"] for f in per_step(document)[:1]]
    kernels = document["profile"]["compute_seconds"]
    assert kernels < lead["seconds_per_step"]  # the kernels are what they are: the generator is the step's time
    assert "GIL" in lead["evidence"] and "from_tensor_slices" in lead["fix"]


def test_a_part_no_rule_explains_is_said_as_such_with_its_ops(tmp_path):
    """A tf.py_function inside the training function: Python run as an op, which no rule names. It is neither
    arithmetic nor a function call's set-up: the reading says it is not explained and names its op."""
    document = profile(tmp_path, SCRIPTS / "python_inside_step.py", "40")
    found = per_step(document)
    unexplained = next(f for f in found if f["cause"] == "not-explained")
    assert unexplained["title"] == "not explained by a habit this lab knows"
    assert "EagerPyFunc" in unexplained["evidence"] and unexplained is found[0]
    assert all(f["cause"] != "compute-bound" or f["share"] < 0.5 for f in found)
    assert not document["profile"]["sentence"].split("The change to make first")[-1].startswith(": no rule")


def test_a_fit_shorter_than_the_window_is_profiled_over_the_steps_it_has_and_says_so(tmp_path):
    document = profile(tmp_path, SCRIPTS / "short_fit.py")
    p = document["profile"]
    assert not p.get("error") and document["steps"] == 12 and 1 <= p["steps"] <= 12 - 1
    assert any(note.startswith("The window was sized to the 12 steps the run has") for note in p["notes"])
    assert all(f["seconds_per_step"] >= 0 for f in p["findings"]) and document["train_seconds"] > 0


def test_a_part_no_rule_explains_is_never_the_change_to_make_first():
    """Whatever else the step holds (on a busy machine the other causes may fall under their thresholds)."""
    from rlcore.contract.profile import Cause, Finding, Profile

    def finding(cause: Cause, share: float) -> Finding:
        return Finding(cause=cause, title=str(cause), seconds_per_step=share, share=share, fix=f"fix {cause}",
                       guide="")

    alone = Profile(findings=(finding(Cause.UNEXPLAINED, 0.9),), step_seconds=1.0)
    assert alone.leading is None
    small = Profile(findings=(finding(Cause.UNEXPLAINED, 0.9), finding(Cause.DISPATCH, 0.05)), step_seconds=1.0)
    assert small.leading.cause == Cause.DISPATCH
