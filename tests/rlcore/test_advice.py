"""Advice a person can act on, on scripts written as people write them (tests/scripts): the leading cause names the
habit, ``where`` points at the line of their code (asserted by line number and text), a fix already made is never
advised again (the advice changes and the speed moves the way it says), and ``--try-fixes`` measures the fixes the
lab can apply without an edit, each a stored run linked to the first.

Speeds are compared only within one test, the same machine a moment apart, and only where the fix's margin is
several times this machine's run-to-run noise; counts and lines decide everything else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from scripts import HERE as SCRIPTS
from scripts import seed_hjb_script

from rlcore.runs.store import Store

PORT = (SCRIPTS / "naive_port.py", ("90",), ("--steps", "8", "--warmup", "4"))
SEED = ("3000",), ("--steps", "50")


@pytest.fixture(scope="module")
def quiet(tmp_path_factory) -> dict:
    """The seed's HJB script and the naive port profiled once each on this (quiet) machine, the port with
    --try-fixes: several tests read them (each run costs a TensorFlow start)."""
    home = tmp_path_factory.mktemp("quiet")
    seed = home / "seed_hjb.py"
    seed.write_text(seed_hjb_script())
    script, args, flags = PORT
    return {"seed": profile(home, seed, *SEED[0], flags=SEED[1]), "seed_path": seed, "home": home,
            "port": profile(home, script, *args, flags=(*flags, "--try-fixes"))}


def profile(tmp_path: Path, script: Path, *args: str, flags: tuple[str, ...] = ()) -> dict:
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    out = tmp_path / "out.json"
    done = subprocess.run([sys.executable, "-m", "rlcore", "profile", *flags, "--json", str(out), str(script), *args],
                          capture_output=True, text=True, env=env, timeout=600, cwd=SCRIPTS)
    assert done.returncode == 0, done.stderr[-3000:]
    document = json.loads(out.read_text())
    document["stdout"] = done.stdout
    return document


def line_of(script: Path, text: str) -> int:
    """The 1-based line of the script that holds ``text``."""
    return next(i for i, line in enumerate(script.read_text().splitlines(), start=1) if text in line)


def finding(document: dict, cause: str) -> dict | None:
    return next((f for f in document["profile"]["findings"] if f["cause"] == cause), None)


def test_a_naive_port_names_the_lines_of_model_predict_the_indexing_loop_and_the_eager_ops(quiet):
    script = SCRIPTS / "naive_port.py"
    slow = quiet["port"]
    assert slow["profile"]["verdict"] == "predict-bound"
    predict = finding(slow, "predict-bound")
    (where,) = predict["where"][:1]
    assert (where["file"], where["line"]) == ("naive_port.py", line_of(script, "qval = model.predict(state1[None]"))
    assert where["code"] == "qval = model.predict(state1[None], verbose=0)" and where["calls_per_step"] > 0
    indexing = finding(slow, "indexing")
    assert indexing["where"][0]["line"] == line_of(script, "X = [Q1[i][action_batch[i]] for i")
    launched = finding(slow, "launch-bound")
    assert launched["where"] and {w["line"] for w in launched["where"]} <= {
        i for i, text in enumerate(script.read_text().splitlines(), start=1) if not text.strip().startswith("#")}
    # The terminal says where, under each finding: "naive_port.py:56  qval = model.predict(...)  ·  1 call a step".
    assert f"naive_port.py:{where['line']}  qval = model.predict(state1[None], verbose=0)  ·  " in slow["stdout"]
    # Shares of one step never sum past it.
    assert sum(f["share"] for f in slow["profile"]["findings"] if f["cause"] != "compile-bound") <= 1 + 1e-9


def test_the_port_s_gather_is_named_with_its_fix_and_the_port_in_graph_style_reads_otherwise(quiet):
    slow = quiet["port"]
    assert slow["step_source"]["kind"] == "optimizer updates" and slow["steps"] == int(PORT[1][0]) - 64
    titles = [f["title"] for f in slow["profile"]["findings"]]
    assert {"model.predict in a loop", "indexing a tensor in a Python loop"} <= set(titles[:3]), titles
    predict = finding(slow, "predict-bound")
    assert 0 < predict["share"] < 1 and "model(x, training=False)" in predict["fix"]
    gather = finding(slow, "indexing")
    assert "tf.gather" in gather["fix"] and "StridedSlice" in gather["evidence"]
    assert slow["profile"]["sentence"].startswith(titles[0])
    script, args, flags = PORT
    quick = profile(quiet["home"], script, *args, "--fixed", flags=flags)
    assert quick["step_source"]["functions"] == ["train_step"]
    fixed_titles = {f["title"] for f in quick["profile"]["findings"]}
    assert not {"model.predict in a loop", "indexing a tensor in a Python loop"} & fixed_titles, fixed_titles
    assert quick["steps_per_second"] > slow["steps_per_second"]


def test_the_model_called_instead_of_predict_is_tried_on_the_port_and_measured(quiet):
    assert_tried(Store(quiet["home"] / "home"), quiet["port"], "predict")


def test_a_pipeline_that_runs_python_is_named_and_prefetch_is_never_advised_once_in_effect(tmp_path):
    script = SCRIPTS / "py_function_pipeline.py"
    plain = profile(tmp_path, script, "40", flags=("--steps", "10", "--warmup", "5"))
    waiting = finding(plain, "input-bound")
    assert plain["profile"]["verdict"] == "input-bound" and "tf.py_function" in waiting["title"]
    assert f"py_function_pipeline.py:{line_of(script, 'def augment(image):')}" in waiting["fix"]
    assert "write augment in TensorFlow ops" in waiting["fix"]
    lines = {(w["line"], w["code"]) for w in waiting["where"]}
    assert (line_of(script, "def augment(image):"), "def augment(image):") in lines
    assert line_of(script, "dataset = dataset.map(") in {line for line, _ in lines}

    parallel = profile(tmp_path, script, "40", "--prefetch-parallel", flags=("--steps", "10", "--warmup", "5"))
    still = finding(parallel, "input-bound")
    assert still is not None and "tf.py_function" in still["title"]  # the habit, named again: it is still there
    assert "prefetch" in still["in_effect"] and "num_parallel_calls" in still["in_effect"]
    assert not still["fix"].startswith("dataset.prefetch") and "cannot lift it far" in still["fix"]
    assert still.get("try_fix", "") == ""  # nothing left to try without an edit

    in_ops = profile(tmp_path, script, "40", "--tf-ops", flags=("--steps", "10", "--warmup", "5"))
    gone = finding(in_ops, "input-bound")
    assert gone is None or "tf.py_function" not in gone["title"]
    # Which of these runs is faster is no assertion here (prefetch needs a second core the suite's other worker takes:
    # 36.8 against 47.4 steps/s in a clean clone's run): a gain is a benchmark's figure, paired, never a test's.


def test_keras_s_work_per_batch_names_steps_per_execution_until_it_is_set_and_both_fixes_are_measured(tmp_path):
    """At batch 8, Keras's work around every batch leads and steps_per_execution=32 is advised and tried (a stored
    run, 3-4x the batches per second here); with it set, it is never advised again and jit_compile is tried on the
    arithmetic that is left."""
    script = SCRIPTS / "keras_small_batch.py"
    small = profile(tmp_path, script, "1", flags=("--steps", "20", "--warmup", "5", "--try-fixes"))
    keras = finding(small, "keras-overhead")
    assert small["profile"]["verdict"] == "keras-overhead" and "steps_per_execution=32" in keras["fix"]
    assert keras["try_fix"] == "steps_per_execution"
    spe = profile(tmp_path, script, "1", "--spe", "32", flags=("--steps", "20", "--warmup", "5", "--try-fixes"))
    fixes = [f["fix"] for f in spe["profile"]["findings"]]
    assert not any("model.compile(..., steps_per_execution" in fix for fix in fixes), fixes
    again = finding(spe, "keras-overhead")
    assert again is None or again["in_effect"] == "steps_per_execution=32"
    # Its speed against the first is measured and said (3-4x quiet here), never asserted: 1.49x once under the full
    # suite, 0.80x in another clean clone's run with more work beside it (one unpaired run each, on a busy machine).
    store = Store(tmp_path / "home")
    assert_tried(store, small, "steps_per_execution")
    assert_tried(store, spe, "jit_compile")


def assert_tried(store: Store, document: dict, fix: str) -> None:
    """The fix was tried as a stored run linked to the first, and its speed stands beside it (which is faster is
    measured, not asserted: one unpaired run each on a machine the suite keeps busy)."""
    tries = {t["fix"]: t for t in document["profile"]["tries"]}
    assert fix in tries, tries
    tried = store.get_run(tries[fix]["run_id"])
    assert tried.status == "done" and tried.config["fix_of"] == document["run_id"] and tried.config["fix"] == fix
    assert tries[fix]["steps_per_second"] > 0 and tries[fix]["ratio"] > 0
    assert f"{tries[fix]['change']}: " in document["stdout"]


def test_a_retrace_names_the_line_that_called_it_and_the_function_s_own_line(tmp_path):
    script = SCRIPTS / "retrace.py"
    done = profile(tmp_path, script, "40", flags=("--steps", "10", "--warmup", "5"))
    retrace = finding(done, "retracing")
    lines = [(w["line"], w["code"]) for w in retrace["where"]]
    assert (line_of(script, "losses.append(train_step(epoch)"), "losses.append(train_step(epoch).numpy())  "
            "# a new Python int every call: a new graph every call") in lines
    assert (line_of(script, "def train_step(epoch):"), "def train_step(epoch):") in lines
    assert "setting up a function call every step" not in [f["title"] for f in done["profile"]["findings"]]


def test_the_seed_s_hjb_script_reads_slower_on_a_gpu_than_on_this_cpu(quiet):
    done = quiet["seed"]
    assert done["profile"]["verdict"] == "dispatch-bound"
    assert done["profile"]["gpu_estimate"]["sentence"].startswith(
        "Not measured here (no GPU): slower on a GPU than on this CPU: 340 launches a step.")
    fetch = finding(done, "sync-bound")
    assert fetch["where"][0]["code"] == "losses.append(loss.numpy())"
    set_up = finding(done, "dispatch-bound")  # the lead, at the line that calls the function every step
    assert set_up["where"][0]["code"] == "loss = training_step()", set_up["where"]
    assert set_up["where"][0]["line"] == line_of(quiet["seed_path"], "loss = training_step()")


def _per_step_causes(document: dict) -> list[str]:
    """The causes a step is spent on that are worth a change (10% of it or more), costliest first; a compile (paid
    once per run) and the causes named whatever they cost (a 1% fetch) are no part of the order compared."""
    return [f["cause"] for f in document["profile"]["findings"] if f["cause"] != "compile-bound" and f["share"] >= 0.1]


def test_the_seed_s_script_and_a_naive_port_read_the_same_with_busy_processes_beside_them(quiet, tmp_path):
    """The verdict follows the code, not the machine's load: the same bound and the same causes in the same order
    on a quiet machine and with CPU-busy processes beside it on this 2-core machine, four beside the seed's script,
    two beside the port (this test makes them, and stops them)."""
    from devtools.load import busy

    script, args, flags = PORT
    # The seed's HJB (its GPU estimate: issue 50) beside four; the slower port beside two (four beside it for its
    # whole run slowed the other test process's browser tests past their bounds).
    with busy(4):
        loaded = [profile(tmp_path, quiet["seed_path"], *SEED[0], flags=SEED[1])]
    with busy(2):
        loaded.append(profile(tmp_path, script, *args, flags=flags))
    for a, b in zip((quiet["seed"], quiet["port"]), loaded, strict=True):
        assert (a["profile"]["verdict"], _per_step_causes(a)) == (b["profile"]["verdict"], _per_step_causes(b))
        for document in (a, b):  # a GPU step would pay more in launches than this CPU step takes: quiet or not
            sentence = document["profile"]["gpu_estimate"]["sentence"]
            if document["profile"]["verdict"] == "dispatch-bound":
                assert sentence.startswith("Not measured here (no GPU): slower on a GPU than on this CPU"), sentence
    assert quiet["seed"]["profile"]["verdict"] == "dispatch-bound"
    assert quiet["port"]["profile"]["verdict"] == "predict-bound"
