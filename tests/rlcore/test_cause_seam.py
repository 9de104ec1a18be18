"""The why engine's seam: a cause is one module (tests/plugins/toy_cause), found through the entry point its
distribution declares, and it reaches the CLI's findings, ``--json`` and the Why panel with no file of the lab
touched."""

import json
import os
import subprocess
import sys

from pagetest import fixed_device_card, open_page
from plugins import install

from rlcore.runs.store import Store

SEED_LIKE = """
import sys
import tensorflow as tf
x = tf.random.normal((100, 1))
w = tf.Variable(tf.ones((1, 8)))
opt = tf.keras.optimizers.Adam(1e-3)

@tf.function
def training_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.tanh(x @ w) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
    return loss

for _ in range(int(sys.argv[1])):
    training_step()
"""


def test_a_cause_added_as_one_module_is_named_in_the_cli_the_json_and_the_why_panel(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the toy's folder on this process's path for this test only:
    # the other tests of this process read with the lab's own rules
    env = os.environ | install("toy_cause", "rlcore.causes", tmp_path / "site") | {"RLCORE_HOME": str(tmp_path)}
    script = tmp_path / "train.py"
    script.write_text(SEED_LIKE)
    done = subprocess.run([sys.executable, "-m", "rlcore", "profile", "--steps", "10", "--warmup", "3", "--json",
                           str(tmp_path / "out.json"), str(script), "40"], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "a toy cause: tf.function calls" in done.stdout and "counted by a toy" in done.stdout
    found = json.loads((tmp_path / "out.json").read_text())["profile"]["findings"]
    toy = next(f for f in found if f["cause"] == "toy-bound")
    assert toy["title"] == "a toy cause: tf.function calls" and toy["fix"] == "nothing: it is a toy"
    # The dashboard reads the stored profile; it needs no rule to show one (its process imports none).
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)
    run_id = json.loads((tmp_path / "out.json").read_text())["run_id"]
    assert Store(tmp_path).get_run(run_id).status == "done"
    at = open_page("runs", {"run": str(run_id)})
    assert not at.exception
    table = at.table[0].value
    assert "a toy cause: tf.function calls" in list(table.index)


def test_a_cause_module_brings_the_fix_the_lab_can_try_and_nothing_else_names_it(tmp_path, monkeypatch):
    """A fix the lab can try is declared beside its rule (``Rule.try_fix``): the toy's finding names it, ``--fix``
    takes it, its patch goes on before the script runs, and the tried run says its change. No list elsewhere."""
    from rlcore.tracking.causes import fixes

    fixes()  # this process's lab loads its rules now, before the plug-in is installed (whatever ran here before)
    monkeypatch.setattr(sys, "path", list(sys.path))
    mark = tmp_path / "mark"
    env = os.environ | install("toy_cause", "rlcore.causes", tmp_path / "site") | {
        "RLCORE_HOME": str(tmp_path), "TOY_FIX_MARK": str(mark)}
    script = tmp_path / "train.py"
    script.write_text(SEED_LIKE)

    def profile(*flags: str) -> dict:
        out = tmp_path / f"out{len(list(tmp_path.glob('out*.json')))}.json"
        done = subprocess.run([sys.executable, "-m", "rlcore", "profile", *flags, "--json", str(out), str(script),
                               "30"], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(out.read_text())

    base = profile("--steps", "5", "--warmup", "3")
    toy = next(f for f in base["profile"]["findings"] if f["cause"] == "toy-bound")
    assert toy["try_fix"] == "toy_fix" and not mark.exists()
    tried = profile("--steps", "0", "--fix", "toy_fix", "--fix-of", str(base["run_id"]))
    assert mark.read_text() == "applied" and tried["fix"] == {"name": "toy_fix", "change": "a toy's change",
                                                               "of": base["run_id"]}
    assert "toy_fix" not in fixes()  # this process's lab never saw the plug-in: the fix lives with its rule only
