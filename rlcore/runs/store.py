"""The run store: one SQLite file (WAL), runs + metrics + artifacts, the single source of truth. It stores: what a
run's config means is the workloads' business (``rlcore.runs.service`` validates and names runs before they are
stored), and whether a run's process still lives is its executor's (each executor's ``reconcile``, asked before
every read).

Every method opens its own short connection, so the store can be used from Streamlit's threads and
from several worker processes at once; SQLite's busy timeout serialises the writers. Every storage fault
(a read-only, full, damaged or missing store) surfaces as ``StoreError`` with one sentence that says what to
do; a read-only store still opens for reading, so pages that only look keep working.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import shutil
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import pandas as pd

from rlcore.contract import settings
from rlcore.contract.params import LABEL_MAX, NOTES_MAX, ConfigError, check_text
from rlcore.contract.status import LIVE, RunStatus
from rlcore.contract.summary import RunSummary
from rlcore.contract.summary import of as summary_of
from rlcore.contract.workloads import WORKLOADS

STATUSES = tuple(RunStatus)
ACTIVE = LIVE
WORKER_DIED = "worker died"
HEARTBEAT_STALE_SECONDS = 30.0  # no heartbeat for this long: the run is "unresponsive" (not dead)
TAG_MAX, MAX_TAGS = 40, 20  # characters of a tag, tags of a run
START_GRACE_SECONDS = 60.0  # a queued local run older than this, with no queue runner alive, never starts
HOST = socket.gethostname()

# Each entry upgrades the schema by one version; the list index + 1 is the version it produces. A string is SQL;
# a callable gets the connection (for changes to stored values).
MIGRATIONS: list[Any] = [
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
    # What a run came from (preset), what people wrote about it (notes), where it is (progress, phase), who runs
    # it (executor, host); and the store's identity, which names artifact folders so a new store never offers an
    # old store's files for a reused id (pre-existing stores keep plain ids: theirs are never reused).
    """
    ALTER TABLE runs ADD COLUMN preset TEXT;
    ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
    ALTER TABLE runs ADD COLUMN progress REAL;
    ALTER TABLE runs ADD COLUMN phase TEXT;
    ALTER TABLE runs ADD COLUMN executor TEXT NOT NULL DEFAULT 'local';
    ALTER TABLE runs ADD COLUMN host TEXT;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
]


def _upgrade_configs(db: sqlite3.Connection, version: int) -> None:
    """Stored configs in the form the workloads read today: each workload says how its configs changed at this
    store version (``Workload.upgrades``); kinds no workload of this lab has are kept as they are. From store
    version 12 on a sweep's fixed values too, so members it adds later (more seeds) run as its first ones did (the
    upgrades before it were written for whole run configs, and left sweeps' bases alone)."""
    stored = [("runs", "config")] + ([("sweeps", "base")] if version >= 12 else [])
    for table, column in stored:
        for row_id, kind, text in db.execute(f"SELECT id, kind, {column} FROM {table}").fetchall():
            upgrade = WORKLOADS.get(kind).upgrades.get(version) if WORKLOADS.has(kind) else None
            try:
                config = json.loads(text)
            except (ValueError, TypeError):
                continue  # a hand-damaged row stays as it is (it reads as damaged)
            if upgrade is not None and isinstance(config, dict):
                db.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?", (json.dumps(upgrade(config)), row_id))


def _migrate_v4_store_id(db: sqlite3.Connection) -> None:
    """Store ids for artifact folders (a store made anew never offers an old store's files for a reused id), and
    configs as the workloads upgraded them at this version."""
    had_runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] > 0
    db.execute("INSERT OR IGNORE INTO meta VALUES ('store_id', ?)", ("" if had_runs else uuid.uuid4().hex[:8],))
    _upgrade_configs(db, 4)


MIGRATIONS.append(_migrate_v4_store_id)
# Sweeps: many runs of one workload made from a search space; each member run names its sweep.
MIGRATIONS.append("""
    CREATE TABLE sweeps (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        label TEXT NOT NULL DEFAULT '',
        preset TEXT,
        base TEXT NOT NULL,
        space TEXT NOT NULL,
        created REAL NOT NULL
    );
    ALTER TABLE runs ADD COLUMN sweep_id INTEGER REFERENCES sweeps(id);
    CREATE INDEX runs_by_sweep ON runs(sweep_id);
""")
# Watching: how long a live view of a run was open while it ran, and its fastest refresh (watching costs the run
# throughput on a small machine, so its numbers say so).
MIGRATIONS.append("""
    ALTER TABLE runs ADD COLUMN watched_seconds REAL NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN watched_until REAL;
    ALTER TABLE runs ADD COLUMN watch_refresh REAL;
""")


MIGRATIONS.append(lambda db: _upgrade_configs(db, 7))  # the threads setting: runs before it ran with the default
MIGRATIONS.append(lambda db: _upgrade_configs(db, 8))  # on/off settings became booleans


def _migrate_v9_values_may_be_missing(db: sqlite3.Connection) -> None:
    """A metric's value may be NaN (SQLite keeps it as NULL: read back as NaN, charted as a gap), so a value the
    code logged can never fail a run; and a run started by a person's own process (rlcore.init, the CLI in the
    foreground) says so, so a cancel asks that process and never kills it."""
    for statement in ("""CREATE TABLE metrics_v9 (
                            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                            step INTEGER NOT NULL, wall REAL NOT NULL, name TEXT NOT NULL, value REAL)""",
                      "INSERT INTO metrics_v9 (rowid, run_id, step, wall, name, value) "
                      "SELECT rowid, run_id, step, wall, name, value FROM metrics",
                      "DROP TABLE metrics",
                      "ALTER TABLE metrics_v9 RENAME TO metrics",
                      "CREATE INDEX metrics_by_run ON metrics(run_id, name, step)",
                      "CREATE INDEX metrics_by_run_rowid ON metrics(run_id)",
                      "ALTER TABLE runs ADD COLUMN own_process INTEGER NOT NULL DEFAULT 0"):
        db.execute(statement)


MIGRATIONS.append(_migrate_v9_values_may_be_missing)
MIGRATIONS.append("ALTER TABLE runs ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'")  # what people file runs under


def _move_runs(db: sqlite3.Connection, version: int) -> None:
    """Runs and sweeps whose values belong to another workload from this store version (``Workload.moved``: a
    style that became a workload of its own) change kind and take that workload's values. A sweep moves when its
    fixed values do and its space does not vary the style (a sweep across both stays; its members move)."""
    for _, workload in WORKLOADS.items():
        if workload.moved_at != version:
            continue
        for run_id, text in db.execute("SELECT id, config FROM runs WHERE kind = ?", (workload.kind,)).fetchall():
            moved = workload.moved(_json_object(text))
            if moved is not None:
                db.execute("UPDATE runs SET kind = ?, config = ? WHERE id = ?",
                           (moved.kind, json.dumps(moved.values), run_id))
        for sweep_id, base_text, space_text in db.execute("SELECT id, base, space FROM sweeps WHERE kind = ?",
                                                          (workload.kind,)).fetchall():
            base, space = _json_object(base_text), _json_object(space_text)
            moved = workload.moved(base)
            style = {workload.style_field: base.get(workload.style_field)} if workload.style_field else {}
            parts = {part: workload.moved(style | dict(space.get(part) or {})) for part in ("grid", "ranges")}
            if moved is None or any(p is None for p in parts.values()):
                continue
            space |= {part: p.values for part, p in parts.items()}
            db.execute("UPDATE sweeps SET kind = ?, base = ?, space = ? WHERE id = ?",
                       (moved.kind, json.dumps(moved.values), json.dumps(space), sweep_id))


def _json_object(text: str | None) -> dict[str, Any]:
    """A stored JSON object; a hand-damaged value reads as empty (it moves nowhere and stays as it is)."""
    try:
        value = json.loads(text or "")
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}



def _migrate_v11_styles_moved(db: sqlite3.Connection) -> None:
    """A style that became a workload of its own (the DQN's turbo): its runs move first, then the configs left
    behind drop what only it read."""
    _move_runs(db, 11)
    _upgrade_configs(db, 11)


MIGRATIONS.append(_migrate_v11_styles_moved)
MIGRATIONS.append(lambda db: _upgrade_configs(db, 12))  # turbo's soft target: runs before it copied every sync
MIGRATIONS.append(lambda db: _upgrade_configs(db, 13))  # turbo's averaged test: runs before it played the online net


class StoreError(RuntimeError):
    """The store cannot do what was asked; the message is one sentence. ``kind`` is read-only, full, damaged,
    missing, busy, newer, forbidden or other."""

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


FULL_BELOW_BYTES = 1 << 20
ROOM_FOR_A_RUN_BYTES = 2 << 20  # a run's reserve (a megabyte, runs.lifecycle.SpaceReserve) and its first rows


def storage_fault(error: BaseException, path: Path | None = None) -> str:
    """What kind of storage fault an exception is (a disk I/O error on a disk with no room left is a full disk:
    SQLite says so when it cannot even make the small shared-memory file of its write-ahead log)."""
    text = str(error).lower()
    if "readonly" in text or "read-only" in text or isinstance(error, PermissionError):
        return "read-only"
    if "disk is full" in text or "no space" in text or getattr(error, "errno", None) == 28:
        return "full"
    if "disk i/o error" in text and path is not None:
        with contextlib.suppress(OSError):
            if shutil.disk_usage(path.parent).free < FULL_BELOW_BYTES:
                return "full"
    if "not a database" in text or "malformed" in text or "file is encrypted" in text:
        return "damaged"
    if "unable to open" in text and path is not None and path.is_file():
        return "read-only"  # it is there but cannot be opened to write (its folder refuses the journal's files)
    if "unable to open" in text or isinstance(error, FileNotFoundError):
        return "missing"
    if "locked" in text or "busy" in text:
        return "busy"
    return "other"


def shown_path(path: Path | str, limit: int = 200) -> str:
    """A path in a sentence: whole when it is short, its start and end around "…" when it runs to thousands of
    characters (a sentence is for reading)."""
    text = str(path)
    return text if len(text) <= limit else f"{text[:limit - 70]}…{text[-60:]} ({len(text):,} characters)"


def store_error(error: BaseException, path: Path) -> StoreError:
    """The one sentence for a storage fault, with what to do about it."""
    kind = storage_fault(error, path)
    if getattr(error, "errno", None) == errno.ENAMETOOLONG:
        return StoreError(f"The run store's path is too long for this file system ({shown_path(path, 120)}); point "
                          "RLCORE_HOME at a shorter path.", "missing")
    path = shown_path(path)  # type: ignore[assignment]
    sentences = {
        "read-only": f"The run store at {path} is read-only, so nothing can be launched, changed or recorded; "
                     "point RLCORE_HOME at a writable directory (stored runs can still be looked at).",
        "full": f"The disk holding the run store at {path} is full; free some space, then try again (what was "
                "stored before is kept).",
        "damaged": f"The run store at {path} is damaged (not a readable SQLite database); move it aside (for "
                   f"example mv {path} {path}.damaged) and a new, empty store is made on the next start.",
        "missing": f"The run store at {path} cannot be opened (its directory is missing or not accessible); point "
                   "RLCORE_HOME at a directory this user can write.",
        "busy": f"The run store at {path} stayed busy for 30 s (another process holds it); try again.",
    }
    other = f"The run store at {path} failed: {str(error).strip() or type(error).__name__}."
    return StoreError(sentences.get(kind, other), kind)


def default_home() -> Path:
    return settings.HOME.path()


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
    summary: RunSummary | None
    error: str | None
    cancel_requested: bool
    preset: str | None = None
    notes: str = ""
    progress: float | None = None
    phase: str | None = None
    executor: str = "local"
    host: str | None = None
    sweep_id: int | None = None
    watched_seconds: float = 0.0  # how long a live view was open while it ran (0: nobody watched)
    watch_refresh: float | None = None  # the fastest refresh period of those views, seconds
    own_process: bool = False  # started by a person's own process (rlcore.init, the CLI in the foreground)
    tags: tuple[str, ...] = ()  # what people file the run under ("baseline"), in the order they gave
    damaged: str = ""  # why a stored column could not be read (a hand-edited row): the rest of the run stands

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def live(self) -> bool:
        return self.status in ACTIVE

    def unresponsive_for(self, now: float | None = None) -> float | None:
        """Seconds since the last heartbeat of a running run that has gone quiet (None while it beats)."""
        if self.status != RunStatus.RUNNING or self.heartbeat is None:
            return None
        quiet = (now or time.time()) - self.heartbeat
        return quiet if quiet > HEARTBEAT_STALE_SECONDS else None


_RUN_COLUMNS = [f.name for f in fields(Run) if f.name != "damaged"]


@dataclass(frozen=True)
class Sweep:
    """One row of the sweeps table: a workload, fixed values and a search space (JSON decoded)."""

    id: int
    kind: str
    label: str
    preset: str | None
    base: dict[str, Any]
    space: dict[str, Any]
    created: float


def _decode(row: sqlite3.Row) -> Run:
    """A run as stored; a column that is not what the lab wrote (a hand-edited row: not JSON, a summary that is no
    object) reads as empty, and ``damaged`` says which, so one row never takes down a page or a command."""
    values = {k: row[k] for k in _RUN_COLUMNS}
    damaged = []
    for key in ("config", "environment", "summary"):
        try:
            value = json.loads(values[key]) if values[key] else None
        except (ValueError, TypeError):
            value = None
        if values[key] and not isinstance(value, dict):
            damaged.append(key)
            value = None
        values[key] = value
    if values["config"] is None:
        values["config"] = {}
    values["summary"] = summary_of(values["summary"])  # typed where every part reads it, its profile parsed once
    values["cancel_requested"] = bool(values["cancel_requested"])
    values["own_process"] = bool(values.get("own_process", 0))
    try:
        tags = json.loads(values.get("tags") or "[]")
    except (ValueError, TypeError):
        tags = []
    values["tags"] = tuple(str(t) for t in tags) if isinstance(tags, list) else ()
    return Run(**values, damaged=(f"Run {values['id']}'s stored {' and '.join(damaged)} cannot be read (it is not what "
                                  "the lab wrote); its other columns are shown." if damaged else ""))


class Store:
    """Runs, metrics and artifacts under one directory (``$RLCORE_HOME``, default ./.rlcore)."""

    def __init__(self, home: str | Path | None = None, *, start_grace: float = START_GRACE_SECONDS) -> None:
        """``start_grace``: how long a queued run may wait for an executor to start it (the local one reads it)."""
        self.home = Path(home) if home is not None else default_home()
        self.start_grace = start_grace
        self.path = self.home / "runs.sqlite"
        self.read_only = False
        self._unrecorded: dict[int, str] = {}  # runs that ended but whose end the store could not take yet
        try:
            if self.path.is_dir():  # sqlite would call it read-only; it is something else in the store's place
                raise StoreError(f"The run store at {self.path} is a folder, not a database file; move it aside or "
                                 "point RLCORE_HOME at another directory.", "damaged")
            self.home.mkdir(parents=True, exist_ok=True)
            with self._creating(), self._connect() as db:
                db.execute("PRAGMA journal_mode=WAL")
                self._migrate(db)
        except StoreError as e:
            if e.kind not in ("read-only", "missing") or not self.home.is_dir():
                raise
            if not self.path.is_file():
                raise store_error(PermissionError(), self.path) from None
            self.read_only = True  # a read-only directory or file: open it for reading only
            self._check_readable()
        except OSError as e:
            raise store_error(e, self.path) from None
        self.store_id = self._meta("store_id")

    @contextmanager
    def _creating(self) -> Iterator[None]:
        """Only the lab making a store starts from nothing: SQLite takes an empty file for an empty database, so a
        store truncated to zero bytes would silently become a new one. A store is made under a lock (a file beside
        it), and an empty file found under that lock (no maker at work) is a damaged store."""
        if self.path.is_file() and self.path.stat().st_size > 0:
            yield  # the usual case: a store that stands
            return
        import fcntl

        try:
            lock = open(self.home / ".runs.sqlite.lock", "a")  # noqa: SIM115 (held across the yield)
        except OSError:
            lock = None  # a read-only home: nothing can be made here anyway
        try:
            if lock is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            if self.path.is_file() and self.path.stat().st_size == 0:
                raise store_error(sqlite3.DatabaseError("file is not a database (it is empty)"), self.path)
            yield
        finally:
            if lock is not None:
                lock.close()

    def _check_readable(self) -> None:
        with self._connect() as db:
            version = db.execute("SELECT version FROM schema_version").fetchone()
        if not version or version[0] != len(MIGRATIONS):
            raise StoreError(f"The run store at {self.path} is read-only and older than this version of the lab "
                             "(it needs an upgrade, which must write); make it writable once.", "read-only")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db, cause = self._open()
        try:
            yield db
        except sqlite3.Error as e:
            raise store_error(cause or e, self.path) from None  # a write through the fallback fails for the cause
        finally:
            db.close()

    def _open(self) -> tuple[sqlite3.Connection, BaseException | None]:
        """A connection, and the fault it works around: on a full disk SQLite cannot make the shared-memory file of
        its write-ahead log, so the store is read as it stands on disk (reads work, writes fail for the cause)."""
        try:
            if self.read_only:
                # immutable: SQLite cannot create the -shm file of a WAL store in a read-only directory.
                return self._connection(f"file:{self.path}?immutable=1", uri=True), None
            return self._connection(self.path, timeout=30.0), None
        except sqlite3.Error as e:
            if storage_fault(e, self.path) != "full" or not self.path.is_file():
                raise store_error(e, self.path) from None
            try:
                return self._connection(f"file:{self.path}?immutable=1", uri=True), e
            except sqlite3.Error:
                raise store_error(e, self.path) from None

    @staticmethod
    def _connection(target: str | Path, **kwargs: Any) -> sqlite3.Connection:
        db = sqlite3.connect(target, isolation_level=None, **kwargs)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys=ON")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a training run's flushes (twice a second)
        # and heartbeats then cost it no disk flush each, and the store still never corrupts (SQLite: "WAL mode is
        # always consistent with synchronous=NORMAL"); a power cut may lose the last rows written.
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA schema_version").fetchone()  # opens the file (and its WAL index) now, not mid-query
        return db

    def _migrate(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = row[0] if row else 0
            if version > len(MIGRATIONS):  # never "upgrade" it down: a newer lab's columns would be made twice
                raise StoreError(f"The run store at {self.path} was written by a newer version of the lab (store "
                                 f"version {version}, this one knows {len(MIGRATIONS)}); update this checkout or "
                                 "point RLCORE_HOME at another directory.", "newer")
            for step in MIGRATIONS[version:]:
                if callable(step):
                    step(db)
                    continue
                for statement in filter(str.strip, step.split(";")):
                    db.execute(statement)
            if row is None:
                db.execute("INSERT INTO schema_version VALUES (?)", (len(MIGRATIONS),))
            elif version != len(MIGRATIONS):
                db.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> str:
        with self._connect() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else ""

    def _writable(self) -> None:
        if self.read_only:
            raise store_error(PermissionError(), self.path)

    @property
    def schema_version(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT version FROM schema_version").fetchone()[0]

    # ------------------------------------------------------------ runs

    def insert_run(self, kind: str, config: dict[str, Any], label: str, *, preset: str | None = None,
                   executor: str = "local", running_pid: int | None = None) -> int:
        """Insert a run as given (``rlcore.runs.service`` validates and names it first): queued, or already running
        in the process ``running_pid`` of this host (a run trained where it was started: the CLI, a script)."""
        self._writable()
        self._room_for_a_run()
        now = time.time()
        with self._connect() as db:
            if running_pid is None:
                cur = db.execute("INSERT INTO runs (kind, config, label, created, preset, executor) "
                                 "VALUES (?, ?, ?, ?, ?, ?)",
                                 (kind, json.dumps(config), label, now, preset, executor))
            else:
                cur = db.execute("INSERT INTO runs (kind, config, label, created, preset, executor, status, pid, host, "
                                 "started, heartbeat, own_process) VALUES (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, 1)",
                                 (kind, json.dumps(config), label, now, preset, executor, running_pid, HOST, now,
                                  now))
            return int(cur.lastrowid)

    def _room_for_a_run(self) -> None:
        """A new run needs room to start (its worker holds back a megabyte to record its end, then its first rows):
        on a disk with less free, it is refused as a full disk, not accepted to fail at once (a run that failed
        there gave its megabyte back, which must not read as room)."""
        try:
            free = shutil.disk_usage(self.home).free
        except OSError:
            return  # the write itself then says what is wrong
        if free < ROOM_FOR_A_RUN_BYTES:
            raise store_error(OSError(errno.ENOSPC, "No space left on device"), self.path)

    def set_environment(self, run_id: int, environment: dict[str, Any]) -> None:
        """The environment card of a run that was stored already running."""
        with self._connect() as db:
            db.execute("UPDATE runs SET environment = ? WHERE id = ?", (json.dumps(environment), run_id))

    def overlapping(self, run_id: int) -> list[int]:
        """Other runs that trained on this run's host while it did (their running times overlap): its speed, and
        theirs, are not clean."""
        with self._connect() as db:
            row = db.execute("SELECT started, finished, host FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None or row[0] is None:
                return []
            started, finished, host = row[0], row[1] or time.time(), row[2]
            return [r[0] for r in db.execute(
                "SELECT id FROM runs WHERE id != ? AND started IS NOT NULL AND started < ? AND "
                "COALESCE(finished, ?) > ? AND host IS ? ORDER BY id", (run_id, finished, time.time(), started, host))]

    def get_run(self, run_id: int) -> Run | None:
        self.reconcile()
        with self._connect() as db:
            row = db.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
        return self._seen(_decode(row)) if row else None

    def list_runs(self) -> list[Run]:
        self.reconcile()
        with self._connect() as db:
            return [self._seen(_decode(r)) for r in db.execute("SELECT * FROM runs ORDER BY id DESC")]

    def set_label(self, run_id: int, label: str) -> None:
        label = check_text(label, "label", LABEL_MAX)
        if not label:
            raise ConfigError("label must not be empty.", "label")
        self._update(run_id, "label", label)

    def set_tags(self, run_id: int, tags: Iterable[str]) -> None:
        """A run's tags, each checked (printable, at most 40 characters, no comma), each once."""
        checked = []
        for tag in tags:
            tag = check_text(tag, "tag", TAG_MAX)
            if "," in tag:
                raise ConfigError(f"a tag must not hold a comma (links list tags with commas), not {tag[:40]!r}.",
                                  "tag")
            if tag and tag not in checked:
                checked.append(tag)
        if len(checked) > MAX_TAGS:
            raise ConfigError(f"a run takes at most {MAX_TAGS} tags, not {len(checked)}.", "tag")
        self._update(run_id, "tags", json.dumps(checked))

    def set_notes(self, run_id: int, notes: str) -> None:
        self._update(run_id, "notes", check_text(notes, "notes", NOTES_MAX, multiline=True))

    def note_watched(self, run_id: int, refresh: float, now: float | None = None) -> None:
        """A live view of a running run drew: the time since any view's previous draw (at most one refresh period,
        never before the run started) counts as watched. Any viewer counts, the look costs the run all the same;
        views open at once count once."""
        now = time.time() if now is None else now
        with self._connect() as db:
            db.execute(
                "UPDATE runs SET watched_seconds = watched_seconds + "
                "MAX(0, ? - MAX(COALESCE(watched_until, 0), ? - ?, COALESCE(started, 0))), "
                "watched_until = MAX(COALESCE(watched_until, 0), ?), "
                "watch_refresh = MIN(COALESCE(watch_refresh, ?), ?) WHERE id = ? AND status = 'running'",
                (now, now, refresh, now, refresh, refresh, run_id))

    def _update(self, run_id: int, column: str, value: Any) -> None:
        self._writable()
        with self._connect() as db:
            if db.execute(f"UPDATE runs SET {column} = ? WHERE id = ?", (value, run_id)).rowcount == 0:
                raise ConfigError(f"run {run_id} does not exist.", "run")

    def meta(self, key: str) -> str:
        """A value the store keeps for its users (the local queue runner's record)."""
        return self._meta(key)

    def set_meta(self, key: str, value: str) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def clear_meta_like(self, key: str, pattern: str) -> None:
        """Clear a meta value if it matches a LIKE ``pattern`` (a record that names one process)."""
        with self._connect() as db:
            db.execute("UPDATE meta SET value = '' WHERE key = ? AND value LIKE ?", (key, pattern))

    def live_runs(self, executor: str) -> list[tuple[int, int | None, str, float, str | None]]:
        """(id, pid, status, created, host) of one executor's queued and running runs."""
        with self._connect() as db:
            return [tuple(r) for r in db.execute("SELECT id, pid, status, created, host FROM runs WHERE status IN "
                                                 "('queued', 'running') AND executor = ?", (executor,))]

    def set_pid(self, run_id: int, pid: int) -> None:
        with self._connect() as db:
            db.execute("UPDATE runs SET pid = ?, heartbeat = ?, host = ? WHERE id = ?",
                       (pid, time.time(), HOST, run_id))

    def queued_runs(self, executor: str) -> list[Run]:
        """The queued runs of one executor, oldest first."""
        with self._connect() as db:
            return [_decode(r) for r in db.execute("SELECT * FROM runs WHERE status = 'queued' AND executor = ? "
                                                   "ORDER BY id", (executor,))]

    def oldest_queued(self, executor: str = "local") -> int | None:
        with self._connect() as db:
            row = db.execute("SELECT id FROM runs WHERE status = 'queued' AND executor = ? ORDER BY id LIMIT 1",
                             (executor,)).fetchone()
        return row[0] if row else None

    def mark_running(self, run_id: int, pid: int, environment: dict[str, Any], host: str = HOST) -> bool:
        """queued -> running; False when the run is no longer queued (cancelled meanwhile)."""
        now = time.time()
        with self._connect() as db:
            cur = db.execute(
                "UPDATE runs SET status = 'running', pid = ?, started = ?, heartbeat = ?, environment = ?, host = ?, "
                "phase = NULL WHERE id = ? AND status = 'queued'",
                (pid, now, now, json.dumps(environment), host, run_id))
            return cur.rowcount == 1

    def heartbeat(self, run_id: int) -> bool:
        """Record that the worker lives; returns whether a cancel was asked for."""
        with self._connect() as db:
            db.execute("UPDATE runs SET heartbeat = ? WHERE id = ?", (time.time(), run_id))
            row = db.execute("SELECT cancel_requested FROM runs WHERE id = ?", (run_id,)).fetchone()
        return bool(row and row[0])

    def finish(self, run_id: int, status: str, *, summary: dict[str, Any] | None = None,
               error: str | None = None) -> bool:
        """Record a live run's end; False when it had already ended (a second end changes nothing)."""
        if status not in STATUSES or status in ACTIVE:
            raise ValueError(f"not a final status: {status!r}")
        with self._connect() as db:
            cur = db.execute(
                "UPDATE runs SET status = ?, finished = ?, summary = ?, error = ?, "
                "progress = CASE WHEN ? = 'done' THEN 1.0 ELSE progress END, phase = NULL "
                "WHERE id = ? AND status IN ('queued', 'running')",
                (status, time.time(), json.dumps(summary) if summary is not None else None, error, status, run_id))
            return cur.rowcount == 1

    def request_cancel(self, run_id: int) -> None:
        """Flag the run; a queued run is cancelled at once, a running one by its worker."""
        self._writable()
        with self._connect() as db:
            db.execute("UPDATE runs SET cancel_requested = 1 WHERE id = ?", (run_id,))
            db.execute("UPDATE runs SET status = 'cancelled', finished = ? WHERE id = ? AND status = 'queued'",
                       (time.time(), run_id))

    def reconcile(self) -> None:
        """Before a read: each executor ends the runs it owns whose process is gone (``Executor.reconcile``). A
        run that is only quiet is left alone: silence is not death (its view says "unresponsive"), so a result that
        arrives later is never thrown away. Ends the store cannot write yet (full, read-only) are shown as ended."""
        if self.read_only:
            return
        from rlcore.runs import executor  # the engines know their processes; the store only keeps the rows

        ended: dict[int, str] = {}
        for engine in executor.EXECUTORS.loaded():
            if engine.reconcile is not None:
                ended |= engine.reconcile(self)
        self._unrecorded = {}
        if not ended:
            return
        now = time.time()
        try:  # a read never needs a write: a store that refuses one (full, read-only) is read as it stands
            with self._connect() as db:
                for run_id, error in ended.items():
                    self._fail(db, run_id, error, now)
        except StoreError:
            self._unrecorded = ended  # shown as ended all the same, written when the store takes it

    def _seen(self, run: Run) -> Run:
        """A run as readers see it: one whose end could not be written yet is shown as it ended."""
        error = self._unrecorded.get(run.id)
        return dataclasses.replace(run, status=RunStatus.FAILED, error=error) if error and run.live else run

    @staticmethod
    def _fail(db: sqlite3.Connection, run_id: int, error: str, now: float) -> None:
        db.execute("UPDATE runs SET status = 'failed', error = ?, finished = ?, phase = NULL WHERE id = ? AND "
                   "status IN ('queued', 'running')", (error, now, run_id))

    def delete_run(self, run_id: int) -> bool:
        """Delete the row, its metrics and its artifacts together; a live run must be cancelled first."""
        self._writable()
        run_dir = self.run_dir(run_id)
        with self._connect() as db:
            cur = db.execute("DELETE FROM runs WHERE id = ? AND status NOT IN ('queued', 'running')", (run_id,))
            if cur.rowcount == 0 and self.get_run(run_id) is not None:
                raise ValueError(f"run {run_id} is still queued or running; cancel it first.")
        shutil.rmtree(run_dir, ignore_errors=True)
        return cur.rowcount == 1

    # ------------------------------------------------------------ sweeps

    def create_sweep(self, kind: str, base: dict[str, Any], space: dict[str, Any],
                     members: list[tuple[dict[str, Any], str]], *, label: str = "", preset: str | None = None,
                     executor: str = "local") -> tuple[int, list[int]]:
        """Insert a sweep and its member runs (each config already validated, with its name) in one transaction:
        all of it or nothing."""
        label = check_text(label, "label", LABEL_MAX) or f"{kind} sweep of {len(members):,} runs"
        self._writable()
        self._room_for_a_run()
        now = time.time()
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            cur = db.execute("INSERT INTO sweeps (kind, label, preset, base, space, created) VALUES (?, ?, ?, ?, ?, ?)",
                             (kind, label, preset, json.dumps(base), json.dumps(space), now))
            sweep_id = int(cur.lastrowid)
            db.executemany("INSERT INTO runs (kind, config, label, created, preset, executor, sweep_id) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?)",
                           ((kind, json.dumps(config), name, now, preset, executor, sweep_id)
                            for config, name in members))
            ids = [r[0] for r in db.execute("SELECT id FROM runs WHERE sweep_id = ? ORDER BY id", (sweep_id,))]
            db.execute("COMMIT")
        return sweep_id, ids

    def get_sweep(self, sweep_id: int) -> Sweep | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM sweeps WHERE id = ?", (sweep_id,)).fetchone()
        return _decode_sweep(row) if row else None

    def list_sweeps(self) -> list[Sweep]:
        with self._connect() as db:
            return [_decode_sweep(r) for r in db.execute("SELECT * FROM sweeps ORDER BY id DESC")]

    def sweep_runs(self, sweep_id: int) -> list[Run]:
        self.reconcile()
        with self._connect() as db:
            return [self._seen(_decode(r)) for r in db.execute("SELECT * FROM runs WHERE sweep_id = ? ORDER BY id",
                                                               (sweep_id,))]

    def cancel_sweep(self, sweep_id: int) -> list[int]:
        """Ask every live member to stop (queued ones end at once); returns the running ones, still stopping."""
        self._writable()
        now = time.time()
        with self._connect() as db:
            db.execute("UPDATE runs SET cancel_requested = 1 WHERE sweep_id = ? AND status IN ('queued', 'running')",
                       (sweep_id,))
            db.execute("UPDATE runs SET status = 'cancelled', finished = ? WHERE sweep_id = ? AND status = 'queued'",
                       (now, sweep_id))
            return [r[0] for r in db.execute("SELECT id FROM runs WHERE sweep_id = ? AND status = 'running'",
                                             (sweep_id,))]

    def delete_sweep(self, sweep_id: int) -> None:
        """Delete a sweep with its member runs, their metrics and files; a live member must be cancelled first."""
        self._writable()
        members = self.sweep_runs(sweep_id)
        live = [r.id for r in members if r.live]
        if live:
            raise ValueError(f"sweep {sweep_id} still has a live run ({live[0]}); cancel the sweep first.")
        dirs = [self.run_dir(r.id) for r in members]
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            db.execute("DELETE FROM runs WHERE sweep_id = ?", (sweep_id,))
            db.execute("DELETE FROM sweeps WHERE id = ?", (sweep_id,))
            db.execute("COMMIT")
        for run_dir in dirs:
            shutil.rmtree(run_dir, ignore_errors=True)

    # ------------------------------------------------------------ metrics and artifacts

    def append_metrics(self, run_id: int, rows: Iterable[tuple[int, float, str, float]]) -> None:
        """Append (step, wall seconds, name, value) rows in one transaction."""
        self.report(run_id, rows)

    def report(self, run_id: int, rows: Iterable[tuple[int, float, str, float]], *, progress: float | None = None,
               phase: str | None = None) -> bool:
        """A worker's flush in one transaction: metric rows, progress, phase and heartbeat. Returns whether a
        cancel was asked for."""
        with self._connect() as db:
            db.execute("BEGIN")
            db.executemany("INSERT INTO metrics (run_id, step, wall, name, value) VALUES (?, ?, ?, ?, ?)",
                           ((run_id, s, w, n, v) for s, w, n, v in rows))
            db.execute("UPDATE runs SET heartbeat = ?, progress = COALESCE(?, progress), "
                       "phase = COALESCE(?, phase) WHERE id = ?", (time.time(), progress, phase, run_id))
            row = db.execute("SELECT cancel_requested FROM runs WHERE id = ?", (run_id,)).fetchone()
            db.execute("COMMIT")
        return bool(row and row[0])

    def metric_count(self, run_id: int) -> int:
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM metrics WHERE run_id = ?", (run_id,)).fetchone()[0]

    def last_step(self, run_id: int) -> int:
        """The step of a run's newest metric row (0 before any): how far a run of unknown length has come."""
        with self._connect() as db:
            return int(db.execute("SELECT MAX(step) FROM metrics WHERE run_id = ?", (run_id,)).fetchone()[0] or 0)

    def metrics(self, run_ids: int | Iterable[int], names: Iterable[str] | None = None) -> pd.DataFrame:
        """Long-format metrics (run_id, step, wall, name, value) of one run or many; only the ``names`` given."""
        ids = [run_ids] if isinstance(run_ids, int) else list(run_ids)
        only = list(names) if names is not None else None
        where = f"run_id IN ({','.join('?' * len(ids))})"
        if only is not None:
            where += f" AND name IN ({','.join('?' * len(only))})"
        with self._connect() as db:
            rows = db.execute(f"SELECT run_id, step, wall, name, value FROM metrics WHERE {where} "
                              "ORDER BY run_id, rowid", ids + (only or [])).fetchall()
        # From plain rows: pandas' read_sql builds the same frame at about half the speed.
        return pd.DataFrame.from_records(rows, columns=["run_id", "step", "wall", "name", "value"])

    def metrics_after(self, run_id: int, after_rowid: int = 0) -> pd.DataFrame:
        """Rows of one run appended after ``after_rowid`` (with their ``rowid``), so a live view reads only new ones."""
        with self._connect() as db:
            return pd.read_sql_query(
                "SELECT rowid, run_id, step, wall, name, value FROM metrics WHERE run_id = ? AND rowid > ? "
                "ORDER BY rowid", db, params=(run_id, after_rowid))

    def run_dir(self, run_id: int) -> Path:
        """Where a run's files live: named by the store's identity too, so a store made anew (ids from 1 again)
        never offers the files of an older store's run with the same id."""
        return self.home / "runs" / (f"{self.store_id}-{run_id}" if self.store_id else str(run_id))

    def save_artifacts(self, run_id: int, artifacts: dict[str, bytes]) -> None:
        try:
            run_dir = self.run_dir(run_id)
            run_dir.mkdir(parents=True, exist_ok=True)
            for name, data in artifacts.items():
                path = run_dir / _relative(name)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        except OSError as e:
            raise store_error(e, self.home) from None

    def integrity_check(self) -> str:
        with self._connect() as db:
            return db.execute("PRAGMA integrity_check").fetchone()[0]


def _relative(name: str) -> Path:
    """An artifact's path inside its run's folder (a profile's capture has folders); never outside it."""
    parts = [p for p in Path(name).parts if p not in ("", ".", "..", "/")]
    if not parts:
        raise ValueError(f"an artifact needs a name, not {name!r}.")
    return Path(*parts)


def _decode_sweep(row: sqlite3.Row) -> Sweep:
    values = {k: row[k] for k in ("id", "kind", "label", "preset", "base", "space", "created")}
    values["base"], values["space"] = json.loads(values["base"]), json.loads(values["space"])
    return Sweep(**values)
