"""Hardening, round 5: a person's own code can neither lose its run nor stall the lab. Each test gives the input an
adversarial user gave and asserts what holds now; the comment on each names what main did before this round.

Scripts are real Python run under the lab (``rlcore profile``, ``rlcore.init``, the Keras callback) in processes of
their own, over a real store."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rlcore.runs import service
from rlcore.runs.store import Store

ROOT = Path(__file__).resolve().parents[2]


def env_for(tmp_path: Path) -> dict[str, str]:
    return os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "TF_CPP_MIN_LOG_LEVEL": "2",
                         "PYTHONPATH": str(ROOT)}


def script(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def tape_steps(steps: int) -> str:
    """A script's lines: `steps` steps of gradient descent on one variable, in a loop over `i` (indented as the
    rest)."""
    return f"""
        import tensorflow as tf
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(0.01)
        for i in range({steps}):
            with tf.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])"""


def keras_opening(rows: int) -> str:
    """A script's first lines: `rows` random samples and a one-layer Keras model, compiled (indented as the rest)."""
    return f"""
        import numpy as np
        from tensorflow import keras
        import rlcore
        x, y = np.random.rand({rows}, 4).astype("float32"), np.random.rand({rows}, 1).astype("float32")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("sgd", "mse")"""


def rlcore(tmp_path: Path, *args: str, timeout: float = 300, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True,
                          env=env_for(tmp_path), timeout=timeout, cwd=tmp_path, **kwargs)


def python(tmp_path: Path, path: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, env=env_for(tmp_path),
                          timeout=timeout, cwd=tmp_path)


def only_run(tmp_path: Path):
    (run,) = Store(tmp_path / "home").list_runs()
    return run


# ---------------------------------------------------------------- values people log (1, 2, 5)

def test_values_of_every_kind_logged_leave_the_run_whole_numbers_charted_nan_as_a_gap(tmp_path):
    """Main: a NaN in any metric but the loss failed the run (NOT NULL in SQLite); a string, dict, None, complex,
    array, non-scalar tensor or 10**400 raised float()'s error at a later call and failed it."""
    path = script(tmp_path, "logs.py", """
        import math
        import numpy as np
        import tensorflow as tf
        import rlcore
        with rlcore.init(name="odd values") as run:
            for i in range(30):
                with run.step():
                    pass
                run.log(loss=1.0 / (i + 1), accuracy=float("nan"), big=10**400,
                        note="hello", table={"a": 1}, missing=None, z=1j, many=np.ones(3), t=tf.ones((2, 2)),
                        one=tf.constant(2.0), loss_text_is_fine=True)
            run.log(loss="a string")
        print("the code went on")
    """)
    done = python(tmp_path, path)
    assert done.returncode == 0 and "the code went on" in done.stdout, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert run.status == "done", run.error
    assert set(run.summary["not_charted"]) == {"note", "table", "missing", "z", "many", "t", "loss"}
    said = [line for line in done.stderr.splitlines() if line.startswith("rlcore: note ")]
    assert said == ["rlcore: note is text, not a number, so it is not charted (the run goes on)."]  # once
    metrics = Store(tmp_path / "home").metrics(run.id)
    values = {name: list(group["value"]) for name, group in metrics.groupby("name")}
    assert values["accuracy"] and all(math.isnan(v) for v in values["accuracy"])  # stored, a gap on the chart
    assert values["big"][0] == math.inf and values["one"][0] == 2.0 and "train/loss" in values


def test_a_nan_loss_under_rlcore_init_ends_the_run_diverged_with_its_rows_and_the_code_goes_on(tmp_path):
    """Main: the NaN loss raised again inside finish: "failed: worker died" with 0 metric rows."""
    path = script(tmp_path, "nan.py", """
        import rlcore
        run = rlcore.init(name="nan loss")
        for i in range(40):
            with run.step():
                pass
            if not run.log(loss=float("nan") if i == 30 else 1.0, lr=0.1):
                break
        run.finish()
        print("stopped at", i)
    """)
    done = python(tmp_path, path)
    assert done.returncode == 0 and "stopped at" in done.stdout, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert run.status == "diverged" and "nan" in run.error
    assert len(Store(tmp_path / "home").metrics(run.id)) > 0


# ---------------------------------------------------------------- children and threads (3, 4)

def test_a_forked_child_that_exits_or_raises_never_ends_its_parent_s_run(tmp_path):
    """Main: a child's sys.exit(0) ended the run "done" at 10 steps while the parent went on to 40; a child that
    raised failed it although the parent succeeded."""
    path = script(tmp_path, "fork.py", """
        import os, sys""" + tape_steps(40) + """
            if i in (10, 20):
                pid = os.fork()
                if pid == 0:
                    if i == 10:
                        sys.exit(0)
                    raise RuntimeError("a child raised")
                os.waitpid(pid, 0)
    """)
    done = rlcore(tmp_path, "profile", "--steps", "0", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert run.status == "done" and run.summary["steps"] == 40


def test_a_script_that_leaves_a_thread_running_ends_its_worker_and_the_queue_goes_on(tmp_path):
    """Main: the --detach run showed done, its worker never exited, the next run stayed queued for ever."""
    path = script(tmp_path, "thread.py", """
        import threading, time
        threading.Thread(target=lambda: time.sleep(3600)).start()  # not a daemon""" + tape_steps(20) + """
    """)
    first = rlcore(tmp_path, "profile", "--steps", "0", "--detach", str(path))
    assert first.returncode == 0, first.stderr
    store = Store(tmp_path / "home")
    second = service.create_run(store, "hjb", {"steps": 30, "eval_every": 0, "eval_points": 20})
    from rlcore.runs.local import launch

    launch(store, second)
    deadline = time.monotonic() + 240
    while store.get_run(second).live and time.monotonic() < deadline:
        time.sleep(0.5)
    runs = {r.id: r.status for r in store.list_runs()}
    assert runs == {1: "done", second: "done"}


# ---------------------------------------------------------------- Keras (7, 8)

def test_the_callback_in_evaluate_is_quiet_and_a_fit_that_raised_is_its_own_failed_run(tmp_path):
    """Main: the callback in model.evaluate raised AttributeError; a fit that raised and a refit became one done
    run."""
    path = script(tmp_path, "keras_odd.py", keras_opening(64) + """
        callback = rlcore.keras.Callback()
        model.evaluate(x, y, callbacks=[callback], verbose=0)

        class Boom(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                if batch == 1:
                    raise ValueError("boom")
        try:
            model.fit(x, y, epochs=1, batch_size=8, callbacks=[callback, Boom()], verbose=0)
        except ValueError:
            pass
        model.fit(x, y, epochs=1, batch_size=8, callbacks=[callback], verbose=0)
        print("ok")
    """)
    done = python(tmp_path, path)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-2000:]
    runs = sorted(Store(tmp_path / "home").list_runs(), key=lambda r: r.id)
    assert [r.status for r in runs] == ["failed", "done"] and "raised" in runs[0].error
    assert runs[1].summary["steps"] == 8


def test_the_callback_charts_a_fit_s_own_running_numbers_at_its_records_and_the_last_at_its_end(tmp_path):
    """Issue 52: the callback keeps each batch's logs (Keras's running means, already Python numbers) and charts the
    last ones at each record, not every batch: the steps, the loss charted and the last one are fit's own."""
    path = script(tmp_path, "quiet_fit.py", keras_opening(4000) + """
        import json
        from rlcore.tracking.run import TrainingRun
        taken, add_loss = [], TrainingRun.add_loss
        TrainingRun.add_loss = lambda run, loss: taken.append(loss) or add_loss(run, loss)
        history = model.fit(x, y, epochs=4, batch_size=8, verbose=0, callbacks=[rlcore.keras.Callback()])
        print("history", json.dumps(history.history["loss"]), "taken", len(taken))
    """)
    done = python(tmp_path, path)
    assert done.returncode == 0, done.stderr[-2000:]
    history, taken = done.stdout.split("history ", 1)[1].split(" taken ")
    history = json.loads(history)
    run = only_run(tmp_path)
    assert run.status == "done" and run.summary["steps"] == 4 * 500
    losses = Store(tmp_path / "home").metrics(run.id, ["train/loss"])
    assert int(taken) <= len(losses) + 1 < 4 * 500  # a loss a record (and the last at the end), not one a batch
    assert len(losses) >= 4 and losses["value"].iloc[-1] == pytest.approx(history[-1], rel=1e-5)
    assert (losses["value"] > 0).all() and losses["value"].iloc[len(losses) // 2:].max() < history[0] * 1.5


def test_a_cancelled_keras_fit_stops_and_its_own_process_is_never_killed(tmp_path):
    """Main: Cancel left a Keras fit running every epoch, and `runs cancel` recorded "terminated" while rows kept
    arriving."""
    path = script(tmp_path, "long_fit.py", keras_opening(256) + """
        history = model.fit(x, y, epochs=100000, batch_size=8, callbacks=[rlcore.keras.Callback()], verbose=0)
        print("fit returned after", len(history.epoch), "epochs")
    """)
    proc = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_for(tmp_path), cwd=tmp_path)
    try:
        store = Store(tmp_path / "home")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (store.list_runs() and store.list_runs()[0].summary is None
                                                   and len(store.metrics(store.list_runs()[0].id)) > 5):
            time.sleep(0.3)
        run = store.list_runs()[0]
        said = rlcore(tmp_path, "runs", "cancel", str(run.id))  # fit stops at its next batch, mostly within the
        assert said.stdout.startswith(f"run {run.id}: ") and ("cancelled" in said.stdout  # grace: "cancelled"
                                                              or "never kills" in said.stdout), said.stdout
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "fit returned after" in out, err[-2000:]
    assert store.get_run(run.id).status == "cancelled"


# ---------------------------------------------------------------- signals and exits (9, 10)

def test_a_second_ctrl_c_while_the_run_ends_is_no_traceback_and_the_run_is_cancelled(tmp_path):
    """Main: Ctrl-C twice within 300 ms printed a KeyboardInterrupt traceback (3 of 4 tries)."""
    path = script(tmp_path, "loop.py", """
        import tensorflow as tf
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(0.001)
        while True:
            with tf.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])
    """)
    proc = subprocess.Popen([sys.executable, "-m", "rlcore", "profile", "--steps", "20", "--warmup", "5", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_for(tmp_path),
                            cwd=tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    store = Store(tmp_path / "home")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (store.list_runs() and len(store.metrics(store.list_runs()[0].id))):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert "Traceback" not in err and proc.returncode == 130, err[-2000:]
    assert only_run(tmp_path).status == "cancelled"


@pytest.mark.parametrize(("body", "reason"), [
    ("class Stop(BaseException): pass\nraise Stop('out')", "Stop: out"),
    ("raise GeneratorExit()", "GeneratorExit"),
    ("raise ValueError(b'\\xff\\xfe bytes'.decode('utf-8', 'surrogateescape'))", "ValueError: \\udcff\\udcfe bytes"),
    ("from rlcore.tracking.hooks import Cancelled\nraise Cancelled('the script raised the lab own exception')",
     "Cancelled: the script raised the lab own exception"),
])
def test_whatever_a_script_raises_ends_its_run_failed_with_its_reason(tmp_path, body, reason):
    """Main: a BaseException subclass or GeneratorExit went through rlcore as a traceback ("worker died"); undecodable
    bytes in a message lost the reason to a UnicodeEncodeError; the lab's own Cancelled raised by the script was
    recorded done, exit 0."""
    path = script(tmp_path, "raises.py", "import tensorflow as tf\nv = tf.Variable(1.0)\n"
                  "opt = tf.keras.optimizers.SGD(0.1)\nfor _ in range(5):\n    with tf.GradientTape() as t:\n"
                  "        loss = v * v\n    opt.apply_gradients([(t.gradient(loss, v), v)])\n" + body + "\n")
    done = rlcore(tmp_path, "profile", "--steps", "0", str(path))
    run = only_run(tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert run.status == "failed" and run.error == reason, run.error


def test_a_script_that_starts_the_profiler_itself_gets_it_and_its_run_says_so(tmp_path):
    """Main: the script died with AlreadyExistsError: Another profiler is running."""
    path = script(tmp_path, "own_profiler.py", """
        import tensorflow as tf
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(0.01)
        for i in range(60):
            if i == 20:
                tf.profiler.experimental.start("own_capture")
            if i == 30:
                tf.profiler.experimental.stop()
            with tf.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])
    """)
    done = rlcore(tmp_path, "profile", "--steps", "30", "--warmup", "10", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert run.status == "done" and "gave way" in run.summary["profile"]["error"]
    assert (tmp_path / "own_capture").is_dir()


# ---------------------------------------------------------------- paths, argv, output (12-16)

def test_what_is_no_regular_file_is_refused_in_one_sentence_before_a_run_exists(tmp_path):
    """Main: /dev/zero as the script raised MemoryError; a FIFO hung."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        done = rlcore(tmp_path, "profile", path, timeout=60)
        assert done.returncode == 2 and done.stderr.startswith("error: ") and "not a regular file" in done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
    assert not (tmp_path / "home" / "runs.sqlite").exists() or not Store(tmp_path / "home").list_runs()


def test_what_a_script_writes_to_file_descriptor_2_reaches_the_terminal(tmp_path):
    """Main: os.write(2, ...), sys.__stderr__ and a subprocess's stderr vanished under rlcore profile."""
    path = script(tmp_path, "writes.py", """
        import os, subprocess, sys
        import tensorflow as tf
        os.write(2, b"written to fd 2\\n")
        print("to sys.__stderr__", file=sys.__stderr__)
        subprocess.run([sys.executable, "-c", "import sys; sys.stderr.write('from a subprocess\\\\n')"])
        v = tf.Variable(1.0)
        tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant(1.0), v)])
    """)
    done = rlcore(tmp_path, "profile", "--steps", "0", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    for line in ("written to fd 2", "to sys.__stderr__", "from a subprocess"):
        assert line in done.stderr.splitlines(), done.stderr
    assert "cuda_platform" not in done.stderr and "oneDNN" not in done.stderr  # TensorFlow's own lines stay off


def test_an_undecodable_argv_and_an_odd_file_name_are_stored_readable_and_shown(tmp_path, monkeypatch):
    """Main: an argv with an undecodable byte crashed the run's view (UnicodeEncodeError); a script name over 200
    characters or with ESC/RLO was refused as a "label" nobody gave."""
    name = "a\x1b[31m\u202e" + "x" * 230 + ".py"
    path = script(tmp_path, name, "import tensorflow as tf\nv = tf.Variable(1.0)\n"
                  "tf.keras.optimizers.SGD(0.1).apply_gradients([(tf.constant(1.0), v)])\n")
    done = subprocess.run([sys.executable.encode(), b"-m", b"rlcore", b"profile", b"--steps", b"0",
                           str(path).encode(), b"\xff"], capture_output=True, env=env_for(tmp_path), cwd=tmp_path,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert len(run.label) <= 200 and "\x1b" not in run.label and "\u202e" not in run.label
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path / "home"))
    from pagetest import fixed_device_card, open_page

    fixed_device_card(monkeypatch)
    at = open_page("runs", {"run": str(run.id)})
    assert not at.exception, at.exception


def test_a_detached_run_whose_cluster_is_not_there_is_taken_back(tmp_path):
    """Main: one sentence and exit 2, but the stored run stayed queued (77 minutes later, still)."""
    path = script(tmp_path, "tiny.py", "print(1)\n")
    done = subprocess.run([sys.executable, "-m", "rlcore", "profile", "--executor", "ray", "--detach", str(path)],
                          capture_output=True, text=True, env=env_for(tmp_path) | {"RLCORE_RAY_ADDRESS": "127.0.0.1:1"},
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.startswith("error: "), done.stderr
    assert Store(tmp_path / "home").list_runs() == []


# ---------------------------------------------------------------- stored data and other commands (17-19)

def test_one_hand_damaged_row_is_one_sentence_and_the_rest_stands(tmp_path, monkeypatch):
    """Main: a non-JSON config or a summary that is a list took down Runs, a comparison, runs list and runs show."""
    import sqlite3

    store = Store(tmp_path / "home")
    good = service.create_run(store, "hjb", {"steps": 30})
    store.finish(good, "done", summary={"steps_per_second": 10.0})
    bad = service.create_run(store, "hjb", {"steps": 30})
    store.finish(bad, "done", summary={"steps_per_second": 12.0})
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET config = '{not json', summary = '[1, 2]' WHERE id = ?", (bad,))
    listed = rlcore(tmp_path, "runs", "list")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr
    shown = rlcore(tmp_path, "runs", "show", str(bad))
    assert shown.returncode == 0 and "cannot be read" in shown.stdout, shown.stdout + shown.stderr
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path / "home"))
    from pagetest import fixed_device_card, open_page

    fixed_device_card(monkeypatch)
    for query in ({}, {"runs": f"{good},{bad}"}, {"run": str(bad)}):
        at = open_page("runs", query)
        assert not at.exception, (query, at.exception)


def test_an_export_with_values_past_float32_writes_them_as_infinity(tmp_path):
    """Main: runs export --tensorboard failed whole if any value exceeded float32 (1e300)."""
    store = Store(tmp_path / "home")
    run_id = service.create_run(store, "hjb", {"steps": 30})
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 1e300), (2, 0.2, "train/loss", 0.5)])
    store.finish(run_id, "done", summary={})
    done = rlcore(tmp_path, "runs", "export", str(run_id), "--tensorboard", str(tmp_path / "tb"))
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("address", ["127.0.0.1:1", "::::", "host:99999"])
def test_a_cluster_address_that_is_wrong_or_answers_nothing_is_one_sentence_at_once(tmp_path, address):
    """Main: --address 127.0.0.1:1 hung past 60 s; '::::' raised ValueError."""
    done = rlcore(tmp_path, "cluster", "--address", address, timeout=120)  # the bound: no speed is asserted
    assert done.returncode == 2 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1, (
        done.stderr)
