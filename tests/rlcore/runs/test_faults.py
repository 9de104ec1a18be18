"""Nothing lost, nothing stuck: long silent runs live on, failed launches never block the queue, output paths are
checked before any work, storage faults and odd input are one sentence. Real processes, real SQLite, real mounts
(a read-only bind mount and a 2 MB tmpfs, as root; skipped with the reason where mounting is not allowed)."""

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runwait import wait_final, wait_training

from rlcore.runs import service
from rlcore.runs import store as store_module
from rlcore.runs.local import LAUNCH_FAILED, NEVER_STARTED, launch
from rlcore.runs.store import Store, StoreError

TINY_DQN = {"epochs": 4, "memory_size": 100, "batch_size": 16, "test_games": 20, "hidden1": 16, "hidden2": 8}
ENV = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"}


def rlcore(*args, home: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    env = ENV | ({"RLCORE_HOME": str(home)} if home else {})
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def one_sentence(proc: subprocess.CompletedProcess, start: str) -> None:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith(start), proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- healthy but silent runs


def _silent_hjb_run(store: Store, steps_per_call: int) -> tuple[object, list[float | None], int]:
    """An HJB run of two compiled calls (trace, then one silent call of ``steps_per_call`` steps), watched every
    0.5 s: the run, what ``unresponsive_for`` said at each poll while it ran, and the number of those polls."""
    run_id = service.create_run(store, "hjb", {"steps": 2 * steps_per_call, "steps_per_call": steps_per_call,
                                      "eval_every": 0, "eval_points": 20})
    launch(store, run_id)
    quiet_seen: list[float | None] = []
    while (run := store.get_run(run_id)).live:
        if run.status == "running":
            quiet_seen.append(run.unresponsive_for())
        time.sleep(0.5)
    return run, quiet_seen, len(quiet_seen)


def test_a_run_inside_one_long_compiled_call_is_never_declared_dead(tmp_path, monkeypatch):
    """All of a call's steps in one compiled call: the loop reports nothing for its length, the heartbeat thread
    still beats. The call is sized from the rate this machine measured (a faster machine gets more steps), so
    the silence outlasts the staleness limit on any machine."""
    stale = 3.0
    monkeypatch.setattr(store_module, "HEARTBEAT_STALE_SECONDS", stale)  # "unresponsive" after 3 s of silence
    store = Store(tmp_path)
    steps_per_call = 30_000  # about 9 s here; measured and resized where that is not enough
    for _ in range(3):  # the second call (timed apart from the first's trace) is the silent one
        run, quiet_seen, polls = _silent_hjb_run(store, steps_per_call)
        assert run.status == "done", run.error
        silent = run.summary["train_seconds"]
        if silent > 2 * stale:
            break
        steps_per_call = int(run.summary["steps_per_second"] * 3 * stale)  # this machine's rate: ~9 s of silence
    assert silent > 2 * stale, f"could not make one compiled call last {2 * stale} s"
    assert polls > 2 * stale and quiet_seen.count(None) == len(quiet_seen)  # never once unresponsive, never failed
    assert run.summary["steps"] == 2 * steps_per_call


# ---------------------------------------------------------------- the queue never blocks


def test_a_run_whose_worker_cannot_start_fails_with_the_reason_and_the_queue_goes_on(tmp_path):
    store = Store(tmp_path)
    (tmp_path / "runs").write_text("a file where the runs folder should be")
    blocked = service.create_run(store, "dqn", TINY_DQN)
    launch(store, blocked)
    failed = wait_final(store, blocked, timeout=30)
    assert failed.status == "failed" and failed.error.startswith(f"{LAUNCH_FAILED}: Not a directory")
    (tmp_path / "runs").unlink()
    after = service.create_run(store, "dqn", TINY_DQN)
    launch(store, after)
    assert wait_final(store, after).status == "done"


def test_queued_runs_that_nothing_will_start_fail_with_the_reason_and_the_next_launch_runs(tmp_path):
    store = Store(tmp_path, start_grace=0.5)
    orphan = service.create_run(store, "dqn", TINY_DQN)  # written, never launched: as if the dashboard died in between
    time.sleep(1.0)
    assert (store.get_run(orphan).status, store.get_run(orphan).error) == ("failed", NEVER_STARTED)
    after = service.create_run(store, "dqn", TINY_DQN)
    launch(store, after)
    assert wait_final(store, after).status == "done"


# ---------------------------------------------------------------- output paths


@pytest.mark.parametrize(("args", "sentence"), [
    (["--json", "/nonexistent/out.json"], "error: --json cannot be written: the directory /nonexistent does not exist"),
    (["--json", ""], "error: --json needs a file name"),
    (["--json", "/tmp"], "error: --json names a directory"),
    (["--save-model", "/proc/nope/agent.keras"], "error: --save-model cannot be written"),
    (["--save-model", "/proc/version.keras"], "error: --save-model cannot be written"),
    (["--save-model", "agent.h5"], "error: --save-model must name a .keras file"),
])
def test_bad_output_paths_are_refused_before_any_training(tmp_path, args, sentence):
    """Refused before TensorFlow is even imported (so before any training, on a machine of any speed)."""
    imported = tmp_path / "imported.txt"
    probe = ("import atexit, runpy, sys; "
             f"atexit.register(lambda: open({str(imported)!r}, 'w').write(str('tensorflow' in sys.modules))); "
             f"sys.argv = ['rlcore', *{['dqn', '--epochs', '5000', *args]!r}]; "
             "runpy.run_module('rlcore', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env=ENV | {"RLCORE_HOME": str(tmp_path)})
    one_sentence(proc, sentence)
    assert imported.read_text() == "False"


def test_runs_export_refuses_bad_paths_in_one_sentence(tmp_path):
    store = Store(tmp_path)
    run_id = service.create_run(store, "dqn", {})
    store.finish(run_id, "cancelled")
    for path, sentence in ((tmp_path / "missing" / "m.csv", "does not exist"), (tmp_path, "names a directory"),
                           ("/proc/self/nope.csv", "cannot be written"), ("", "needs a file name")):
        one_sentence(rlcore("runs", "export", str(run_id), "--csv", str(path), home=tmp_path),
                     f"error: --csv {sentence}" if sentence in ("needs a file name", "names a directory")
                     else "error: --csv cannot be written")


# ---------------------------------------------------------------- storage faults


@contextlib.contextmanager
def mounted(target: Path, *args: str):
    """Mount something at ``target`` for the test (root only); skip with the reason where that is not allowed."""
    done = subprocess.run(["mount", *args, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip()}); the fault needs a real mount")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], capture_output=True)


@pytest.fixture
def readonly_home(tmp_path):
    """A store with two runs, then its directory made read-only by a bind mount."""
    home = tmp_path / "home"
    store = Store(home)
    for style in ("graph", "xla"):
        run_id = service.create_run(store, "dqn", {"exec_mode": style}, label=style)
        store.append_metrics(run_id, [(1, 0.1, "train/loss", 1.0)])
        store.finish(run_id, "done", summary={"win_rate": 0.5, "steps_per_second": 9.0, "train_seconds": 1.0})
    view = tmp_path / "ro"
    view.mkdir()
    with mounted(view, "--bind", str(home)):
        remount = subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], capture_output=True, text=True)
        if remount.returncode != 0:
            pytest.skip(f"cannot remount read-only here ({remount.stderr.strip()})")
        yield view


def test_a_read_only_store_is_read_by_every_page_and_refuses_changes_in_one_sentence(readonly_home, monkeypatch):
    store = Store(readonly_home)
    assert store.read_only and [r.label for r in store.list_runs()] == ["xla", "graph"]
    with pytest.raises(StoreError, match=r"^The run store at .* is read-only"):
        service.create_run(store, "dqn", {})
    one_sentence(rlcore("dqn", "--detach", home=readonly_home), "error: The run store at")
    listed = rlcore("runs", "list", home=readonly_home)
    assert listed.returncode == 0 and "graph" in listed.stdout  # reading still works

    from pagetest import drawn_charts, fixed_device_card, open_page

    monkeypatch.setenv("RLCORE_HOME", str(readonly_home))
    fixed_device_card(monkeypatch)
    runs = open_page("runs", {"runs": "1,2"})
    assert not runs.exception and drawn_charts(runs)  # the comparison still draws
    form = open_page("dqn")
    assert not form.exception and form.button(key="launch").disabled
    assert any("is read-only" in c.value for c in form.caption)


@contextlib.contextmanager
def immutable(paths: list[Path]):
    """Make files and folders refuse every write, root's included (chattr +i), as a store turned read-only under a
    running worker: a read-only remount is refused while the worker's log is open for writing."""
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make files immutable here ({done.stderr.strip()}); the fault needs chattr")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True)


def test_a_store_made_read_only_mid_run_stays_readable_and_its_runs_go_on_once_it_is_writable(tmp_path):
    """Reads never need a write; the training run keeps its rows while the store refuses them, and the queue waits
    instead of losing its runs."""
    store = Store(tmp_path)
    training = service.create_run(store, "dqn", {"epochs": 100_000, "test_games": 20, "eval_every": 0}, label="long")
    waiting = service.create_run(store, "dqn", TINY_DQN, label="next")
    launch(store, training)
    wait_training(store, training)
    frozen = [tmp_path, *(p for p in tmp_path.glob("runs.sqlite*"))]
    with immutable(frozen):
        reader = Store(tmp_path)
        assert [(r.label, r.status) for r in reader.list_runs()] == [("next", "queued"), ("long", "running")]
        listed = rlcore("runs", "list", home=tmp_path)
        assert listed.returncode == 0 and "long" in listed.stdout, listed.stderr
        time.sleep(3)  # a few of the worker's flushes and heartbeats refused meanwhile
    assert store.get_run(training).status == "running"  # never "worker died": it lives and trains on
    store.request_cancel(training)
    assert wait_final(store, training).status == "cancelled"
    assert wait_final(store, waiting, timeout=180).status == "done"  # never "never started"


def test_a_full_disk_ends_the_run_with_its_real_cause_and_keeps_what_was_written(tmp_path):
    home = tmp_path / "tiny"
    home.mkdir()
    with mounted(home, "-t", "tmpfs", "-o", "size=3m", "tmpfs"):
        store = Store(home)
        done = service.create_run(store, "dqn", {"exec_mode": "graph"})
        store.append_metrics(done, [(s, s / 10, "train/loss", 1.0 / s) for s in range(1, 200)])
        store.finish(done, "done", summary={"win_rate": 0.9})
        run_id = service.create_run(store, "dqn", TINY_DQN | {"epochs": 400, "eval_every": 0})
        launch(store, run_id)
        wait_training(store, run_id)
        def fill(name: str) -> None:
            with contextlib.suppress(OSError), open(home / name, "wb") as f:
                while True:
                    f.write(bytes(64 * 1024))

        fill("filler")
        run = wait_final(store, run_id, timeout=120)
        assert run.status == "failed" and run.error.startswith("The disk holding the run store")
        # The run gave its reserve back to record why it ended: that megabyte is no room for another run.
        one_sentence(rlcore("dqn", "--detach", home=home), "error: The disk holding the run store")
        one_sentence(rlcore("sweep", "dqn", "--grid", "epochs=3,4", "--detach", home=home),
                     "error: The disk holding the run store")
        assert store.integrity_check() == "ok" and store.metric_count(done) == 199
        assert [r.status for r in store.list_runs()] == ["failed", "done"]  # the refused launch wrote nothing


@pytest.mark.parametrize("damage", ["truncated", "garbage", "zero bytes"])
def test_a_damaged_store_is_one_sentence_in_the_cli_and_on_every_page(tmp_path, monkeypatch, damage):
    store = Store(tmp_path)
    store.append_metrics(service.create_run(store, "dqn", {}), [(s, 0.1, "train/loss", 1.0) for s in range(500)])
    data = store.path.read_bytes()
    for extra in ("-wal", "-shm"):
        Path(f"{store.path}{extra}").unlink(missing_ok=True)
    store.path.write_bytes({"truncated": data[: len(data) // 3], "garbage": os.urandom(len(data)),
                            "zero bytes": b""}[damage])
    one_sentence(rlcore("runs", "list", home=tmp_path), "error: The run store at")
    assert "is damaged" in rlcore("runs", "list", home=tmp_path).stderr
    # Never a new, empty store in its place (SQLite takes an empty file for an empty database): nothing queued.
    one_sentence(rlcore("dqn", "--detach", home=tmp_path), "error: The run store at")
    assert store.path.stat().st_size == {"truncated": len(data) // 3, "garbage": len(data), "zero bytes": 0}[damage]

    from pagetest import APP, fixed_device_card, go
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)
    at = AppTest.from_file(APP, default_timeout=60).run()
    for page in ("home", "dqn", "runs"):
        go(at, page).run()
        assert not at.exception, page
        assert "is damaged" in at.error[0].value, page


def test_a_store_made_anew_never_offers_an_old_runs_files(tmp_path):
    old = Store(tmp_path)
    first = service.create_run(old, "dqn", {})
    old.save_artifacts(first, {"model.keras": b"the old run's model"})
    for extra in ("", "-wal", "-shm"):
        Path(f"{old.path}{extra}").unlink(missing_ok=True)
    new = Store(tmp_path)
    again = service.create_run(new, "dqn", {})
    assert again == first  # ids start again in a new store...
    assert not (new.run_dir(again) / "model.keras").exists()  # ...but its files are its own
    assert new.store_id != old.store_id and (old.run_dir(first) / "model.keras").exists()


# ---------------------------------------------------------------- odd input


@pytest.mark.parametrize(("args", "sentence"), [
    (["runs", "show", "100000000000000000000"], "error: run must be a run id like 3, not '100000000000000000000'."),
    (["runs", "show", "²"], "error: run must be a run id like 3, not '²'."),
    (["dqn", "--batch", "²"], "error: batch must be a whole number, not '²'."),
    (["dqn", "--epochs", "1" + "0" * 400], "error: epochs must be at most 10,000,000, not a 401-digit number."),
    (["dqn", "--seed", "2147483648"], "error: seed must be at most 2,147,483,647, not 2,147,483,648."),
    (["dqn", "--epoch", "5"], "error: unrecognized arguments: --epoch 5"),
    (["dqn", "--exec", "turbo", "--lr", "0.1"], "error: turbo is a workload of its own now; the same run: rlcore turbo "
                                               "--detach (left out, as turbo never read them: lr)."),
    (["dqn", "--label", "x" * 201], "error: label must be at most 200 characters, not 201."),
    (["dqn", "--label", "a\x1b[2Jb"], "error: label must be printable text"),
])
def test_odd_input_is_refused_in_one_sentence(tmp_path, args, sentence):
    detach = ["--detach"] if args[0] == "dqn" else []  # had it been accepted, it would only have queued
    one_sentence(rlcore(*args, *detach, home=tmp_path), sentence)
    assert Store(tmp_path).list_runs() == []


def test_a_label_of_undecodable_bytes_is_refused_in_one_sentence(tmp_path):
    proc = subprocess.run([sys.executable.encode(), b"-m", b"rlcore", b"dqn", b"--label", b"bad\xff\xfe", b"--detach"],
                          capture_output=True, env=ENV | {"RLCORE_HOME": str(tmp_path)}, timeout=60)
    assert proc.returncode == 2 and proc.stderr.decode().startswith("error: label must be valid UTF-8 text")


def test_the_cli_prints_a_stored_label_without_its_terminal_escapes(tmp_path):
    import sqlite3

    store = Store(tmp_path)
    run_id = service.create_run(store, "dqn", {}, label="plain")
    with sqlite3.connect(store.path) as db:  # written past the store's own check, as an older version might have
        db.execute("UPDATE runs SET label = ? WHERE id = ?", ("a\x1b]8;;http://x\x07link\x1b[2Jb", run_id))
    for args in (["runs", "list"], ["runs", "show", str(run_id)]):
        proc = rlcore(*args, home=tmp_path)
        assert proc.returncode == 0 and "\x1b" not in proc.stdout and "\x07" not in proc.stdout
        assert "a\ufffd]8;;http://x\ufffdlink\ufffd[2Jb" in proc.stdout


@pytest.mark.parametrize(("page", "query", "warning"), [
    ("dqn", {"run": "99999999999999999999"}, "run must be a run id like 3, not '99999999999999999999'."),
    ("dqn", {"run": "²"}, "run must be a run id like 3, not '²'."),
    ("runs", {"runs": "²"}, "runs must be run ids separated by commas, like 3,5,8, not '²'."),
    ("runs", {"run": "0"}, "run must be a run id like 3, not '0'."),
    ("dqn", {"batch": "²"}, "batch must be a whole number, not '²'."),  # a form's number: shown and judged there
    ("dqn", {"seed": "2147483648"}, "seed must be at most 2,147,483,647, not 2,147,483,648."),
])
def test_odd_link_values_are_one_sentence(tmp_path, monkeypatch, page, query, warning):
    from pagetest import fixed_device_card, open_page, shown

    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)
    store = Store(tmp_path)
    store.finish(service.create_run(store, "dqn", {}), "cancelled")
    at = open_page(page, query)
    assert not at.exception
    if "run" in query or "runs" in query:
        assert [shown(w) for w in at.warning] == [warning]
    else:  # the field holds the link's text, the form says why Launch is off
        assert [shown(e) for e in at.error] == [warning] and not at.warning and at.button(key="launch").disabled



# ---------------------------------------------------------------- exports, written whole or not at all


def _exportable(home: Path, capture_bytes: int = 0, rows: int = 200) -> int:
    store = Store(home)
    run_id = service.create_run(store, "dqn", {"epochs": 40})
    store.append_metrics(run_id, [(s, s / 10, "train/loss", 1.0 / s) for s in range(1, rows)])
    store.finish(run_id, "done", summary={"win_rate": 0.9})
    if capture_bytes:
        capture = store.run_dir(run_id) / "profile" / "plugins" / "profile" / "2026_12_01" / "vm.xplane.pb"
        capture.parent.mkdir(parents=True)
        capture.write_bytes(os.urandom(capture_bytes))
    return run_id


def test_an_export_onto_a_full_disk_leaves_nothing_half_written_and_says_so(tmp_path):
    run_id = _exportable(tmp_path / "home", capture_bytes=3 << 20)  # a capture three times the disk
    rows_id = _exportable(tmp_path / "home", rows=40_000)  # a CSV of about 1.4 MB
    target = tmp_path / "small"
    target.mkdir()
    with mounted(target, "-t", "tmpfs", "-o", "size=1m", "tmpfs"):
        board = rlcore("runs", "export", str(run_id), "--tensorboard", str(target / "tb"), home=tmp_path / "home")
        one_sentence(board, f"error: The export of run {run_id} to {target / 'tb'} could not be finished (")
        assert "nothing of it was left there" in board.stderr
        assert [p for p in (target / "tb").rglob("*") if p.is_file()] == []  # no truncated .xplane.pb
        table = rlcore("runs", "export", str(rows_id), "--csv", str(target / "m.csv"), home=tmp_path / "home")
        one_sentence(table, f"error: {target / 'm.csv'} could not be written (No space left on device)")
        assert sorted(p.name for p in target.iterdir()) == ["tb"]  # neither the CSV nor its partial file


@pytest.mark.parametrize(("target", "sentence"), [
    (lambda d: d / ("b" * 300), "error: --tensorboard cannot be made: File name too long"),
    (lambda d: d / ("b/" * 2500), "error: --tensorboard cannot be made: File name too long"),
    (lambda d: d / "taken", "error: {d}/taken/run{id} is a file, not a folder; the export writes the run's folder"),
    (lambda d: d / "a-file.txt", "error: --tensorboard names a file, not a folder"),
])
def test_an_export_target_that_cannot_take_it_is_one_sentence(tmp_path, target, sentence):
    run_id = _exportable(tmp_path / "home")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / f"run{run_id}").write_text("a file where the run's folder goes")
    (tmp_path / "a-file.txt").write_text("x")
    done = rlcore("runs", "export", str(run_id), "--tensorboard", str(target(tmp_path)), home=tmp_path / "home")
    one_sentence(done, sentence.format(d=tmp_path, id=run_id))


@pytest.mark.parametrize(("env", "sentence"), [
    ({"RLCORE_HOME": "/tmp/" + "h" * 5000}, "error: The run store's path is too long for this file system"),
    ({"RLCORE_HOME": "/tmp/" + "h/" * 2500}, "error: The run store's path is too long for this file system"),
    ({"RLCORE_EXECUTOR": "fast"}, "error: executor must be one of local, "),
    ({"RLCORE_EXECUTORS": "os.system"}, "error: RLCORE_EXECUTORS names 'os.system', which cannot be imported"),
    ({"RLCORE_WORKLOADS": "os.system"}, "error: RLCORE_WORKLOADS names 'os.system', which cannot be imported"),
])
def test_a_bad_environment_variable_is_one_sentence_on_detach_too(tmp_path, env, sentence):
    done = subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--detach"], capture_output=True, text=True,
                          timeout=120, env=os.environ | {"RLCORE_HOME": str(tmp_path), "TF_CPP_MIN_LOG_LEVEL": "2"}
                          | env)
    one_sentence(done, sentence)
    assert not Path("/tmp/" + "h" * 40).exists()
