"""Stores made by earlier versions of the lab open today. One made before the typed profile (a real one: runs 1-4
made by the lab at a4181c9, schema version 7: an HJB run, a naive DQN port and a script profiled, a turbo run with
on/off switches): its configs upgraded (switches are booleans, the turbo run a turbo workload's), its profiles read as
typed ones (their findings' categories become causes, their sentences kept), shown, compared and exported with no
traceback. One made before turbo had its own config (below)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pagetest import fixed_device_card, open_page

from rlcore.contract import profile_text
from rlcore.contract.profile import Cause, of_summary
from rlcore.runs.store import Store

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "store_before_typed_profile.sqlite"


@pytest.fixture
def old(tmp_path, monkeypatch):
    shutil.copy(FIXTURE, tmp_path / "runs.sqlite")
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)
    return Store(tmp_path)


def test_its_configs_upgrade_and_its_profiles_read_as_typed_ones(old):
    assert old.schema_version >= 8
    turbo = old.get_run(2)  # the DQN's turbo style then: a workload of its own now, in its own names
    assert turbo.kind == "turbo" and turbo.config["xla"] is False and turbo.config["double"] is False
    assert turbo.config["pit_ends"] is True and "exec_mode" not in turbo.config and "learning_rate" in turbo.config
    assert turbo.config["tau"] == 0.0  # it copied its target every sync updates; today's default is soft
    assert turbo.config["test_average"] is False  # its test played the online net
    naive = of_summary(old.get_run(3).summary)
    assert naive.ok and naive.findings and naive.findings[0].cause == Cause.PREDICT
    assert naive.findings[0].title == "model.predict in a loop"
    assert profile_text.sentence(naive).startswith("model.predict in a loop: ")  # the stored sentence, as it was
    seed = of_summary(old.get_run(4).summary)
    assert seed.ok and seed.gpu_estimate is not None and seed.gpu_estimate.launches_per_step > 0
    hjb = of_summary(old.get_run(1).summary)
    assert hjb.ok and hjb.steps == 20 and profile_text.reading(hjb)


def test_its_runs_open_compare_and_export(old, tmp_path):
    for run_id, page in ((3, "dqn"), (1, "hjb"), (4, "runs")):
        at = open_page(page, {"run": str(run_id)})
        assert not at.exception, (run_id, at.exception)
        assert any(s.value.startswith("Why it is this fast") for s in at.subheader), run_id
    at = open_page("runs", {"runs": "1,3,4"})
    assert not at.exception
    at = open_page("runs", {"runs": "2,3"})  # turbo and the port, as the seed's comparison
    assert not at.exception
    env = os.environ | {"RLCORE_HOME": str(tmp_path)}
    for args in (["runs", "list"], ["runs", "show", "3"], ["runs", "export", "3", "--tensorboard",
                                                            str(tmp_path / "tb")]):
        done = subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=env,
                              timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
    assert "model.predict in a loop" in subprocess.run([sys.executable, "-m", "rlcore", "runs", "show", "3"],
                                                       capture_output=True, text=True, env=env, timeout=120).stdout


BEFORE_TURBO = Path(__file__).resolve().parents[1] / "fixtures" / "store_before_turbo_kind.sqlite"


def test_a_store_from_before_turbo_had_its_own_config_opens_lists_compares_and_exports(tmp_path, monkeypatch):
    """A real store made by the lab at 2d5e758 (schema version 10, turbo then the DQN's style): run 1 turbo, run 2
    the book's loop in graph, sweep 1 over turbo's learning rate (runs 3, 4). Its turbo runs and sweep are the
    turbo workload's now, in turbo's own names, with nothing the book loop's settings said; the rest as it was."""
    from rlcore.contract import workloads

    shutil.copy(BEFORE_TURBO, tmp_path / "runs.sqlite")
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path))
    fixed_device_card(monkeypatch)
    store = Store(tmp_path)
    turbo, graph = store.get_run(1), store.get_run(2)
    assert turbo.kind == "turbo" and graph.kind == "dqn" and graph.config["exec_mode"] == "graph"
    assert {k: turbo.config[k] for k in ("learning_rate", "games", "batch", "memory", "xla", "train_seconds")} == {
        "learning_rate": 0.02, "games": 16, "batch": 16, "memory": 512, "xla": False, "train_seconds": 0.1}
    assert not {"epochs", "exec_mode", "epsilon", "threads"} & set(turbo.config)  # the book's; turbo never read them
    assert turbo.config["hidden1"] == 64  # turbo's own network (turbo_hidden1), not the book's 150
    assert turbo.config["tau"] == 0.0 and "tau" not in graph.config
    assert turbo.config["test_average"] is False and "test_average" not in graph.config
    (sweep,) = store.list_sweeps()
    assert sweep.kind == "turbo" and sweep.space["grid"] == {"learning_rate": [0.003, 0.01]}
    # Its fixed values say what its members ran (a copied target, the online net tested), so a member it adds
    # later runs as they did.
    assert sweep.base == {"train_seconds": 0.1, "games": 16, "batch": 16, "memory": 512, "xla": False,
                          "test_games": 10, "tau": 0.0, "test_average": False, "hidden1": 64}
    members = store.sweep_runs(sweep.id)
    assert [r.kind for r in members] == ["turbo", "turbo"]
    assert all(r.config["tau"] == 0.0 and r.config["test_average"] is False for r in members)
    for run in (turbo, graph, *members):  # every stored config is a valid one of its workload today
        workloads.get(run.kind).make_config(run.config)
    for page, query in (("turbo", {"run": "1"}), ("dqn", {"run": "1"}), ("runs", {"runs": "1,2"}),
                        ("sweeps", {"sweep": "1"}), ("runs", {})):
        at = open_page(page, query)
        assert not at.exception and not at.warning, (page, query)
    env = os.environ | {"RLCORE_HOME": str(tmp_path)}
    for args in (["runs", "list"], ["runs", "show", "1"], ["sweeps", "show", "1"],
                 ["runs", "export", "1", "--tensorboard", str(tmp_path / "tb")]):
        done = subprocess.run([sys.executable, "-m", "rlcore", *args], capture_output=True, text=True, env=env,
                              timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (args, done.stderr)
        if args[:2] == ["runs", "show"]:
            assert "turbo" in done.stdout
