"""The SQLite store: schema, validation at creation, metrics round trip, delete, and 'worker died'."""

import sqlite3
import subprocess
import sys

import pytest

from rlcore.config import ConfigError, DQNConfig
from rlcore.runs.store import MIGRATIONS, WORKER_DIED, Store


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
    with sqlite3.connect(store.path) as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT * FROM metrics WHERE run_id = 1 AND rowid > 5").fetchall()
    assert "metrics_by_run_rowid" in str(plan) and "rowid>?" in str(plan)


def test_metrics_after_returns_only_rows_newer_than_the_last_one_read(store):
    first, other = store.create_run("dqn", {}), store.create_run("dqn", {})
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
        store.create_run("dqn", {"batch_size": 5000})
    with pytest.raises(ConfigError, match="kind must be one of dqn, hjb, bench"):
        store.create_run("gan", {})
    assert store.list_runs() == []


def test_run_round_trip_with_metrics_as_a_dataframe(store):
    run_id = store.create_run("dqn", DQNConfig(epochs=7), label="mine")
    run = store.get_run(run_id)
    assert (run.kind, run.status, run.label, run.config["epochs"]) == ("dqn", "queued", "mine", 7)
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 2.0), (2, 0.2, "train/loss", 1.5)])
    store.append_metrics(run_id, [(2, 0.2, "eval/win_rate", 0.5)])
    frame = store.metrics(run_id)
    assert list(frame.columns) == ["run_id", "step", "wall", "name", "value"]
    assert frame["value"].tolist() == [2.0, 1.5, 0.5]
    assert store.metric_count(run_id) == 3


def test_delete_removes_row_metrics_and_artifacts(store):
    run_id = store.create_run("hjb", {})
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
    run_id = store.create_run("dqn", {})
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert store.mark_running(run_id, gone.pid, {"cpu": "test"})
    store.append_metrics(run_id, [(1, 0.1, "train/loss", 2.0)])
    run = store.get_run(run_id)
    assert (run.status, run.error) == ("failed", WORKER_DIED)
    assert store.metric_count(run_id) == 1


def test_cancelling_a_queued_run_is_immediate(store):
    run_id = store.create_run("dqn", {})
    store.request_cancel(run_id)
    assert store.get_run(run_id).status == "cancelled"
