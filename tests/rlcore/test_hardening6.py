"""Hardening, round 6: what last round added (fix runs, cause plug-ins, tags and search, ``rlcore.init``, stored
profiles, viewers) given an adversary's inputs. Each test names what main did before; each asserts the one sentence,
the exit code, and that every other run still lists, shows and exports."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_hardening import env_for, keras_opening, only_run, python, rlcore, script, tape_steps

from rlcore.runs import service
from rlcore.runs.store import Store

DAMAGED_PROFILES = {  # what a hand-edited or half-written row may hold where a profile belongs
    "version text": '{"version": "x", "verdict": "predict-bound"}',
    "version list": '{"version": [2], "verdict": "predict-bound"}',
    "version 1e400": '{"version": 1e400}',
    "a count of 10**400": '{"version": 2, "steps": 1' + "0" * 400 + '}',
    "seconds as text": '{"version": 2, "step_seconds": "slow", "findings": []}',
    "a finding's share as text": '{"version": 2, "findings": [{"cause": "indexing", "share": "most"}]}',
}


def damaged_store(tmp_path: Path) -> tuple[Store, int, dict[str, int]]:
    """A store with one good profiled run and one run of each damaged-profile shape."""
    store = Store(tmp_path / "home")
    good = service.create_run(store, "hjb", {"steps": 30}, label="good")
    store.finish(good, "done", summary={"steps_per_second": 10.0, "profile": {
        "version": 2, "verdict": "predict-bound", "step_seconds": 0.01, "findings": [
            {"cause": "predict-bound", "title": "model.predict", "seconds_per_step": 0.005, "share": 0.5,
             "fix": "call the model", "guide": ""}]}})
    bad = {}
    for shape, text in DAMAGED_PROFILES.items():
        run_id = service.create_run(store, "hjb", {"steps": 30}, label=shape)
        store.finish(run_id, "done", summary={"steps_per_second": 12.0})
        with sqlite3.connect(store.path) as db:
            db.execute("UPDATE runs SET summary = ? WHERE id = ?",
                       ('{"steps_per_second": 12.0, "profile": ' + text + "}", run_id))
        bad[shape] = run_id
    return store, good, bad


def test_a_damaged_stored_profile_is_its_row_s_sentence_and_every_other_run_lists_shows_and_exports(tmp_path):
    """Main: a profile with version "x", [2] or 1e400, a count of 10**400 or seconds as text ended `runs list` (any
    filter) and `runs show` in a traceback (int() of 'x', float() of 10**400)."""
    _, good, bad = damaged_store(tmp_path)
    for args in (["runs", "list"], ["runs", "list", "--cause", "predict"], ["runs", "list", "--json"]):
        listed = rlcore(tmp_path, *args)
        assert listed.returncode == 0 and "Traceback" not in listed.stderr, (args, listed.stderr)
    listed = rlcore(tmp_path, "runs", "list")
    for shape, run_id in bad.items():
        assert any(line.split()[:1] == [str(run_id)] and f"its stored profile is damaged: rlcore runs show {run_id}"
                   in line for line in listed.stdout.splitlines()), (shape, listed.stdout)
    assert "predict-bound" in listed.stdout  # the good run's verdict stands beside them
    found = rlcore(tmp_path, "runs", "list", "--cause", "predict")
    assert [line.split()[0] for line in found.stdout.splitlines()[1:] if line.strip()] == [str(good)]
    from rlcore.contract.profile import Profile

    for shape, text in DAMAGED_PROFILES.items():  # each shape read as the store reads it: one sentence, no raise
        assert Profile.from_json(json.loads(text)).error.startswith("This run's stored profile is damaged"), shape
    for run_id in (bad["version text"], bad["a count of 10**400"]):  # and two of them through the CLI
        shown = rlcore(tmp_path, "runs", "show", str(run_id))
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
        assert "stored profile is damaged" in shown.stdout, shown.stdout
    for run_id in (good, bad["version text"], bad["a count of 10**400"]):
        exported = rlcore(tmp_path, "runs", "export", str(run_id), "--tensorboard", str(tmp_path / f"tb{run_id}"))
        assert exported.returncode == 0 and "Traceback" not in exported.stderr, exported.stderr


def test_the_runs_page_and_a_run_s_view_stand_over_damaged_profiles(tmp_path, monkeypatch):
    _, good, bad = damaged_store(tmp_path)
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path / "home"))
    from pagetest import column, fixed_device_card, link_tables, open_page

    fixed_device_card(monkeypatch)
    at = open_page("runs", {})
    assert not at.exception
    (table,) = link_tables(at)
    assert len(table["rows"]) == 1 + len(bad)  # every run listed, each damaged one with its sentence
    assert column(table, "error").count("its stored profile is damaged") == len(bad)
    for query in ({"runs": ",".join(map(str, [good, *bad.values()]))}, *({"run": str(i)} for i in bad.values()),
                  {"cause": "predict-bound"}):
        at = open_page("runs", query)
        assert not at.exception, (query, at.exception)
    at = open_page("runs", {"run": str(bad["version text"])})
    assert any("stored profile is damaged" in m.value for m in [*at.warning, *at.info])


def test_the_next_run_of_a_script_whose_last_profile_is_damaged_is_done_and_says_since(tmp_path):
    """Main: the next `rlcore profile` of that script stored its run `done` and exited 1 with a traceback, through
    its "Since run N" line."""
    path = script(tmp_path, "walk.py", tape_steps(60))
    first = rlcore(tmp_path, "profile", str(path), "--steps", "5", "--warmup", "2")
    assert first.returncode == 0, first.stderr
    store = Store(tmp_path / "home")
    (run,) = store.list_runs()
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE runs SET summary = json_set(summary, '$.profile.version', 'x') WHERE id = ?", (run.id,))
    again = rlcore(tmp_path, "profile", str(path), "--steps", "5", "--warmup", "2")
    assert again.returncode == 0 and "Traceback" not in again.stderr, again.stderr
    assert f"Since run {run.id}" in again.stdout
    assert {r.status for r in store.list_runs()} == {"done"}
    assert json.loads(rlcore(tmp_path, "runs", "list", "--json").stdout)


# ---------------------------------------------------------------- cause plug-ins (3, 4)

PLUGINS = {
    "raising_rule": """
        from rlcore.tracking.causes import Rule, register
        def decide(step):
            raise RuntimeError("a bug in my rule")
        register(Rule("raising", "raise-bound", decide, order=1))""",
    "garbage_rule": """
        from rlcore.tracking.causes import Rule, Part, register
        register(Rule("texty", "text-bound", lambda step: "most of it", order=1))
        register(Rule("negative", "neg-bound", lambda step: Part("less than nothing", 0.001, share=-3.0), order=2))
        register(Rule("nan", "nan-bound", lambda step: Part("not a number", float("nan")), order=3))""",
    "other_rule": """
        from rlcore.tracking.causes import Rule, Part, register
        register(Rule("other", "other-bound", lambda step: Part("another plug-in's cause", 0.5 * step.seconds),
                      order=1, always_named=True))""",
    "takes_predict": """
        from rlcore.tracking.causes import Rule, register
        register(Rule("predict", "predict-bound", lambda step: None))""",
    "fails_to_import": """
        import no_such_module_anywhere""",
}


def with_plugins(tmp_path: Path, causes: str) -> dict[str, str]:
    for name, text in PLUGINS.items():
        script(tmp_path, f"{name}.py", text)
    env = env_for(tmp_path)
    return env | {"PYTHONPATH": f"{env['PYTHONPATH']}:{tmp_path}", "RLCORE_CAUSES": causes}


def lab(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=env,
                          timeout=300, cwd=tmp_path)


def test_a_rule_that_raises_or_returns_garbage_is_a_note_naming_it_and_the_run_is_done(tmp_path):
    """Main: "'str' object has no attribute 'share'" (naming no rule) failed the run after its training; a negative
    share passed through as "-300%", a NaN share led; an installed package's rule that failed to load was skipped
    without a word."""
    path = script(tmp_path, "walk.py", tape_steps(60))
    dist = tmp_path / "site" / "broken_plugin-1.0.dist-info"  # an installed package whose entry point is broken
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[rlcore.causes]\nbroken = no_such_package_here.rule\n")
    env = with_plugins(tmp_path, "raising_rule,garbage_rule")
    ran = lab(tmp_path, env | {"PYTHONPATH": f"{env['PYTHONPATH']}:{tmp_path / 'site'}"}, "profile", "--steps",
              "5", "--warmup", "2", str(path))
    assert ran.returncode == 0, ran.stderr
    run = only_run(tmp_path)
    assert run.status == "done"
    notes = run.summary["profile"]["notes"]
    for rule in ("raising", "texty", "negative", "nan"):
        assert any(f"The cause rule '{rule}' was left out" in n for n in notes), (rule, notes)
    assert "a bug in my rule" in " ".join(notes) and "note: The cause rule 'raising'" in ran.stdout
    assert any(n.startswith("the cause plug-in 'broken' (no_such_package_here.rule) was left out") for n in notes)
    causes = [f["cause"] for f in run.summary["profile"]["findings"]]
    assert not {"raise-bound", "text-bound", "neg-bound", "nan-bound"} & set(causes)
    assert causes, "the lab's own rules still speak"


def test_a_plugin_that_cannot_import_or_takes_a_built_in_name_is_one_sentence_before_any_run(tmp_path):
    """Main: a module that failed to import was noticed after the training (26 s) and failed that run; a plug-in
    named `predict` silently replaced the lab's own rule."""
    path = script(tmp_path, "walk.py", tape_steps(60))
    for causes, said in (("fails_to_import", "RLCORE_CAUSES names 'fails_to_import', which cannot be imported"),
                         ("takes_predict", "a plug-in cause cannot be called 'predict'"),
                         ("not_a_module_at_all", "RLCORE_CAUSES names 'not_a_module_at_all', which cannot be "
                                                 "imported (no such module)")):
        ran = lab(tmp_path, with_plugins(tmp_path, causes), "profile", "--steps", "5", str(path))
        assert ran.returncode == 2 and said in ran.stderr and "Traceback" not in ran.stderr, (causes, ran.stderr)
        assert len(ran.stderr.strip().splitlines()) == 1
        assert not Store(tmp_path / "home").list_runs()
    init = script(tmp_path, "loop.py", """
        import rlcore
        run = rlcore.init(profile=5)""")
    ran = subprocess.run([sys.executable, str(init)], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env=with_plugins(tmp_path, "takes_predict"))
    assert ran.returncode == 1 and "a plug-in cause cannot be called 'predict'" in ran.stderr
    assert not Store(tmp_path / "home").list_runs()


def test_a_detached_run_is_read_with_the_plugins_of_the_command_that_queued_it(tmp_path):
    """Main: three runs queued with a raising rule, none, and another rule all ended `failed: ... rule raised`: the
    queue runner's worker lent every run the plug-ins of whoever started the runner."""
    from runwait import wait_final

    path = script(tmp_path, "walk.py", tape_steps(60))
    ids = []
    for causes in ("raising_rule", "", "other_rule"):
        queued = lab(tmp_path, with_plugins(tmp_path, causes), "profile", "--steps", "5", "--warmup", "2",
                     "--detach", str(path))
        assert queued.returncode == 0, queued.stderr
        ids.append(int(queued.stdout.split()[-1]))
    store = Store(tmp_path / "home")
    runs = [wait_final(store, run_id) for run_id in ids]
    assert [r.status for r in runs] == ["done"] * 3, [(r.status, r.error) for r in runs]
    # A left-out rule's note, only in the run whose command had it (other notes, such as a busy machine's stalled
    # kernels while the suite runs beside it, are the machine's, not a plug-in's)
    notes = [[n for n in r.summary["profile"].get("notes", []) if n.startswith("The cause rule")] for r in runs]
    causes = [{f["cause"] for f in r.summary["profile"]["findings"]} for r in runs]
    assert any("'raising'" in n for n in notes[0]) and not notes[1] and not notes[2]
    assert "other-bound" in causes[2] and "other-bound" not in causes[0] | causes[1]


# ---------------------------------------------------------------- fix runs (5)

KERAS_SMALL_BATCH = """
    import os, subprocess, sys
    import numpy as np
    from tensorflow import keras
    if os.environ.get("GRANDCHILD_PIDS"):  # a grandchild that outlives the script, holding its stdout and stderr
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open(os.environ["GRANDCHILD_PIDS"], "a").write(f"{child.pid}\\n")
    x, y = np.random.rand(2048, 8).astype("float32"), np.random.rand(2048, 1).astype("float32")
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
"""


def started(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, Path]:
    """The lab's CLI started with its output in a file (never a pipe a grandchild could hold open), with Ctrl-C
    heard as at a terminal: a suite started in the background (`make test &`) inherits SIGINT ignored, and Python
    keeps an ignored SIGINT ignored."""
    import signal

    out = tmp_path / "out.txt"
    handle = out.open("w")
    process = subprocess.Popen([sys.executable, "-m", "rlcore", *args], stdout=handle, stderr=subprocess.STDOUT,
                               env=env or env_for(tmp_path), cwd=tmp_path, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    handle.close()
    return process, out


@pytest.mark.parametrize("flags, said", [
    (["--try-fixes", "--detach"], "--try-fixes runs each fix here after the script, and --detach queues"),
    (["--fix", "jit_compile", "--fix", "predict"], "--fix takes one fix a run, not 2 (jit_compile, predict)"),
    (["--fix", "jit_compile", "--fix-of", "99999"], "--fix-of 99999: there is no run 99999 to try a fix on"),
    (["--fix-of", "abc"], "--fix-of must be a run id, not 'abc'"),
])
def test_profile_flags_that_cannot_go_together_are_one_sentence_and_nothing_is_stored(tmp_path, flags, said):
    """Main: --try-fixes --detach dropped the fixes silently; --fix a --fix b kept the last; --fix-of 99999 ran."""
    path = script(tmp_path, "walk.py", tape_steps(10))
    ran = rlcore(tmp_path, "profile", *flags, str(path))
    assert ran.returncode == 2 and said in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert not (tmp_path / "home" / "runs.sqlite").exists() or not Store(tmp_path / "home").list_runs()


def test_fixes_of_a_script_named_like_a_flag_that_forks_are_tried_and_a_deleted_baseline_is_said(tmp_path):
    """Main: a script named `-lead.py` (after --) could not be fix-tried ("unrecognized arguments"); a grandchild
    the script forked held --try-fixes until it exited (186 s for ~60 s); deleting the baseline while its fixes ran
    crashed the CLI ('NoneType' object has no attribute 'kind')."""
    import os
    import signal

    from runwait import wait_for

    path = script(tmp_path, "-lead.py", KERAS_SMALL_BATCH)
    pids = tmp_path / "pids.txt"
    process, out = started(tmp_path, "profile", "--steps", "5", "--try-fixes", "--", path.name,
                           env=env_for(tmp_path) | {"GRANDCHILD_PIDS": str(pids)})
    try:
        store = Store(tmp_path / "home")
        wait_for(lambda: len(store.list_runs()) == 2 or process.poll() is not None, 300, "the fix run to start")
        (baseline,) = [r for r in store.list_runs() if not r.config.get("fix_of")]
        store.delete_run(baseline.id)
        assert process.wait(timeout=300) == 0, out.read_text()
        grandchildren = [int(p) for p in pids.read_text().split()]
        # the script's and its fix run's: each still sleeping, not waited for
        assert len(grandchildren) == 2, out.read_text()
        assert all(Path(f"/proc/{pid}").exists() for pid in grandchildren)
    finally:
        for pid in (int(p) for p in (pids.read_text().split() if pids.exists() else [])):
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
    text = out.read_text()
    assert "Traceback" not in text and "unrecognized arguments" not in text, text
    assert f"Run {baseline.id} was deleted while its fixes ran; the runs that tried them stand" in text
    (tried,) = Store(tmp_path / "home").list_runs()
    assert tried.status == "done" and tried.config["fix"] == "steps_per_execution"


def test_ctrl_c_while_a_fix_runs_is_one_sentence_and_the_fix_run_is_cancelled(tmp_path):
    """Main: Ctrl-C during a fix run printed a KeyboardInterrupt traceback."""
    import signal

    from runwait import wait_final, wait_for

    path = script(tmp_path, "small_batch.py", KERAS_SMALL_BATCH.replace("epochs=1", "epochs=20"))
    process, out = started(tmp_path, "profile", "--steps", "5", "--try-fixes", str(path))
    try:
        store = Store(tmp_path / "home")
        def fix_run_training() -> bool:  # its run stored and training: a Ctrl-C now lands while the fix runs
            runs = store.list_runs()
            return len(runs) >= 2 and max(runs, key=lambda r: r.id).status == "running"

        wait_for(lambda: fix_run_training() or process.poll() is not None, 300, "the fix run to train")
        assert process.poll() is None, out.read_text()[-3000:]  # (what ended it first, if anything did)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=120) == 130, out.read_text()[-3000:]
    finally:
        if process.poll() is None:
            process.kill()
    text = out.read_text()
    assert "Traceback" not in text and "interrupted: the fixes not tried yet were left" in text, text
    fix_run = max(store.list_runs(), key=lambda r: r.id)
    final = wait_final(store, fix_run.id)
    assert final.status in ("cancelled", "done"), final.error


def test_a_fix_run_that_hangs_is_stopped_at_its_bound_with_progress_and_left_failed(tmp_path, monkeypatch, capsys):
    """Main: a fix run that hung blocked the CLI with no output."""
    import argparse

    from rlcore.cli import train
    from rlcore.runs import service

    path = script(tmp_path, "hangs.py", """
        import time
        if b"--fix" in open("/proc/self/cmdline", "rb").read():  # only the run with the fix hangs
            time.sleep(600)""")
    for key, value in env_for(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    store = Store(tmp_path / "home")
    base = service.create_run(store, "script", {"path": str(path)}, label="base")
    store.finish(base, "done", summary={"steps": 1})
    monkeypatch.setattr(train, "FIX_PROGRESS_SECONDS", 1.0)
    args = argparse.Namespace(program=str(path), args=[])
    train._try_one(args, {"run_id": base, "label": "base"}, "jit_compile", bound=6.0)
    said = capsys.readouterr().out
    assert "jit_compile: still running (" in said and "jit_compile: stopped after" in said, said
    assert all(not r.live for r in store.list_runs())


# ---------------------------------------------------------------- rlcore.init misuse (6), the predict fix (5)

def test_two_threads_starting_runs_at_once_both_get_one(tmp_path):
    """Main: one of the two failed 3 of 3 times ("This lab has no workload that runs your own code": the registry
    marked itself loaded before importing, and the other thread read it then without its lock)."""
    path = script(tmp_path, "threads.py", """
        import threading
        import rlcore
        ready, ended = threading.Barrier(2), []
        def start():
            ready.wait()
            run = rlcore.init(name=threading.current_thread().name)
            run.log(loss=1.0)
            ended.append(run)
        threads = [threading.Thread(target=start, name=f"thread {i}") for i in range(2)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        [run.finish() for run in ended]
        print(len(ended))""")
    for _ in range(2):
        ran = python(tmp_path, path)
        assert ran.returncode == 0 and ran.stdout.strip() == "2", ran.stderr
    runs = Store(tmp_path / "home").list_runs()
    assert len(runs) == 4 and {r.status for r in runs} == {"done"}


def test_a_one_step_run_s_training_time_is_never_negative(tmp_path):
    """Main: a run of one step reported "-3,928 µs of training"."""
    path = script(tmp_path, "one.py", """
        import rlcore
        import tensorflow as tf
        v = tf.Variable(1.0)
        opt = tf.keras.optimizers.SGD(0.1)
        with rlcore.init() as run:
            with tf.GradientTape() as tape:
                loss = v * v
            opt.apply_gradients([(tape.gradient(loss, v), v)])
            run.log(loss=float(loss))""")
    ran = python(tmp_path, path)
    assert ran.returncode == 0, ran.stderr
    run = only_run(tmp_path)
    assert run.status == "done" and run.summary["train_seconds"] >= 0, run.summary
    shown = rlcore(tmp_path, "runs", "show", str(run.id))
    assert "-" not in shown.stdout.split("of training")[0].split("over")[-1], shown.stdout


@pytest.mark.parametrize(("body", "status"), [
    ("sys.exit(0)", "done"), ("sys.exit()", "done"), ("sys.exit(3)", "failed"),
    ("raise SystemExit('bye')", "failed")])
def test_sys_exit_inside_a_run_ends_it_as_the_exit_code_says(tmp_path, body, status):
    """Main: sys.exit(0) inside `with rlcore.init()` ended the run `failed: SystemExit: 0`."""
    path = script(tmp_path, "leaves.py", f"""
        import sys
        import rlcore
        with rlcore.init() as run:
            run.log(loss=1.0)
            {body}""")
    python(tmp_path, path)
    assert only_run(tmp_path).status == status


def test_a_fit_stopped_by_a_raising_callback_the_script_catches_ends_failed_as_a_loop_does(tmp_path):
    """Main: the Keras run was stored `done` where rlcore.init, in the same case, is `failed`: one rule for both."""
    path = script(tmp_path, "caught.py", keras_opening(64) + """
        class Raises(keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                if batch == 3:
                    raise RuntimeError("my callback broke")
        try:
            model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[rlcore.keras.Callback(), Raises()])
        except RuntimeError:
            pass
        try:
            with rlcore.init(name="loop") as run:
                raise RuntimeError("my loop broke")
        except RuntimeError:
            pass""")
    ran = python(tmp_path, path)
    assert ran.returncode == 0, ran.stderr
    runs = sorted(Store(tmp_path / "home").list_runs(), key=lambda r: r.id)
    assert [r.status for r in runs] == ["failed", "failed"], [(r.status, r.error) for r in runs]
    assert "model.fit raised" in runs[0].error and "my loop broke" in runs[1].error


def test_the_predict_fix_answers_a_model_of_several_outputs_as_predict_does(tmp_path):
    """Main: the lab's predict fix crashed any model with several outputs ('list' object has no attribute 'numpy')."""
    path = script(tmp_path, "two_heads.py", """
        import numpy as np
        from tensorflow import keras
        inputs = keras.Input((4,))
        model = keras.Model(inputs, [keras.layers.Dense(2)(inputs), keras.layers.Dense(1)(inputs)])
        model.compile("sgd", ["mse", "mse"])
        x = np.random.rand(8, 4).astype("float32")
        for i in range(30):
            a, b = model.predict(x[:1], verbose=0)
            assert isinstance(a, np.ndarray) and a.shape == (1, 2) and b.shape == (1, 1)
            model.train_on_batch(x, [np.zeros((8, 2)), np.zeros((8, 1))])""")
    ran = rlcore(tmp_path, "profile", "--steps", "0", "--fix", "predict", str(path))
    assert ran.returncode == 0, ran.stderr
    assert only_run(tmp_path).status == "done"


# ---------------------------------------------------------------- output (7)

def test_a_script_s_escape_and_bidi_characters_never_reach_the_terminal_raw(tmp_path):
    """Main: "error: run N failed: ..." printed a script's raw ESC and bidi characters to the terminal."""
    path = script(tmp_path, "loud.py", """
        raise RuntimeError("\\x1b[2J\\x1b]0;owned\\x07 cleared \\u202eevil\\u2066")""")
    ran = rlcore(tmp_path, "profile", str(path))
    assert ran.returncode == 1 and "cleared" in ran.stderr, ran.stderr
    shown = rlcore(tmp_path, "runs", "show", str(only_run(tmp_path).id))
    for text in (ran.stderr, ran.stdout, shown.stdout):
        assert not {"\x1b", "\x07", "\u202e", "\u2066"} & set(text), repr(text)
