"""The run store: one SQLite file (WAL), runs + metrics + artifacts, the single source of truth.

Every method opens its own short connection, so the store can be used from Streamlit's threads and
from several worker processes at once; SQLite's busy timeout serialises the writers.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rlcore.config import BenchConfig, ConfigError, DQNConfig, HJBConfig, from_dict

KINDS: dict[str, type] = {"dqn": DQNConfig, "hjb": HJBConfig, "bench": BenchConfig}
STATUSES = ("queued", "running", "done", "failed", "cancelled", "diverged")
ACTIVE = ("queued", "running")
WORKER_DIED = "worker died"
HEARTBEAT_STALE_SECONDS = 30.0

# Each entry upgrades the schema by one version; the list index + 1 is the version it produces.
MIGRATIONS = [
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'queued',
        config TEXT NOT NULL,
        environment TEXT,
        label TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        started REAL,
        finished REAL,
        pid INTEGER,
        heartbeat REAL,
        summary TEXT,
        error TEXT,
        cancel_requested INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE metrics (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        wall REAL NOT NULL,
        name TEXT NOT NULL,
        value REAL NOT NULL
    );
    CREATE INDEX metrics_by_run ON metrics(run_id, name, step);
    CREATE INDEX runs_by_status ON runs(status, id);
    """,
    # A live view asks for rows after the last one it has; an index on run_id alone ends in rowid, so that is a
    # range scan instead of a walk over the run's whole history.
    """
    CREATE INDEX metrics_by_run_rowid ON metrics(run_id);
    """,
]


def default_home() -> Path:
    return Path(os.environ.get("RLCORE_HOME", ".rlcore"))


@dataclass(frozen=True)
class Run:
    """One row of the runs table, with its JSON columns decoded."""

    id: int
    kind: str
    status: str
    config: dict[str, Any]
    environment: dict[str, Any] | None
    label: str
    created: float
    started: float | None
    finished: float | None
    pid: int | None
    heartbeat: float | None
    summary: dict[str, Any] | None
    error: str | None
    cancel_requested: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _decode(row: sqlite3.Row) -> Run:
    values = dict(row)
    for key in ("config", "environment", "summary"):
        values[key] = json.loads(values[key]) if values[key] else None
    values["cancel_requested"] = bool(values["cancel_requested"])
    return Run(**values)


def _pid_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet reaped by its parent) is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return True


class Store:
    """Runs, metrics and artifacts under one directory (``$RLCORE_HOME``, default ./.rlcore)."""

    def __init__(self, home: str | Path | None = None) -> None:
        self.home = Path(home) if home is not None else default_home()
        self.home.mkdir(parents=True, exist_ok=True)
        self.path = self.home / "runs.sqlite"
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            self._migrate(db)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        try:
            yield db
        finally:
            db.close()

    def _migrate(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else 0
            for script in MIGRATIONS[version:]:
                for statement in filter(str.strip, script.split(";")):
                    db.execute(statement)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (?)", (len(MIGRATIONS),))
            else:
                db.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT version FROM schema_version").fetchone()[0]

    # ------------------------------------------------------------ runs

    def create_run(self, kind: str, config: dict[str, Any] | Any, label: str = "") -> int:
        """Validate the config and insert a queued run; an invalid config writes nothing."""
        if kind not in KINDS:
            raise ConfigError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}.")
        values = config if isinstance(config, dict) else asdict(config)
        validated = asdict(from_dict(KINDS[kind], values))
        with self._connect() as db:
            cur = db.execute("INSERT INTO runs (kind, config, label, created) VALUES (?, ?, ?, ?)",
                             (kind, json.dumps(validated), label, time.time()))
            return int(cur.lastrowid)

    def get_run(self, run_id: int) -> Run | None:
        self.reconcile()
        with self._connect() as db:
            row = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return _decode(row) if row else None

    def list_runs(self) -> list[Run]:
        self.reconcile()
        with self._connect() as db:
            return [_decode(r) for r in db.execute("SELECT * FROM runs ORDER BY id DESC")]

    def set_pid(self, run_id: int, pid: int) -> None:
        with self._connect() as db:
            db.execute("UPDATE runs SET pid = ?, heartbeat = ? WHERE id = ?", (pid, time.time(), run_id))

    def oldest_queued(self) -> int | None:
        with self._connect() as db:
            row = db.execute("SELECT id FROM runs WHERE status = 'queued' ORDER BY id LIMIT 1").fetchone()
        return row[0] if row else None

    def mark_running(self, run_id: int, pid: int, environment: dict[str, Any]) -> bool:
        """queued -> running; False when the run is no longer queued (cancelled meanwhile)."""
        now = time.time()
        with self._connect() as db:
            cur = db.execute(
                "UPDATE runs SET status = 'running', pid = ?, started = ?, heartbeat = ?, environment = ? "
                "WHERE id = ? AND status = 'queued'", (pid, now, now, json.dumps(environment), run_id))
            return cur.rowcount == 1

    def heartbeat(self, run_id: int) -> bool:
        """Record that the worker lives; returns whether a cancel was asked for."""
        with self._connect() as db:
            db.execute("UPDATE runs SET heartbeat = ? WHERE id = ?", (time.time(), run_id))
            row = db.execute("SELECT cancel_requested FROM runs WHERE id = ?", (run_id,)).fetchone()
        return bool(row and row[0])

    def finish(self, run_id: int, status: str, *, summary: dict[str, Any] | None = None,
               error: str | None = None) -> None:
        if status not in STATUSES or status in ACTIVE:
            raise ValueError(f"not a final status: {status!r}")
        with self._connect() as db:
            db.execute("UPDATE runs SET status = ?, finished = ?, summary = ?, error = ? WHERE id = ? "
                       "AND status IN ('queued', 'running')",
                       (status, time.time(), json.dumps(summary) if summary is not None else None, error, run_id))

    def request_cancel(self, run_id: int) -> None:
        """Flag the run; a queued run is cancelled at once, a running one by its worker."""
        with self._connect() as db:
            db.execute("UPDATE runs SET cancel_requested = 1 WHERE id = ?", (run_id,))
            db.execute("UPDATE runs SET status = 'cancelled', finished = ? WHERE id = ? AND status = 'queued'",
                       (time.time(), run_id))

    def reconcile(self) -> None:
        """A live-looking run whose worker is gone (pid dead, or silent too long) failed: 'worker died'."""
        now = time.time()
        with self._connect() as db:
            rows = db.execute("SELECT id, pid, heartbeat, status FROM runs WHERE status IN ('queued', 'running') "
                              "AND pid IS NOT NULL").fetchall()
            for run_id, pid, beat, status in rows:
                stale = status == "running" and beat is not None and now - beat > HEARTBEAT_STALE_SECONDS
                if not _pid_alive(pid) or stale:
                    db.execute("UPDATE runs SET status = 'failed', error = ?, finished = ? WHERE id = ? AND "
                               "status IN ('queued', 'running')", (WORKER_DIED, now, run_id))

    def delete_run(self, run_id: int) -> bool:
        """Delete the row, its metrics and its artifacts together; a live run must be cancelled first."""
        with self._connect() as db:
            cur = db.execute("DELETE FROM runs WHERE id = ? AND status NOT IN ('queued', 'running')", (run_id,))
            if cur.rowcount == 0 and self.get_run(run_id) is not None:
                raise ValueError(f"run {run_id} is still queued or running; cancel it first.")
        shutil.rmtree(self.run_dir(run_id), ignore_errors=True)
        return cur.rowcount == 1

    # ------------------------------------------------------------ metrics and artifacts

    def append_metrics(self, run_id: int, rows: Iterable[tuple[int, float, str, float]]) -> None:
        """Append (step, wall seconds, name, value) rows in one transaction."""
        with self._connect() as db:
            db.execute("BEGIN")
            db.executemany("INSERT INTO metrics (run_id, step, wall, name, value) VALUES (?, ?, ?, ?, ?)",
                           ((run_id, s, w, n, v) for s, w, n, v in rows))
            db.execute("COMMIT")

    def metric_count(self, run_id: int) -> int:
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM metrics WHERE run_id = ?", (run_id,)).fetchone()[0]

    def metrics(self, run_ids: int | Iterable[int]) -> pd.DataFrame:
        """Long-format metrics (run_id, step, wall, name, value) of one run or many."""
        ids = [run_ids] if isinstance(run_ids, int) else list(run_ids)
        marks = ",".join("?" * len(ids))
        with self._connect() as db:
            return pd.read_sql_query(
                f"SELECT run_id, step, wall, name, value FROM metrics WHERE run_id IN ({marks}) "
                "ORDER BY run_id, rowid", db, params=ids)

    def metrics_after(self, run_id: int, after_rowid: int = 0) -> pd.DataFrame:
        """Rows of one run appended after ``after_rowid`` (with their ``rowid``), so a live view reads only new ones."""
        with self._connect() as db:
            return pd.read_sql_query(
                "SELECT rowid, run_id, step, wall, name, value FROM metrics WHERE run_id = ? AND rowid > ? "
                "ORDER BY rowid", db, params=(run_id, after_rowid))

    def run_dir(self, run_id: int) -> Path:
        return self.home / "runs" / str(run_id)

    def integrity_check(self) -> str:
        with self._connect() as db:
            return db.execute("PRAGMA integrity_check").fetchone()[0]
