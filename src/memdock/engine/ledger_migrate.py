"""Bringing a ledger written by an older memdock up to the compact layout (version 5), keeping what it knows.

Versions 0-2 kept `committed(id, hash as hex TEXT, thread_id TEXT, record_type TEXT)`, the origins (from version
1) as `origins(id, origin TEXT)` one row per link, and the run's pending and (before 2) seen ids in the file.
Version 3 kept one row per record, `committed(id TEXT, hash 16 bytes, thread, type, origin)` with numbered
thread, type and origin, and `also(id TEXT, origin)`. Version 4 keys records by `ledger_keys` (a numbered prefix
and the id's digest as bytes) and keeps 8 bytes of the hash (see `ledger.py`). Version 5 drops version 4's
index of `committed` by thread (a third of the file; a query by thread scans the table once per run). An older
ledger goes through each step in turn, all in one transaction: a migration killed midway leaves the old ledger
as it was. A read-only ledger stays as it is (reading it then answers nothing until a writable open migrates it).
A ledger of a newer version is refused (`newer_than_this`): this memdock would misread it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..bundle.source import LEGACY

VERSION = 5
READS_AS_IS = 4
"""The oldest layout a reader reads as it is (version 5 only dropped an index): an older one is migrated first."""
_THREAD, _TYPE, _ORIGIN = 1, 2, 3
PREFIX = 4  # the kind of names numbering id prefixes (version 4)
_COPY_BATCH = 10_000
_V3_SCHEMA = """
CREATE TABLE IF NOT EXISTS names (n INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS names_name ON names(kind, name);
CREATE TABLE IF NOT EXISTS committed (id TEXT PRIMARY KEY, hash BLOB NOT NULL, thread INTEGER, type INTEGER NOT NULL,
  origin INTEGER) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS committed_thread ON committed(thread) WHERE thread IS NOT NULL;
CREATE TABLE IF NOT EXISTS also (id TEXT NOT NULL, origin INTEGER NOT NULL, PRIMARY KEY (id, origin)) WITHOUT ROWID;
"""


def newer_than_this(path: Path, version: int) -> str:
    return (
        f"{path}: the store's ledger is version {version}, written by a newer memdock; this memdock reads ledger "
        f"versions up to {VERSION}. Upgrade memdock to use this store; nothing was changed"
    )


def _tables(db: sqlite3.Connection) -> set[str]:
    return {n for (n,) in db.execute("SELECT name FROM main.sqlite_schema WHERE type = 'table'")}


def migrate(db: sqlite3.Connection, schema: str, name: Callable[[int, str], int], key: Callable[[str], bytes]) -> None:
    """Rebuild DB (an older ledger, or a new empty file) in the layout SCHEMA makes; NAME numbers a name, KEY
    keys a record id (numbering its prefix)."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc) or "read-only" in str(exc):
            return
        raise
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        had_rows = "committed" in _tables(db)
        if had_rows and version < 3:
            _to_v3(db, name)
        if had_rows and version < 4:
            _to_v4(db, schema, key)
        db.execute("DROP INDEX IF EXISTS committed_thread")  # version 5: a query by thread scans
        _run(db, schema)
        db.execute(f"PRAGMA user_version={VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    if had_rows:
        try:
            db.execute("VACUUM")  # the old tables' pages go back: a ledger is migrated to be smaller
        except sqlite3.OperationalError:
            pass  # busy (another reader) or a full disk: the ledger is whole, only not yet small


def _run(db: sqlite3.Connection, schema: str) -> None:
    for statement in schema.split(";"):
        if statement.strip():
            db.execute(statement)


def _to_v3(db: sqlite3.Connection, name: Callable[[int, str], int]) -> None:
    old = _tables(db)
    db.execute("ALTER TABLE committed RENAME TO committed_old")
    db.execute("DROP INDEX IF EXISTS committed_thread")
    if "origins" in old:
        db.execute("ALTER TABLE origins RENAME TO origins_old")
    for leftover in ("pending", "seen"):
        if leftover in old:
            db.execute(f"DROP TABLE main.{leftover}")
    _run(db, _V3_SCHEMA)
    _copy(db, "origins" in old, name)


def _to_v4(db: sqlite3.Connection, schema: str, key: Callable[[str], bytes]) -> None:
    """Version 3 to 4 (and on to SCHEMA's layout): each id keyed (its prefix numbered as it goes), each hash cut
    to 8 bytes."""
    db.execute("ALTER TABLE committed RENAME TO committed_v3")
    db.execute("DROP INDEX IF EXISTS committed_thread")
    db.execute("ALTER TABLE also RENAME TO also_v3")
    _run(db, schema)
    rows = db.execute("SELECT id, hash, thread, type, origin FROM committed_v3")
    while batch := rows.fetchmany(_COPY_BATCH):
        db.executemany(
            "INSERT INTO committed(key, hash, thread, type, origin) VALUES (?,?,?,?,?)",
            [(key(i), h[:8], t, r, o) for i, h, t, r, o in batch],
        )
    links = db.execute("SELECT id, origin FROM also_v3")
    while batch := links.fetchmany(_COPY_BATCH):
        db.executemany("INSERT OR IGNORE INTO also(key, origin) VALUES (?,?)", [(key(i), o) for i, o in batch])
    db.execute("DROP TABLE committed_v3")
    db.execute("DROP TABLE also_v3")


def _copy(db: sqlite3.Connection, had_origins: bool, name: Callable[[int, str], int]) -> None:
    for kind, column, table in (
        (_THREAD, "thread_id", "committed_old"),
        (_TYPE, "record_type", "committed_old"),
        (_ORIGIN, "origin", "origins_old" if had_origins else None),
    ):
        if table is not None:
            for (value,) in db.execute(f"SELECT DISTINCT {column} FROM {table} WHERE {column} IS NOT NULL").fetchall():
                name(kind, value)
    legacy = name(_ORIGIN, LEGACY)
    db.create_function("unhex_hash", 1, lambda h: bytes.fromhex(h)[:16], deterministic=True)
    if had_origins:
        db.execute(
            "CREATE TEMP TABLE links AS SELECT o.id AS id, n.n AS origin FROM origins_old o "
            "JOIN names n ON n.kind = ? AND n.name = o.origin",
            (_ORIGIN,),
        )
        first = "(SELECT min(l.origin) FROM links l WHERE l.id = c.id)"
    else:
        first = str(legacy)
    db.execute(
        "INSERT INTO committed(id, hash, thread, type, origin) "
        f"SELECT c.id, unhex_hash(c.hash), t.n, r.n, {first} FROM committed_old c "
        "LEFT JOIN names t ON t.kind = ? AND t.name = c.thread_id "
        "JOIN names r ON r.kind = ? AND r.name = c.record_type",
        (_THREAD, _TYPE),
    )
    if had_origins:
        db.execute(
            "INSERT OR IGNORE INTO also(id, origin) SELECT l.id, l.origin FROM links l JOIN committed c ON c.id = l.id "
            "WHERE l.origin != c.origin"
        )
        db.execute("DROP TABLE temp.links")
        db.execute("DROP TABLE origins_old")
    db.execute("DROP TABLE committed_old")
