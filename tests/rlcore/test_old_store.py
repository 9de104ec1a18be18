"""A store made before the typed profile (a real one: runs 1-4 made by the lab at a4181c9, schema version 7: an HJB
run, a naive DQN port and a script profiled, a turbo run with on/off switches) opens today: its configs upgraded
(switches are booleans), its profiles read as typed ones (their findings' categories become causes, their sentences
kept), shown, compared and exported with no traceback."""

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
    turbo = old.get_run(2)
    assert turbo.config["turbo_xla"] is False and turbo.config["turbo_double"] is False
    assert turbo.config["turbo_pit_ends"] is True
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
