"""Bringing a ledger written by an older memdock up to the compact layout (version 3), keeping what it knows.

Versions 0-2 kept `committed(id, hash as hex TEXT, thread_id TEXT, record_type TEXT)`, the origins (from version
1) as `origins(id, origin TEXT)` one row per link, and the run's pending and (before 2) seen ids in the file.
Version 3 keeps one row per record with a 16-byte hash and numbered thread, type and origin (see `ledger.py`).
The rebuild is one transaction: a migration killed midway leaves the old ledger as it was. A read-only ledger
stays as it is (reading it then answers nothing until a writable open migrates it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..bundle.source import LEGACY

VERSION = 3
_THREAD, _TYPE, _ORIGIN = 1, 2, 3


def _tables(db: sqlite3.Connection) -> set[str]:
    return {n for (n,) in db.execute("SELECT name FROM main.sqlite_schema WHERE type = 'table'")}


def migrate(db: sqlite3.Connection, schema: str, name: Callable[[int, str], int]) -> None:
    """Rebuild DB (an older ledger, or a new empty file) in the layout SCHEMA makes; NAME numbers a name."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "readonly" in str(exc) or "read-only" in str(exc):
            return
        raise
    try:
        old = _tables(db)
        if "committed" in old:
            db.execute("ALTER TABLE committed RENAME TO committed_old")
            db.execute("DROP INDEX IF EXISTS committed_thread")
        if "origins" in old:
            db.execute("ALTER TABLE origins RENAME TO origins_old")
        for leftover in ("pending", "seen"):
            if leftover in old:
                db.execute(f"DROP TABLE main.{leftover}")
        for statement in schema.split(";"):
            if statement.strip():
                db.execute(statement)
        if "committed" in old:
            _copy(db, "origins" in old, name)
        db.execute(f"PRAGMA user_version={VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


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
