"""What a person reads on a terminal and counts in a run (issue 53): progress while a script is profiled, quiet when
piped; TensorFlow's Python warnings under the same --verbose rule as its C++ lines; counts that are true."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_hardening import env_for, script

RETRACING_SLOWLY = """
    import sys
    import time
    import tensorflow as tf
    v = tf.Variable(1.0)
    opt = tf.keras.optimizers.SGD(0.01)

    @tf.function
    def step(x, lr):
        with tf.GradientTape() as tape:
            loss = (v * x) ** 2 * lr
        opt.apply_gradients([(tape.gradient(loss, v), v)])
        return loss

    for i in range(int(sys.argv[1])):
        step(tf.constant(1.0), 0.01 + i * 1e-4)  # a new Python float every call: a trace, and TensorFlow's warning
        time.sleep(0.1)                          # 30 of them last over three seconds on any machine
"""


def on_a_terminal(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """`rlcore ARGS` with its stderr on a pseudo-terminal (as a person's shell gives it); what it wrote there."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "rlcore", *args], stdout=subprocess.DEVNULL, stderr=follower,
                               stdin=subprocess.DEVNULL, env=env_for(tmp_path) | (env or {}), cwd=tmp_path)
    os.close(follower)
    said = b""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal's other end closed: the command ended
            break
        if not chunk:
            break
        said += chunk
    process.wait(timeout=60)
    os.close(leader)
    return said.decode(errors="replace")


def test_profile_shows_progress_on_a_terminal_and_is_silent_when_piped(tmp_path):
    """Main: a 34 s script ran silent on a terminal; TensorFlow's retracing WARNING reached it without --verbose."""
    path = script(tmp_path, "slow.py", RETRACING_SLOWLY)
    # A line every second (RLCORE_PROGRESS_SECONDS; 10 by default): the script sleeps over three.
    said = on_a_terminal(tmp_path, "profile", "--steps", "5", "--warmup", "2", str(path), "30",
                         env={"RLCORE_PROGRESS_SECONDS": "1"})
    assert "training steps so far" in said and "rlcore: reading the profile ..." in said, said
    assert "triggered tf.function retracing" not in said, said
    piped = subprocess.run([sys.executable, "-m", "rlcore", "profile", "--steps", "3", "--warmup", "2", str(path),
                            "8"],
                           capture_output=True, text=True, env=env_for(tmp_path), cwd=tmp_path, timeout=300)
    assert piped.returncode == 0 and "rlcore: " not in piped.stderr and "training steps so far" not in piped.stderr
    verbose = subprocess.run([sys.executable, "-m", "rlcore", "profile", "--verbose", "--steps", "0", str(path), "8"],
                             capture_output=True, text=True, env=env_for(tmp_path), cwd=tmp_path, timeout=300)
    assert "triggered tf.function retracing" in verbose.stderr  # asked for: TensorFlow's own words too


def run_script(tmp_path: Path, path: Path, *flags: str):
    """`rlcore profile FLAGS PATH`, which must succeed; the store's only run and what the command printed."""
    from test_hardening import only_run, rlcore

    ran = rlcore(tmp_path, "profile", *flags, str(path))
    assert ran.returncode == 0, ran.stderr
    return only_run(tmp_path), ran


def test_a_fit_with_steps_per_execution_counts_the_batches_it_ran(tmp_path):
    """Main: a fit of 3,200 real batches at steps_per_execution=32 reported 3,584 steps: each epoch's shorter last
    call (200 batches: six calls of 32, then 8) counted as 32."""
    path = script(tmp_path, "spe.py", """
        import numpy as np
        from tensorflow import keras
        x, y = np.random.rand(1600, 4).astype("float32"), np.random.rand(1600, 1).astype("float32")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
        model.compile("sgd", "mse", steps_per_execution=32)
        model.fit(x, y, batch_size=8, epochs=3, verbose=0)""")
    run, ran = run_script(tmp_path, path, "--steps", "0")
    assert run.summary["steps"] == 3 * 200, run.summary
    assert "600 steps" in ran.stdout


def test_every_value_a_loop_logs_is_kept_at_its_own_step(tmp_path):
    """Main: a loop under `rlcore profile` whose rlcore.init run called run.log(loss=...) 25 times stored one
    train/loss row (W&B and MLflow keep every logged value)."""
    from rlcore.runs.store import Store

    path = script(tmp_path, "logs.py", """
        import rlcore
        with rlcore.init() as run:
            for i in range(25):
                run.log(loss=1.0 / (i + 1), accuracy=i / 25)""")
    run, _ = run_script(tmp_path, path, "--steps", "0")
    frame = Store(tmp_path / "home").metrics([run.id], ["train/loss", "accuracy"])
    losses = frame[frame["name"] == "train/loss"]
    assert sorted(round(v, 6) for v in losses["value"]) == sorted(round(1.0 / (i + 1), 6) for i in range(25))
    assert len(frame) == 50, frame


def test_a_run_too_short_for_its_window_says_the_window_that_fits_it_and_that_window_does(tmp_path):
    """Main: only "The run ended before its profiled window began" (not what would fit it)."""
    from test_hardening import tape_steps

    path = script(tmp_path, "short.py", tape_steps(9))
    run, ran = run_script(tmp_path, path)
    said = run.summary["profile"]["error"]
    assert said.startswith("The run ended after 9 training steps, before its profiled window began"), said
    assert "To fit it: --warmup 3 --steps 6" in said and "To fit it" in ran.stdout
    from test_hardening import rlcore

    from rlcore.runs.store import Store

    assert rlcore(tmp_path, "profile", "--warmup", "3", "--steps", "6", str(path)).returncode == 0
    fitted = max(Store(tmp_path / "home").list_runs(), key=lambda r: r.id)
    assert fitted.summary["profile"].get("error") is None and fitted.summary["profile"]["steps"] >= 1


@pytest.mark.parametrize("value", ["abc", "0", "-3", "nan", "inf"])
def test_a_progress_interval_that_is_no_positive_number_is_one_sentence_and_the_default(value, monkeypatch, capsys):
    from rlcore.cli.train import StatusLines

    monkeypatch.setenv("RLCORE_PROGRESS_SECONDS", value)
    assert StatusLines(True).every == 10.0
    said = capsys.readouterr().err
    assert said == (f"rlcore: RLCORE_PROGRESS_SECONDS must be a number of seconds above 0, not {value!r}: progress "
                    "every 10 s.\n")
    monkeypatch.setenv("RLCORE_PROGRESS_SECONDS", "2.5")
    assert StatusLines(True).every == 2.5 and StatusLines(False).every == 0.0 and not capsys.readouterr().err
