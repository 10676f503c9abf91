"""An adapter's own record of what it gave its framework: catalog.sqlite in the data dir.

A framework knows its records by its own ids; memdock knows threads, entries and chunks by id. Each adapter keeps
the map in a sqlite file with tables of its own (its SCHEMA); what they share is here: the file opened in WAL mode
with full syncs, a full disk reported naming the catalog, transactions, the entries' metadata (author, role, type,
title, time: what filters and hits need), and the staging of an index run.

Staging lives in TEMP tables (`staged`: seq, event_time and one JSON item per row): each connection (each adapter
process) sees only its own run's items, so shard processes indexing into one store at once never clear or write
each other's. A SCHEMA that stages declares `staged` itself (with its own extra columns) and drops any `main.staged`
an older version left.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar

from ...diskfull import disk_full_as_error, sqlite_transaction

NAME = "catalog.sqlite"
ENTRY_META = ("id", "thread_id", "author", "role", "entry_type", "title", "event_time")
ENTRY_META_TABLE = (
    "CREATE TABLE IF NOT EXISTS entries (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, author TEXT, role TEXT, "
    "entry_type TEXT, title TEXT, event_time TEXT);"
)
PAGE = 500


class CatalogFile:
    """The catalog's connection. SCHEMA is run on open; THREADED lets other threads of the process use it."""

    SCHEMA: ClassVar[str] = ""
    THREADED: ClassVar[bool] = False

    def __init__(self, data_dir: Path):
        self.path = data_dir / NAME
        with disk_full_as_error(self.path, "opening the catalog"):
            data_dir.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                self.path, isolation_level=None, timeout=30, check_same_thread=not self.THREADED
            )
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.executescript(self.SCHEMA)

    def close(self) -> None:
        self.conn.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on error; a full disk is a disk_full error naming the catalog."""
        return sqlite_transaction(self.conn, self.path, immediate=True, what="writing the catalog")

    # -- staging ---------------------------------------------------------------------------------

    def staged_items(self, column: str) -> Iterator[dict[str, Any]]:
        """The JSON items in COLUMN of `staged`, in event-time order (staging order among equals), read in pages so
        memory stays flat."""
        last: tuple[str, int] = ("", -1)
        query = (
            f"SELECT coalesce(event_time, ''), seq, {column} FROM staged "
            "WHERE (coalesce(event_time, ''), seq) > (?, ?) ORDER BY coalesce(event_time, ''), seq LIMIT ?"
        )
        while True:
            rows = self.conn.execute(query, (*last, PAGE)).fetchall()
            if not rows:
                return
            for _, _, item in rows:
                yield json.loads(item)
            last = (rows[-1][0], rows[-1][1])

    def staged_count(self) -> int:
        count: int = self.conn.execute("SELECT count(*) FROM staged").fetchone()[0]
        return count

    def clear_staged(self) -> None:
        self.conn.execute("DELETE FROM staged")
        self.conn.execute("DELETE FROM staged_members")

    # -- entries' metadata (a SCHEMA with ENTRY_META_TABLE) ---------------------------------------

    def put_entry(self, rec: dict[str, Any]) -> None:
        self.conn.execute(
            f"INSERT OR REPLACE INTO entries ({', '.join(ENTRY_META)}) VALUES ({', '.join('?' * len(ENTRY_META))})",
            tuple(rec.get(k) for k in ENTRY_META),
        )

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(ENTRY_META)} FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return dict(zip(ENTRY_META, row)) if row else None
