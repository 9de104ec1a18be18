"""Your own TensorFlow code under the lab: scripts as people write them run unchanged by ``rlcore profile`` (the seed's
own HJB script, a naive DQN port and its fix, model.fit), ``rlcore.init`` in a loop, the Keras callback; the steps
found, the loss charted, the findings in the code's words, and every way a script can go wrong said in one
sentence with nothing lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
from scripts import HERE as SCRIPTS
from scripts import seed_hjb_script

from rlcore.runs.store import Store

ROOT = Path(__file__).resolve().parents[2]


def profile(tmp_path: Path, script: Path | str, *args: str, flags: tuple[str, ...] = (), timeout: float = 300,
            **popen) -> subprocess.CompletedProcess:
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    return subprocess.run([sys.executable, "-m", "rlcore", "profile", *flags, "--json", str(tmp_path / "out.json"),
                           str(script), *args], capture_output=True, text=True, env=env, timeout=timeout,
                          cwd=tmp_path, **popen)


def result(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out.json").read_text())


def causes(document: dict) -> list[str]:
    return [f["title"] for f in document["profile"]["findings"]]


def test_the_seed_s_own_hjb_script_one_step_per_training_step_call_its_loss_charted(tmp_path):
    """The question's code as it stands (its epochs from an argument; its own list of losses saved after it): every
    training_step() call is a step, the loss is what it returns, the verdict has numbers, the environment card names
    the code."""
    script = tmp_path / "seed_hjb.py"
    script.write_text(seed_hjb_script() + "import numpy\nnumpy.save('own_losses.npy', numpy.array(results))\n")
    done = profile(tmp_path, script, "300", flags=("--steps", "50", "--warmup", "10"))
    assert done.returncode == 0, done.stderr[-3000:]
    out = result(tmp_path)
    assert out["status"] == "done" and out["steps"] == 300 and out["steps_per_second"] > 0
    assert out["step_source"]["functions"] == ["training_step"]
    assert out["step_source"]["loss_from"] == "the value training_step() returns"
    code = out["environment"]["code"]
    assert code["path"] == str(script) and len(code["sha256"]) == 64 and code["argv"][1:] == ["300"]
    p = out["profile"]
    assert p["steps"] == 50 and p["findings"] and {"cause", "title", "share", "fix"} <= set(p["findings"][0])
    # Costliest per step first; a compile (once per run, its share of the run) after them.
    assert p["findings"] == sorted(p["findings"], key=lambda f: (f["cause"] == "compile-bound",
                                                                 -f["seconds_per_step"]))
    assert p["gpu_estimate"]["measured"] is False and p["gpu_estimate"]["launches_per_step"] > 10
    # Charted as the script saw it: each record is the mean of the losses its training_step() calls returned since
    # the record before (how many records 300 steps make depends on the machine's speed; whether 300 of the seed's
    # epochs lower its loss depends on its unseeded start, so neither is asserted).
    own = numpy.load(tmp_path / "own_losses.npy")
    charted = Store(tmp_path / "home").metrics(out["run_id"], ["train/loss"])
    assert len(own) == 300 and len(charted) >= 1 and charted["step"].iloc[-1] == 300
    since = 0
    for step, value in zip(charted["step"], charted["value"], strict=True):
        assert value == pytest.approx(float(own[since:step].mean()), rel=1e-5), (step, value)
        since = step


def test_a_retraced_step_is_named_with_the_python_number_and_the_per_step_fetch_too(tmp_path):
    done = profile(tmp_path, SCRIPTS / "retrace.py", "40", flags=("--steps", "10", "--warmup", "5"))
    assert done.returncode == 0, done.stderr[-3000:]
    found = result(tmp_path)["profile"]["findings"]
    retrace = next(f for f in found if f["cause"] == "retracing")
    assert "train_step" in retrace["title"] and "a Python value `epoch`" in retrace["evidence"]
    assert any(f["cause"] == "sync-bound" for f in found)


def test_keras_fit_unchanged_and_with_the_callback_has_steps_xprof_finds_where_keras_own_capture_has_none(
        tmp_path):
    done = profile(tmp_path, SCRIPTS / "keras_fit.py", "2", flags=("--steps", "10", "--warmup", "5"))
    assert done.returncode == 0, done.stderr[-3000:]
    out = result(tmp_path)
    assert out["step_source"]["kind"] == "model.fit's batches" and out["steps"] == 2 * 58
    assert out["batch_size"] == 32 and out["samples_per_second"] == pytest.approx(32 * out["steps_per_second"])
    names = set(Store(tmp_path / "home").metrics(out["run_id"])["name"])
    assert {"train/loss", "accuracy", "val_loss", "val_accuracy"} <= names
    assert out["profile"]["findings"]
    # The same script with the callback by hand, and with Keras's own TensorBoard(profile_batch=) instead.
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    keras_dir = tmp_path / "keras_tb"
    ran = subprocess.run([sys.executable, str(SCRIPTS / "keras_fit.py"), "1", "--callback", "--tensorboard",
                          str(keras_dir)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    store = Store(tmp_path / "home")
    by_hand = max(store.list_runs(), key=lambda r: r.id)  # the run the callback started
    assert by_hand.status == "done" and by_hand.summary["steps"] == 58 and by_hand.summary["profile"]["findings"]
    # Named after the script, not the model ("sequential"); its id and link said at the end, as W&B and MLflow do;
    # charted over its batches, every batch outside the profiled window (main: 7 loss points for 1,800 batches).
    assert by_hand.label.startswith("keras_fit"), by_hand.label
    assert f"rlcore: run {by_hand.id} done" in ran.stderr and f"runs?run={by_hand.id}" in ran.stderr, ran.stderr
    losses = store.metrics(by_hand.id).query("name == 'train/loss'")
    assert len(losses) >= 58 // 2, len(losses)
    ours = next(Path(by_hand.summary["profile"]["logdir"]).glob("plugins/profile/*/*.xplane.pb"))
    theirs = next(keras_dir.glob("**/*.xplane.pb"))
    assert _xprof_step_time(ours) > 0 and _xprof_step_time(theirs) == 0


def _xprof_step_time(capture: Path) -> float:
    """xprof's own overview page of a capture: its average step time (0 when it found no step)."""
    from xprof.convert import raw_to_tool_data

    data, _ = raw_to_tool_data.xspace_to_tool_data([str(capture)], "overview_page", {})
    tables = json.loads(data)
    return float(tables[1]["p"].get("steptime_ms_average") or 0)


def test_rlcore_init_in_a_loop_is_a_run_stored_from_its_first_step(tmp_path):
    loop = tmp_path / "loop.py"
    loop.write_text("import rlcore, time\n"
                    "with rlcore.init(name='my loop') as run:\n"
                    "    for i in range(30):\n"
                    "        with run.step():\n"
                    "            time.sleep(0.005)\n"
                    "        run.log(loss=1.0 / (i + 1), accuracy=i / 30)\n")
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    done = subprocess.run([sys.executable, str(loop)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    (run,) = Store(tmp_path / "home").list_runs()
    assert run.kind == "script" and run.label == "my loop" and run.status == "done"
    assert run.summary["steps"] == 30 and run.summary["step_source"]["kind"] == "run.step()"
    assert run.environment["code"]["path"] == str(loop)
    names = set(Store(tmp_path / "home").metrics(run.id)["name"])
    assert {"train/loss", "accuracy", "throughput/steps_per_s"} <= names
    said = [line for line in done.stderr.splitlines() if line.startswith(f"rlcore: run {run.id} done")]
    assert said and f"/runs?run={run.id}" in said[0] and f"rlcore runs show {run.id}" in said[0], done.stderr


@pytest.mark.parametrize(("script", "sentence"), [
    ("missing.py", "error: There is no script at missing.py."),
    ("broken.py", "error: The script broken.py is not valid Python: "),
])
def test_a_script_that_cannot_run_is_one_sentence_and_no_run(tmp_path, script, sentence):
    (tmp_path / "broken.py").write_text("def f(:\n    pass\n")
    done = profile(tmp_path, script)
    assert done.returncode == 2 and done.stderr.startswith(sentence) and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "home" / "runs.sqlite").exists() or not Store(tmp_path / "home").list_runs()


@pytest.mark.parametrize(("how", "status", "error"), [
    ("raise", "failed", "ValueError: the data ran out at step 5"),
    ("exit3", "failed", "the script exited with status 3"),
])
def test_a_script_that_fails_mid_run_keeps_its_numbers_and_says_why(tmp_path, how, status, error):
    done = profile(tmp_path, SCRIPTS / "misbehaving.py", how, flags=("--steps", "0"))
    assert done.returncode == 1 and error in done.stderr and "Traceback" not in done.stderr
    out = result(tmp_path)
    assert out["status"] == status and out["error"] == error and out["environment"]["code"]["sha256"]
    store = Store(tmp_path / "home")
    run = store.get_run(out["run_id"])
    assert run.status == status and run.error == error and store.metric_count(run.id) > 0
    log = (store.run_dir(run.id) / "worker.log").read_text()
    assert "Traceback" in log and (how != "raise" or "the data ran out" in log)


def test_ctrl_c_cancels_the_run_and_a_script_with_no_steps_says_how_steps_are_counted(tmp_path):
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    # Ctrl-C as a terminal delivers it: the child's SIGINT at its default whatever this process inherited (a
    # suite started in the background of a shell without job control ignores SIGINT, and so would the child).
    hang = subprocess.Popen([sys.executable, "-m", "rlcore", "profile", "--steps", "0", str(SCRIPTS /
                             "misbehaving.py"), "hang"], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert hang.stdout.readline().strip() == "hanging"  # its steps trained, it waits in its own loop now
        hang.send_signal(signal.SIGINT)
        hang.wait(60)
    finally:
        hang.kill()
    store = Store(tmp_path / "home")
    run = store.list_runs()[0]
    assert hang.returncode == 130 and run.status == "cancelled" and run.error == "interrupted (Ctrl-C)"
    idle = tmp_path / "idle.py"
    idle.write_text("import tensorflow as tf\nprint(float(tf.reduce_sum(tf.ones(3))))\n")
    done = profile(tmp_path, idle, flags=("--steps", "0"))
    assert done.returncode == 0, done.stderr[-2000:]
    out = result(tmp_path)
    assert out["steps"] == 0 and out["verdict"]["word"] == "no steps"
    assert "optimizer update" in out["verdict"]["text"] and "rlcore.init()" in out["verdict"]["text"]


def test_a_script_that_never_ends_is_stopped_by_a_cancel_from_the_lab(tmp_path):
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2"}
    hang = subprocess.Popen([sys.executable, "-m", "rlcore", "profile", "--steps", "0", str(SCRIPTS /
                             "misbehaving.py"), "hang"], env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        assert hang.stdout.readline().strip() == "hanging"
        store = Store(tmp_path / "home")
        store.request_cancel(store.list_runs()[0].id)  # as the dashboard's Cancel does
        hang.wait(120)  # a script stuck between steps is stopped by the worker's grace, not by its own code
    finally:
        hang.kill()
    assert store.list_runs()[0].status == "cancelled"


def test_a_script_that_forks_and_spawns_is_counted_once(tmp_path, monkeypatch):
    marker = tmp_path / "child"
    monkeypatch.setenv("SCRIPT_CHILD_FILE", str(marker))
    done = profile(tmp_path, SCRIPTS / "misbehaving.py", "processes", "5", flags=("--steps", "0"))
    assert done.returncode == 0, done.stderr[-3000:]
    out = result(tmp_path)
    assert out["status"] == "done" and out["steps"] == 10
    assert all((tmp_path / f"child-{how}").read_text().strip().isdigit() for how in ("fork", "spawn"))
    assert [r.id for r in Store(tmp_path / "home").list_runs()] == [out["run_id"]]  # the children made no run


def test_a_profiler_the_script_runs_itself_leaves_the_run_done_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRIPT_PROFILE_DIR", str(tmp_path / "its_own"))
    done = profile(tmp_path, SCRIPTS / "misbehaving.py", "profiler", "30", flags=("--steps", "5", "--warmup", "2"))
    assert done.returncode == 0, done.stderr[-3000:]
    out = result(tmp_path)
    assert out["status"] == "done" and out["steps"] == 30
    assert "could not start" in out["profile"]["error"] and "its numbers are unaffected" in out["profile"]["error"]

