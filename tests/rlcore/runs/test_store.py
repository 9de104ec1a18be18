"""The SQLite store: schema, validation at creation, metrics round trip, delete, and 'worker died'."""

import sqlite3
import subprocess
import sys

import pytest

from rlcore.contract.params import ConfigError
from rlcore.runs import service
from rlcore.runs.store import MIGRATIONS, WORKER_DIED, Store
from rlcore.workloads.dqn.config import DQNConfig


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path)


def test_schema_is_versioned_in_wal_mode_with_foreign_keys(store):
    assert store.schema_version == len(MIGRATIONS)
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    Store(store.home)  # opening again migrates nothing and keeps the data
    assert store.schema_version == len(MIGRATIONS)


def test_a_version_1_store_is_upgraded_in_place_and_keeps_its_runs(tmp_path):
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.executescript(MIGRATIONS[0] + "CREATE TABLE schema_version (version INTEGER NOT NULL);"
                         "INSERT INTO schema_version VALUES (1);"
                         "INSERT INTO runs (kind, config, created) VALUES ('dqn', '{}', 0);")
    store = Store(tmp_path)
    assert store.schema_version == len(MIGRATIONS) > 1
    assert [r.id for r in store.list_runs()] == [1]
    assert store.get_run(1).config["threads"] == 0  # it ran with TensorFlow's default threads, not today's one
    assert store.get_run(service.create_run(store, "dqn", {})).config["threads"] == 1
    with sqlite3.connect(store.path) as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT * FROM metrics WHERE run_id = 1 AND rowid > 5").fetchall()
    assert "metrics_by_run_rowid" in str(plan) and "rowid>?" in str(plan)


def test_metrics_after_returns_only_rows_newer_than_the_last_one_read(store):
    first, other = service.create_run(store, "dqn", {}), service.create_run(store, "dqn", {})
    store.append_metrics(first, [(1, 0.1, "train/loss", 2.0), (2, 0.2, "train/loss", 1.5)])
    store.append_metrics(other, [(1, 0.1, "train/loss", 9.0)])
    seen = store.metrics_after(first)
    assert list(seen["value"]) == [2.0, 1.5]
    store.append_metrics(first, [(3, 0.3, "train/loss", 1.0)])
    new = store.metrics_after(first, int(seen["rowid"].max()))
    assert list(new["value"]) == [1.0] and list(new["step"]) == [3]
    assert store.metrics_after(first, int(new["rowid"].max())).empty


def test_invalid_config_writes_no_row(store):
    with pytest.raises(ConfigError, match="batch must not exceed memory"):
        service.create_run(store, "dqn", {"batch_size": 5000})
    with pytest.raises(ConfigError, match="kind must be one of dqn, turbo, hjb, bench"):
        service.create_run(store, "gan", {})
    assert store.list_runs() == []


def test_run_round_trip_with_metrics_as_a_dataframe(store):
    run_id = service.create_run(store, "dqn", DQNConfig(epochs=7), label="mine")
    run = store.get_run(run_id)
    assert (run.kind, run.status, run.label, run.config["epochs"]) == ("dqn", "queued", "mine", 7)
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 2.0), (2, 0.2, "train/loss", 1.5)])
    store.append_metrics(run_id, [(2, 0.2, "eval/win_rate", 0.5)])
    frame = store.metrics(run_id)
    assert list(frame.columns) == ["run_id", "step", "wall", "name", "value"]
    assert frame["value"].tolist() == [2.0, 1.5, 0.5]
    assert store.metric_count(run_id) == 3


def test_delete_removes_row_metrics_and_artifacts(store):
    run_id = service.create_run(store, "hjb", {})
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 2.0)])
    store.run_dir(run_id).mkdir(parents=True)
    (store.run_dir(run_id) / "model.keras").write_bytes(b"x")
    with pytest.raises(ValueError, match=f"run {run_id} is still queued or running; cancel it first."):
        store.delete_run(run_id)  # its worker would write into a missing row
    assert store.metric_count(run_id) == 1
    store.finish(run_id, "cancelled")
    assert store.delete_run(run_id)
    assert store.get_run(run_id) is None
    assert store.metric_count(run_id) == 0
    assert not store.run_dir(run_id).exists()


def test_a_running_run_whose_worker_is_gone_is_failed_worker_died(store):
    run_id = service.create_run(store, "dqn", {})
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert store.mark_running(run_id, gone.pid, {"cpu": "test"})
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 2.0)])
    run = store.get_run(run_id)
    assert (run.status, run.error) == ("failed", WORKER_DIED)
    assert store.metric_count(run_id) == 1


def test_cancelling_a_queued_run_is_immediate(store):
    run_id = service.create_run(store, "dqn", {})
    store.request_cancel(run_id)
    assert store.get_run(run_id).status == "cancelled"


def test_watching_counts_the_time_any_live_view_was_open_while_the_run_ran_once(store):
    import os

    run_id = service.create_run(store, "dqn", {})
    store.note_watched(run_id, 1.0, now=10.0)  # queued: not yet running, nothing to distort
    assert store.get_run(run_id).watched_seconds == 0
    store.mark_running(run_id, os.getpid(), {})
    t0 = store.get_run(run_id).started
    for tick in range(1, 11):  # a view at 1 s for 10 s ...
        store.note_watched(run_id, 1.0, now=t0 + tick)
    for tick in range(2, 11, 2):  # ... and a second one at 5 s meanwhile: counted once
        store.note_watched(run_id, 5.0, now=t0 + tick + 0.5)
    store.note_watched(run_id, 5.0, now=t0 + 40)  # a view opened again after 29 s with none: 5 s more
    run = store.get_run(run_id)
    assert run.watched_seconds == pytest.approx(10.5 + 5.0) and run.watch_refresh == 1.0
    store.finish(run_id, "done", summary={})
    store.note_watched(run_id, 1.0, now=t0 + 60)  # ended: a view of the result costs it nothing
    assert store.get_run(run_id).watched_seconds == pytest.approx(15.5)
    unwatched = service.create_run(store, "dqn", {})
    assert (store.get_run(unwatched).watched_seconds, store.get_run(unwatched).watch_refresh) == (0.0, None)


def test_a_store_from_a_newer_lab_is_refused_in_one_sentence_and_left_as_it_is(tmp_path):
    from rlcore.runs.store import StoreError

    Store(tmp_path)
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    with pytest.raises(StoreError, match=r"was written by a newer version of the lab \(store version") as e:
        Store(tmp_path)
    assert e.value.kind == "newer"
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        assert db.execute("SELECT version FROM schema_version").fetchone()[0] == len(MIGRATIONS) + 1
