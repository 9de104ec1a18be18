"""The lab in a notebook, in a real Jupyter kernel run by nbclient: ``%%rlcore`` on an eager loop, a retracing
``tf.function``, ``model.fit`` and the seed's HJB code pasted into a cell (each cause and its ``In [N], line L``);
``rlcore.init()`` and the Keras callback named after the notebook with their why in the cell; ``rlcore profile
NB.ipynb`` headless (``where`` naming the cell, a raising cell, magics in other cells); no C++ log line in any
cell's output; what is no notebook, or a notebook given as a script, one sentence."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from scripts import seed_hjb_script

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

from rlcore.runs.store import Store  # noqa: E402
from rlcore.tracking.machine import NATIVE_LINE  # noqa: E402

SETUP = """import numpy as np
import tensorflow as tf
import keras
w = tf.Variable(tf.random.normal([64, 64]))
opt = keras.optimizers.SGD(0.01)
x = tf.random.normal([32, 64])"""
EAGER = """%%rlcore --steps 5 --warmup 3
for step in range(40):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
    opt.apply_gradients([(tape.gradient(loss, w), w)])"""
RETRACE = """@tf.function
def step(lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
    w.assign_sub(lr * tape.gradient(loss, w))
    return loss"""
RETRACING = """%%rlcore --steps 5 --warmup 3
for i in range(30):
    loss = step(0.01 / (1 + i))"""
FIT = """%%rlcore --steps 5 --warmup 3
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.random.rand(640, 8), np.random.rand(640, 1), batch_size=16, epochs=1, verbose=0)"""
INIT = """import rlcore
with rlcore.init(profile=5, warmup=3) as run:
    for step_number in range(30):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.matmul(x, w) ** 2)
        opt.apply_gradients([(tape.gradient(loss, w), w)])"""
CALLBACK = """import rlcore.keras
model.fit(np.random.rand(640, 8), np.random.rand(640, 1), batch_size=16, epochs=1, verbose=0,
          callbacks=[rlcore.keras.Callback(profile=5, warmup=3)])"""


def _seed_cell() -> str:
    code = seed_hjb_script(epochs_from_argv=False).replace("number_epochs = 100000", "number_epochs = 3000")
    return "%%rlcore --steps 50 --warmup 10\n" + code


def _texts(cell) -> str:
    return "".join(str(o.get("text") or o.get("data", {}).get("text/plain") or "") for o in cell.get("outputs", []))


@pytest.fixture(scope="module")
def lab_notebook(tmp_path_factory) -> dict:
    """One kernel, one TensorFlow start: every cell of the lab's notebook run in order, as a person would."""
    folder = tmp_path_factory.mktemp("notebook")
    cells = ["%load_ext rlcore", SETUP, EAGER, RETRACE, RETRACING, FIT, _seed_cell(), "%rlcore runs", "%rlcore why",
             INIT, CALLBACK, FIT.replace("%%rlcore --steps 5 --warmup 3", "%%rlcore --steps 5 --warmup 3 --try-fixes"),
             "%%rlcore --steps -3\npass"]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    saved = {k: os.environ.get(k) for k in ("RLCORE_HOME", "JPY_SESSION_NAME")}
    os.environ["RLCORE_HOME"] = str(folder / "home")  # the kernel inherits both
    os.environ["JPY_SESSION_NAME"] = str(folder / "lab.ipynb")  # as Jupyter's server tells a kernel its notebook
    try:
        nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(folder)}}).execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    runs = sorted(Store(folder / "home").list_runs(), key=lambda r: r.id)
    return {"cells": notebook.cells, "runs": runs, "folder": folder}


def _run_of(lab_notebook, cell_index: int):
    text = _texts(lab_notebook["cells"][cell_index])
    found = re.search(r"rlcore: run (\d+) ", text)
    assert found, text[-2000:]
    return next(r for r in lab_notebook["runs"] if r.id == int(found.group(1))), text


@pytest.mark.timeout(900)
def test_the_magic_names_an_eager_loop_s_cause_and_its_cell_line(lab_notebook):
    run, text = _run_of(lab_notebook, 2)
    profile = run.summary.profile
    assert run.status == "done" and profile.verdict == "launch-bound", text[-2000:]
    lines = [w for f in profile.findings for w in f.where]
    assert any(w.file == "In [3]" and w.line == 5 and "apply_gradients" in w.code for w in lines), lines
    assert "In [3], line 5: opt.apply_gradients" in text  # as the cell shows it
    html = "".join(o.get("data", {}).get("text/html", "") for o in lab_notebook["cells"][2]["outputs"])
    assert "<table>" in html and "In [3], line 5" in html  # the rich display, the plain text beside it
    plots = [o for o in lab_notebook["cells"][2]["outputs"] if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert plots, "no chart of its speed and loss in the cell"


def test_the_magic_names_a_retrace_by_a_python_value_at_its_call(lab_notebook):
    run, text = _run_of(lab_notebook, 4)
    causes = [f.cause for f in run.summary.profile.findings]
    assert causes[0] == "retracing", text[-2000:]
    retrace = run.summary.profile.findings[0]
    assert any(w.file == "In [5]" for w in retrace.where), retrace.where  # the call in the cell, by its In [N]


def test_the_magic_finds_model_fit_s_batches_and_names_keras_s_work_per_batch_at_the_cell_s_lines(lab_notebook):
    """A small model fit batch by batch: Keras's own work around each batch leads (steps_per_execution, its fix),
    at the cell's own lines."""
    run, text = _run_of(lab_notebook, 5)
    assert run.status == "done" and run.summary.steps >= 30, text[-2000:]  # 40 batches: warm-up, window, the rest
    lead = run.summary.profile.leading
    assert lead.cause == "keras-overhead" and lead.try_fix == "steps_per_execution", text[-2000:]
    assert lead.where and all(w.file == "In [6]" for w in lead.where), lead.where
    assert "In [6], line " in text


def test_the_seed_s_hjb_code_pasted_into_a_cell_reads_as_the_script_does(lab_notebook):
    """The script reads dispatch-bound on this machine (tests/rlcore/test_advice.py): the cell reads the same."""
    run, text = _run_of(lab_notebook, 6)
    assert run.summary.profile.verdict == "dispatch-bound", text[-2000:]
    assert any(w.file == "In [7]" for f in run.summary.profile.findings for w in f.where), text[-2000:]


def test_the_line_magics_list_the_notebook_s_runs_and_show_the_last_why_again(lab_notebook):
    listed = _texts(lab_notebook["cells"][7])
    assert all(f"rlcore: run {run_id} " in listed for run_id in (1, 2, 3, 4)), listed
    again = _texts(lab_notebook["cells"][8])
    assert again.startswith("rlcore: run 4 done, dispatch-bound"), again[:300]


def test_init_and_the_callback_in_a_kernel_are_named_after_the_notebook_with_their_why_in_the_cell(lab_notebook):
    for index in (9, 10):
        run, text = _run_of(lab_notebook, index)
        assert run.label == "lab.ipynb" and run.config["path"] == "", (run.label, run.config)
        assert "ipykernel_launcher" not in json.dumps(run.config) + text
        assert run.summary.profile is not None and run.summary.profile.ok and run.summary.profile.findings


def test_try_fixes_runs_the_cell_again_once_per_fix_its_causes_name_each_a_run_linked_to_the_first(lab_notebook):
    run, text = _run_of(lab_notebook, 11)
    fixes = list(dict.fromkeys(f.try_fix for f in run.summary.profile.findings if f.try_fix))
    tried = [r for r in lab_notebook["runs"] if r.config.get("fix_of") == run.id]
    assert [r.config["fix"] for r in tried] == fixes, (fixes, text[-2000:])
    if fixes:  # each measured beside the first, as the Why panel's "Tried" table shows them
        assert all(r.status == "done" and r.label == f"lab.ipynb + {r.config['fix']}" for r in tried)
        assert "Tried, the same cell with one change each:" in text and f"run {tried[0].id}" in text
    else:
        assert "no fix to try without an edit" in text


def test_bad_flags_are_one_sentence_and_no_cell_output_holds_a_c_plus_plus_log_line(lab_notebook):
    said = _texts(lab_notebook["cells"][12])
    assert said.startswith("rlcore: --steps and --warmup are counts") and "Traceback" not in said
    assert len([r for r in lab_notebook["runs"] if not r.config.get("fix_of")]) == 7  # the bad flags made none
    for index, cell in enumerate(lab_notebook["cells"]):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                native = [line for line in str(output["text"]).splitlines() if NATIVE_LINE.match(line.encode())]
                assert native == [], (index, native)


WALK = [nbformat.v4.new_markdown_cell("# A walk in the notebook"), nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell("%timeit -n1 -r1 sum(range(10))\n!echo shell says hello"),
        nbformat.v4.new_code_cell("def train_step():\n    with tf.GradientTape() as tape:\n"
                                  "        loss = tf.reduce_mean(tf.matmul(x, w) ** 2)\n"
                                  "    opt.apply_gradients([(tape.gradient(loss, w), w)])\n    return loss"),
                                  nbformat.v4.new_code_cell("for i in range(40):\n    loss = train_step()")]


def _profile(tmp_path: Path, notebook: Path, *flags: str) -> subprocess.CompletedProcess:
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home")}
    return subprocess.run([sys.executable, "-m", "rlcore", "profile", "--steps", "5", "--warmup", "3", *flags,
                           str(notebook)], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)


@pytest.mark.timeout(900)
def test_a_notebook_profiled_headless_names_its_cells_and_a_raising_cell_ends_the_run_failed(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = WALK
    nbformat.write(notebook, tmp_path / "walk.ipynb")
    done = _profile(tmp_path, tmp_path / "walk.ipynb", "--json", str(tmp_path / "walk.json"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "walk.ipynb, cell 4 (In [3]), line 4: opt.apply_gradients" in done.stdout, done.stdout[-2000:]
    document = json.loads((tmp_path / "walk.json").read_text())
    assert document["status"] == "done" and document["label"] == "walk.ipynb" and document["steps"] == 40
    assert "Kernel is running" not in done.stderr and "Traceback" not in done.stderr
    notebook.cells = [*WALK[1:2], nbformat.v4.new_code_cell("x = 1\ny = x / 0")]
    nbformat.write(notebook, tmp_path / "raises.ipynb")
    failed = _profile(tmp_path, tmp_path / "raises.ipynb")
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert failed.stderr.strip().endswith("failed: cell 2 (In [2]) raised ZeroDivisionError: division by zero")
    run = max(Store(tmp_path / "home").list_runs(), key=lambda r: r.id)
    assert run.status == "failed" and run.error.startswith("cell 2 (In [2]) raised ZeroDivisionError")


def test_what_is_no_notebook_or_a_notebook_given_as_a_script_is_one_sentence_and_nothing_is_stored(tmp_path):
    (tmp_path / "not.ipynb").write_text('{"a": 1}')
    (tmp_path / "empty.ipynb").write_text(json.dumps(nbformat.v4.new_notebook()))
    for path, said in ((tmp_path / "not.ipynb", "is not a notebook nbformat can read"),
                       (tmp_path / "empty.ipynb", "has no code cell to run"),
                       (tmp_path / "missing.ipynb", "There is no notebook at")):
        done = _profile(tmp_path, path)
        assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1, (
            path, done.stderr)
    done = _profile(tmp_path, tmp_path / "not.ipynb", "--try-fixes")
    assert done.returncode == 2 and "A notebook runs here as it is" in done.stderr
    assert not (tmp_path / "home").exists()
    from rlcore.contract.params import ConfigError
    from rlcore.workloads.script import runner

    with pytest.raises(ConfigError, match=r"is a notebook, not a Python script: rlcore profile .* runs it"):
        runner.check(tmp_path / "not.ipynb")  # the dashboard's "Run a script", a detached run


def test_the_link_is_given_only_where_the_person_s_browser_can_reach_it(monkeypatch, tmp_path):
    """Colab (detected as TensorBoard's notebook module does: google.colab imports) and a hub's remote kernel: the
    dashboard on the kernel's loopback is not the person's, so no link, and how to see the run instead. Colab itself
    cannot be run here: the decision is what is tested."""
    import types

    from rlcore.notebook import display
    from rlcore.runs import service

    store = Store(tmp_path)
    run = store.get_run(service.create_run(store, "script", {"path": "", "name": "lab.ipynb"}))
    monkeypatch.setattr(display, "_serving", lambda: True)
    assert display.where_to_see(run) == f"Its view in the dashboard: http://127.0.0.1:8501/runs?run={run.id}"
    monkeypatch.setattr(display, "_serving", lambda: False)
    assert "once the dashboard runs (make run" in display.where_to_see(run)
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    said = display.where_to_see(run)
    assert "http" not in said and "not reachable from your browser" in said and "%rlcore why" in said
    monkeypatch.delitem(sys.modules, "google.colab")
    monkeypatch.setenv("JUPYTERHUB_USER", "someone")
    assert "http" not in display.where_to_see(run)


def test_without_the_notebook_extra_a_notebook_is_one_sentence_naming_what_to_install(tmp_path):
    hidden = tmp_path / "hidden"
    (hidden / "nbformat").mkdir(parents=True)
    (hidden / "nbformat" / "__init__.py").write_text("raise ImportError('not installed')\n")
    (tmp_path / "walk.ipynb").write_text("{}")
    env = os.environ | {"RLCORE_HOME": str(tmp_path / "home"), "PYTHONPATH": f"{hidden}:{Path.cwd()}"}
    done = subprocess.run([sys.executable, "-m", "rlcore", "profile", str(tmp_path / "walk.ipynb")],
                          capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: Running a notebook needs the notebook extra: pip install -r requirements-notebook.txt.")
    assert not (tmp_path / "home").exists()

