"""The CLI as a user runs it: a real subprocess, JSON out, one sentence and exit 2 for bad input."""

import json
import os
import subprocess
import sys

import pytest

ENV = os.environ | {"TF_CPP_MIN_LOG_LEVEL": "2"}


def rlcore(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def test_dqn_run_writes_the_result_json_and_a_model(tmp_path):
    out, model = tmp_path / "out.json", tmp_path / "agent.keras"
    proc = rlcore("dqn", "--epochs", "8", "--memory", "100", "--batch", "16", "--test-games", "20",
                  "--exec", "graph", "--seed", "3", "--json", str(out), "--save-model", str(model))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    for key in ("config", "steps", "train_seconds", "steps_per_second", "win_rate", "final_loss", "phase_seconds",
                "environment"):
        assert key in result
    assert set(result["phase_seconds"]) == {"env", "act", "replay", "train", "sync"}
    assert result["config"]["epochs"] == 8 and result["config"]["seed"] == 3
    assert result["environment"]["tensorflow"].startswith("2.")
    assert model.stat().st_size > 0
    assert "win rate" in proc.stdout


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--batch", "2000"], "error: batch must not exceed memory"),
        (["--epsilon", "1.5"], "error: epsilon must be at most 1"),
        (["--mode", "maze"], "error: argument --mode: invalid choice: 'maze'"),
        (["--epochs", "0"], "error: epochs must be at least 1"),
        (["--epochs", "ten"], "error: epochs must be a whole number, not 'ten'."),
        (["--exec", "fast"], "error: argument --exec: invalid choice: 'fast'"),
        (["--save-model", "agent.h5"], "error: --save-model must name a .keras file"),
    ],
)
def test_invalid_arguments_exit_2_with_one_sentence(args, sentence, tmp_path):
    proc = rlcore("dqn", *args, "--json", str(tmp_path / "never.json"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(sentence)
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "never.json").exists()


def test_gpu_without_a_gpu_exits_2_before_training(tmp_path):
    proc = rlcore("dqn", "--device", "gpu", "--epochs", "2", "--json", str(tmp_path / "never.json"))
    assert proc.returncode == 2
    assert "error: GPU requested but TensorFlow sees none:" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "never.json").exists()


def test_help_documents_every_flag_with_its_default():
    proc = rlcore("dqn", "--help")
    assert proc.returncode == 0
    for flag, default in [("--epochs", "5000"), ("--batch", "200"), ("--memory", "1000"), ("--sync", "500"),
                          ("--epsilon", "0.3"), ("--gamma", "0.9"), ("--lr", "0.001"), ("--exec", "graph"),
                          ("--device", "cpu"), ("--mode", "random"), ("--seed", "0")]:
        assert flag in proc.stdout
        assert f"(default: {default})" in " ".join(proc.stdout.split())


def test_devices_reports_the_cpu_and_says_when_there_is_no_gpu():
    proc = rlcore("devices", "--json")
    card = json.loads(proc.stdout)
    assert card["cores"] >= 1 and card["tensorflow"].startswith("2.")
    if not card["gpus"]:
        assert "no GPU visible to TensorFlow" in rlcore("devices").stdout


def test_hjb_run_writes_the_result_json(tmp_path):
    out = tmp_path / "hjb.json"
    proc = rlcore("hjb", "--preset", "seed", "--steps", "200", "--exec", "graph", "--steps-per-call", "100",
                  "--device", "cpu", "--seed", "1234", "--eval-points", "40", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    for key in ("config", "steps", "train_seconds", "steps_per_second", "final_loss", "grid_k", "V", "c",
                "max_rel_err_V", "max_rel_err_c", "max_abs_residual", "environment"):
        assert key in result
    assert result["steps"] == 200 and len(result["grid_k"]) == 40
    assert result["config"]["steps_per_call"] == 100 and result["config"]["batch_size"] == 100
    assert "max relative error" in proc.stdout


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["--k-min", "10", "--k-max", "1"], "error: k_min must be below k_max"),
        (["--k-min", "0"], "error: k_min must be positive"),
        (["--batch", "0"], "error: batch must be at least 1"),
        (["--depth", "0"], "error: depth must be at least 1"),
        (["--exec", "eager", "--steps-per-call", "10"], "error: steps_per_call above 1 needs a compiled style"),
        (["--preset", "accurate", "--exec", "eager"], "error: steps_per_call above 1 needs a compiled style"),
        (["--preset", "fast"], "error: argument --preset: invalid choice: 'fast'"),
    ],
)
def test_invalid_hjb_arguments_exit_2_with_one_sentence(args, sentence, tmp_path):
    proc = rlcore("hjb", *args, "--json", str(tmp_path / "never.json"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(sentence), proc.stderr
    assert not (tmp_path / "never.json").exists()


def test_operator_hash_prints_a_line_that_verifies_and_never_the_passphrase():
    from rlcore.passphrase import verify

    done = subprocess.run([sys.executable, "-m", "rlcore", "operator-hash"], input="correct horse battery\n",
                          capture_output=True, text=True, env=ENV, timeout=60)
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    assert line.startswith("RLCORE_OPERATOR_HASH='scrypt$") and "correct horse" not in done.stdout
    assert verify("correct horse battery", line.split("'")[1])
    short = subprocess.run([sys.executable, "-m", "rlcore", "operator-hash"], input="short\n", capture_output=True,
                           text=True, env=ENV, timeout=60)
    assert short.returncode == 2 and short.stdout == ""
    assert short.stderr.strip().endswith("the passphrase must have at least 8 characters.")


def test_tensorflow_s_own_log_lines_stay_off_the_terminal_unless_verbose(tmp_path):
    """devices and a turbo run loading XLA's compiled loop from a warm cache print nothing on stderr but their own
    lines (absl, oneDNN, cuInit and XLA cache notices are TensorFlow's, not the user's)."""
    env = ENV | {"RLCORE_HOME": str(tmp_path)}
    devices = subprocess.run([sys.executable, "-m", "rlcore", "devices"], capture_output=True, text=True, env=env,
                             timeout=180)
    assert devices.returncode == 0 and devices.stderr == "" and "TensorFlow 2." in devices.stdout
    turbo = [sys.executable, "-m", "rlcore", "turbo", "--train-seconds", "0.1", "--games", "16", "--test-games", "10",
             "--quiet", "--json", str(tmp_path / "out.json")]
    for expected in ("miss", "hit"):  # the second run loads the first one's programs
        run = subprocess.run(turbo, capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0 and run.stderr == "", run.stderr
        assert json.loads((tmp_path / "out.json").read_text())["xla_cache"] == expected
    verbose = subprocess.run([sys.executable, "-m", "rlcore", "devices", "--verbose"], capture_output=True, text=True,
                             env=env, timeout=180)
    assert verbose.returncode == 0 and "TensorFlow 2." in verbose.stdout  # the same answer, TensorFlow's lines kept


def test_runs_export_tensorboard_writes_event_files_tensorboard_reads_with_the_profile(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import TENSORS, EventAccumulator

    from rlcore.runs import service
    from rlcore.runs.store import Store

    store = Store(tmp_path / "home")
    run_id = service.create_run(store, "dqn", {"epochs": 3}, label="exported")
    store.append_metrics(run_id, [(s, s / 10, "train/loss", 1.0 / s) for s in range(1, 6)]
                         + [(5, 0.5, "throughput/env_steps_per_s", 250.0)])
    capture = store.run_dir(run_id) / "profile" / "plugins" / "profile" / "2026_12_01" / "vm.xplane.pb"
    capture.parent.mkdir(parents=True)
    capture.write_bytes(b"capture")
    store.finish(run_id, "done", summary={"win_rate": 0.5})
    out = tmp_path / "tb"
    env = ENV | {"RLCORE_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "rlcore", "runs", "export", str(run_id), "--tensorboard", str(out)],
                          capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert "tensorboard --logdir" in proc.stdout and "its profile (1 files)" in proc.stdout
    events = EventAccumulator(str(out / f"run{run_id}"), size_guidance={TENSORS: 0}).Reload()
    loss = events.Tensors("train/loss")
    assert [e.step for e in loss] == [1, 2, 3, 4, 5]
    assert [float(tf_value(e)) for e in loss] == pytest.approx([1.0 / s for s in range(1, 6)])
    assert (out / f"run{run_id}" / "plugins" / "profile" / "2026_12_01" / "vm.xplane.pb").read_bytes() == b"capture"
    # TensorBoard's own writer: an export never starts TensorFlow (five seconds of start-up for a few records)
    export = (f"import sys\nfrom rlcore.cli.main import main\ntry:\n    main(['runs', 'export', '{run_id}', "
              "'--tensorboard', sys.argv[1]])\nexcept SystemExit:\n    pass\nprint('tensorflow' in sys.modules)")
    again = subprocess.run([sys.executable, "-c", export, str(tmp_path / "again")], capture_output=True, text=True,
                           env=env, timeout=180)
    assert again.returncode == 0 and again.stdout.strip().endswith("False"), (again.stdout, again.stderr)
    # TensorBoard itself serves them: its fast loader is stricter than EventAccumulator (it showed no scalar of an
    # export written as float64, which EventAccumulator read)
    assert sorted(served_scalars(out).get(f"run{run_id}", {})) == ["throughput/env_steps_per_s", "train/loss"]
    bad = subprocess.run([sys.executable, "-m", "rlcore", "runs", "export", str(run_id), "--tensorboard",
                          str(capture)], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("error: --tensorboard names a file, not a folder")


def served_scalars(logdir) -> dict:
    """The scalar tags TensorBoard's own server lists for ``logdir`` (started on a free loopback port, stopped)."""
    import socket
    import urllib.request
    from pathlib import Path

    from runwait import wait_for

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([str(Path(sys.executable).parent / "tensorboard"), "--logdir", str(logdir), "--host",
                               "127.0.0.1", "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=ENV)

    def listed() -> dict | None:  # it loads the files after it starts serving
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/plugin/scalars/tags", timeout=5) as answer:
                tags = json.loads(answer.read())
        except OSError:
            return None
        return tags if any(tags.values()) else None

    try:
        return wait_for(listed, 180, "TensorBoard to list the export's scalars")
    finally:
        server.kill()
        server.wait(timeout=30)


def tf_value(event):
    from tensorboard.util import tensor_util

    return tensor_util.make_ndarray(event.tensor_proto)


@pytest.mark.parametrize(("args", "sentence"), [
    (["dqn", "--epochs", "9" * 5000], "error: epochs must be a whole number of at most 4,000 digits, not a 5,000"),
    (["runs", "show", "9" * 5000], "error: run must be a run id like 3"),
    (["bench", "--batch", "1," + "0" * 4301], "error: batch must be whole numbers from 1 to 1,000,000"),
    (["sweep", "bench", "--set", "batch=1" + "0" * 4300], "error: Member 1"),
    (["sweep", "dqn", "--grid", "epochs=1,000"], "error: epochs must be at least 1, not 0. Values are separated by"),
    (["dqn", "--json", "x" * 5000 + ".json"], "error: --json cannot be written: File name too long"),
])
def test_odd_input_on_the_command_line_is_one_sentence(tmp_path, args, sentence):
    proc = subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, timeout=120,
                          env=ENV | {"RLCORE_HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stderr.startswith(sentence) and "Traceback" not in proc.stderr, proc.stderr


def test_an_output_path_that_would_block_is_refused_before_any_work(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--json", str(fifo)], capture_output=True,
                          text=True, timeout=60, env=ENV | {"RLCORE_HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stderr.startswith("error: --json names something that is not a regular file")


def test_runs_show_prints_the_numbers_and_the_profile_and_an_unknown_flag_points_to_its_command(tmp_path):
    from rlcore.runs import service
    from rlcore.runs.store import Store

    store = Store(tmp_path)
    run_id = service.create_run(store, "dqn", {"epochs": 40}, label="shown")
    store.finish(run_id, "done", summary={"win_rate": 0.9, "steps_per_second": 250.0, "train_seconds": 4.0,
                                          "profile": {"sentence": "Launch-bound: each step runs 4,250 ops.",
                                                      "findings": [{"cause": "model.predict in a loop",
                                                                    "category": "predict-bound",
                                                                    "seconds_per_step": 0.064, "share": 0.35,
                                                                    "fix": "call the model", "evidence": "1 call"}]}})
    env = ENV | {"RLCORE_HOME": str(tmp_path)}
    shown = subprocess.run([sys.executable, "-m", "rlcore", "runs", "show", str(run_id)], capture_output=True,
                           text=True, timeout=60, env=env)
    lines = shown.stdout.splitlines()
    assert shown.returncode == 0 and lines[0].startswith(f"run {run_id} (dqn, shown): done")
    assert "win rate: 90.0%; env steps/s: 250 steps/s; training time: 4.0 s" in lines
    assert "1. model.predict in a loop: 64 ms per step (35.0% of the step); call the model. [1 call]" in lines
    assert "What TensorFlow recorded: Launch-bound: each step runs 4,250 ops." in lines  # a stored one, kept
    for args, command in ((["runs", "show", str(run_id), "--bogus"], "rlcore runs show"),
                          (["runs", "list", "--bogus"], "rlcore runs list"), (["dqn", "--bogus"], "rlcore dqn")):
        bad = subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, timeout=60,
                             env=env)
        assert bad.returncode == 2 and bad.stderr == f"error: unrecognized arguments: --bogus (see {command} --help)\n"


def test_runs_of_a_workload_this_lab_does_not_have_are_listed_and_shown_in_a_sentence(tmp_path):
    from rlcore.runs.store import Store

    store = Store(tmp_path)
    orphan = store.insert_run("removed-plugin", {"x": 1}, "orphan")
    store.finish(orphan, "done", summary={"score": 0.5})
    env = ENV | {"RLCORE_HOME": str(tmp_path)}
    listed = subprocess.run([sys.executable, "-m", "rlcore", "runs", "list", "--json"], capture_output=True,
                            text=True, timeout=60, env=env)
    assert listed.returncode == 0 and json.loads(listed.stdout)[0]["verdict"]["word"] == "not installed"
    shown = subprocess.run([sys.executable, "-m", "rlcore", "runs", "show", str(orphan)], capture_output=True,
                           text=True, timeout=60, env=env)
    assert shown.returncode == 0 and "This run's kind 'removed-plugin' is not a workload of this lab" in shown.stdout


def test_a_foreground_run_is_stored_with_its_label_and_says_when_it_shared_the_machine(tmp_path):
    """Its help says "a name for the stored run": it is in runs list, and it trained beside another run."""
    from rlcore.runs.store import Store

    store = Store(tmp_path)
    other = store.insert_run("dqn", {"epochs": 300}, "another run", running_pid=os.getpid())  # trains "meanwhile"
    proc = subprocess.run([sys.executable, "-m", "rlcore", "dqn", "--epochs", "3", "--memory", "100", "--batch", "16",
                           "--test-games", "10", "--eval-every", "0", "--quiet", "--label", "mine", "--json",
                           str(tmp_path / "out.json")], capture_output=True, text=True, timeout=300,
                          env=ENV | {"RLCORE_HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("warning: run 2 shared this machine with run 1 while it trained")
    (mine,) = [r for r in store.list_runs() if r.label == "mine"]
    assert mine.status == "done" and mine.summary["shared_machine"]["runs"] == [other]
    assert json.loads((tmp_path / "out.json").read_text())["run_id"] == mine.id
    assert "is not clean" in proc.stdout


def test_runs_are_tagged_untagged_and_found_by_tag_cause_kind_and_speed(tmp_path):
    from rlcore.runs import service
    from rlcore.runs.store import Store

    store = Store(tmp_path)
    slow = service.create_run(store, "dqn", {"epochs": 40}, label="slow port")
    store.finish(slow, "done", summary={"steps_per_second": 10.0, "profile": {
        "version": 2, "verdict": "predict-bound", "step_seconds": 0.1, "findings": [
            {"cause": "predict-bound", "title": "model.predict in a loop", "seconds_per_step": 0.05, "share": 0.5,
             "fix": "call the model", "guide": ""}]}})
    fast = service.create_run(store, "dqn", {"epochs": 40}, label="fixed")
    store.finish(fast, "done", summary={"steps_per_second": 900.0})
    env = ENV | {"RLCORE_HOME": str(tmp_path)}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, timeout=60,
                              env=env)

    assert cli("runs", "tag", str(slow), "baseline", "seed,port").stdout == f"run {slow}: tags baseline, seed, port\n"
    assert cli("runs", "tag", str(fast), "baseline").returncode == 0
    assert cli("runs", "untag", str(slow), "seed").stdout == f"run {slow}: tags baseline, port\n"
    listed = cli("runs", "list", "--tag", "baseline", "--cause", "predict").stdout.splitlines()
    assert len(listed) == 2 and "slow port  [baseline, port]" in listed[1] and "predict-bound" in listed[1]
    assert "fixed" in cli("runs", "list", "--min-speed", "100").stdout
    assert "slow port" not in cli("runs", "list", "--min-speed", "100").stdout
    assert cli("runs", "list", "--tag", "nothing").stdout == "no run matches these filters.\n"
    bad = cli("runs", "tag", str(slow), "a\x1bb")
    assert bad.returncode == 2 and bad.stderr.startswith("error: tag must be printable text"), bad.stderr
    assert cli("runs", "list", "--min-speed", "fast").stderr.startswith("error: --min-speed must be a number")


def test_a_closed_pipe_is_a_normal_end_and_profile_s_errors_name_the_flags_typed(tmp_path):
    env = ENV | {"RLCORE_HOME": str(tmp_path)}
    from rlcore.runs import service
    from rlcore.runs.store import Store

    store = Store(tmp_path)
    for i in range(300):
        service.create_run(store, "dqn", {"epochs": 40}, label=f"run {i}")
    piped = subprocess.run(f"{sys.executable} -m rlcore runs list | head -3", shell=True, capture_output=True,
                           text=True, env=env, timeout=120)
    assert "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr, piped.stderr
    none = subprocess.run([sys.executable, "-m", "rlcore", "profile"], capture_output=True, text=True, env=env,
                          timeout=60)
    assert none.returncode == 2 and none.stderr == "error: profile needs a script to run, like: rlcore profile " \
                                                   "train.py\n"
    script = tmp_path / "t.py"
    script.write_text("print(1)\n")
    steps = subprocess.run([sys.executable, "-m", "rlcore", "profile", "--steps", "-3", str(script)],
                           capture_output=True, text=True, env=env, timeout=60)
    assert steps.returncode == 2 and steps.stderr == "error: --steps must be at least 0, not -3.\n"
