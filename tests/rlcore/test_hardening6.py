"""Hardening, round 6: what last round added (fix runs, cause plug-ins, tags and search, ``rlcore.init``, stored
profiles, viewers) given an adversary's inputs. Each test names what main did before; each asserts the one sentence,
the exit code, and that every other run still lists, shows and exports."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from test_hardening import rlcore, script, tape_steps

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
        assert any(line.split()[:1] == [str(run_id)] for line in listed.stdout.splitlines()), (shape, listed.stdout)
    assert "predict-bound" in listed.stdout  # the good run's verdict stands beside them
    found = rlcore(tmp_path, "runs", "list", "--cause", "predict")
    assert [line.split()[0] for line in found.stdout.splitlines()[1:] if line.strip()] == [str(good)]
    for shape, run_id in bad.items():
        shown = rlcore(tmp_path, "runs", "show", str(run_id))
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, (shape, shown.stderr)
        assert "stored profile is damaged" in shown.stdout, (shape, shown.stdout)
    for run_id in (good, bad["version text"], bad["a count of 10**400"]):
        exported = rlcore(tmp_path, "runs", "export", str(run_id), "--tensorboard", str(tmp_path / f"tb{run_id}"))
        assert exported.returncode == 0 and "Traceback" not in exported.stderr, exported.stderr


def test_the_runs_page_and_a_run_s_view_stand_over_damaged_profiles(tmp_path, monkeypatch):
    _, good, bad = damaged_store(tmp_path)
    monkeypatch.setenv("RLCORE_HOME", str(tmp_path / "home"))
    from pagetest import fixed_device_card, link_tables, open_page

    fixed_device_card(monkeypatch)
    at = open_page("runs", {})
    assert not at.exception
    assert len(link_tables(at)[0]["rows"]) == 1 + len(bad)  # every run listed
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
