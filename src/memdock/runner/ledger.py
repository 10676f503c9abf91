"""The core's ledger of what a backend has durably committed: record id -> content hash.

It makes `index` resumable (a killed run resumes after its last checkpoint)
and incremental (a re-run sends only records whose content changed, and
deletes what vanished from threads it has seen again). Records pending in the
current run wait in a side table until the adapter checkpoints them, so
memory stays flat whatever the corpus size.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import orjson

from ..diskfull import disk_full_as_error, sqlite_transaction
from ..ids import digest

_SCHEMA = """
CREATE TABLE IF NOT EXISTS committed (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT, record_type TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS committed_thread ON committed(thread_id);
CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT, record_type TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY);
"""
_VOLATILE = ("ingestion_time",)
_BATCH = 500


def record_hash(record: dict) -> str:
    """Content hash of a record, ignoring when memdock saw it."""
    stable = {k: v for k, v in record.items() if k not in _VOLATILE}
    return digest(orjson.dumps(stable, option=orjson.OPT_SORT_KEYS).decode(), length=32)


class Ledger:
    def __init__(self, path: Path):
        self.path = path
        with disk_full_as_error(path, "opening the ledger"):
            self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def begin_run(self) -> None:
        self.db.execute("DELETE FROM pending")
        self.db.execute("DELETE FROM seen")

    def changed(self, items: Sequence[tuple[str, str, str | None, str]]) -> list[bool]:
        """For (id, hash, thread_id, type) items: True where the ledger lacks that id with that hash."""
        known: dict[str, str] = {}
        ids = [i[0] for i in items]
        for start in range(0, len(ids), _BATCH):
            part = ids[start:start + _BATCH]
            q = f"SELECT id, hash FROM committed WHERE id IN ({','.join('?' * len(part))})"
            known.update(self.db.execute(q, part).fetchall())
        with self._transaction():
            self.db.executemany("INSERT OR IGNORE INTO seen(id) VALUES (?)", [(i,) for i in ids])
        return [known.get(i[0]) != i[1] for i in items]

    def add_pending(self, items: Iterable[tuple[str, str, str | None, str]]) -> None:
        with self._transaction():
            self.db.executemany("INSERT OR REPLACE INTO pending(id, hash, thread_id, record_type) VALUES (?,?,?,?)", items)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One commit per batch, rolled back on error (in autocommit mode every row of an executemany would be
        its own transaction); a full disk is a disk_full error naming the ledger."""
        with sqlite_transaction(self.db, self.path, what="recording what the backend committed"):
            yield

    def commit(self, ids: Sequence[str]) -> int:
        """Move checkpointed ids from pending to committed."""
        n = 0
        with self._transaction():
            for start in range(0, len(ids), _BATCH):
                part = list(ids[start:start + _BATCH])
                marks = ",".join("?" * len(part))
                cur = self.db.execute(f"INSERT OR REPLACE INTO committed SELECT * FROM pending WHERE id IN ({marks})", part)
                n += cur.rowcount
                self.db.execute(f"DELETE FROM pending WHERE id IN ({marks})", part)
        return n

    def commit_all_pending(self) -> int:
        with self._transaction():
            n = self.db.execute("INSERT OR REPLACE INTO committed SELECT * FROM pending").rowcount
            self.db.execute("DELETE FROM pending")
        return n

    def vanished(self, thread_ids: Sequence[str]) -> list[str]:
        """Committed ids under THREAD_IDS that this run did not see."""
        out: list[str] = []
        for start in range(0, len(thread_ids), _BATCH):
            part = list(thread_ids[start:start + _BATCH])
            q = (
                f"SELECT id FROM committed WHERE thread_id IN ({','.join('?' * len(part))}) "
                "AND id NOT IN (SELECT id FROM seen) ORDER BY id"
            )
            out.extend(r[0] for r in self.db.execute(q, part))
        return out

    def forget(self, ids: Sequence[str]) -> None:
        with self._transaction():
            for start in range(0, len(ids), _BATCH):
                part = list(ids[start:start + _BATCH])
                self.db.execute(f"DELETE FROM committed WHERE id IN ({','.join('?' * len(part))})", part)

    def counts_by_type(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT record_type, count(*) FROM committed GROUP BY record_type ORDER BY record_type"))

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM committed").fetchone()[0]

    def contains(self, record_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM committed WHERE id=?", (record_id,)).fetchone() is not None
