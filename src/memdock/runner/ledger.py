"""The core's ledger of what a backend has durably committed: record id -> content hash.

It makes `index` resumable (a killed run resumes after its last checkpoint)
and incremental (a re-run sends only records whose content changed, and
deletes what vanished from threads it has seen again). Records pending in the
current run wait in a side table until the adapter checkpoints them, so
memory stays flat whatever the corpus size.

Every committed record is linked to the origins that wrote it (a bundle's source identity, see
`memdock.bundle.source`, or `remember`). A run prunes only records linked to its own origin, and deletes one
only when no other origin still holds it. Rows from a ledger written before origins existed are linked to
`legacy`, which any run may prune (the old behaviour) until a run sees the record and claims it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import orjson

from ..bundle.source import LEGACY, REMEMBER
from ..diskfull import disk_full_as_error, sqlite_transaction
from ..errors import BackendError
from ..ids import digest

_SCHEMA = """
CREATE TABLE IF NOT EXISTS committed (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT,
  record_type TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS committed_thread ON committed(thread_id);
CREATE TABLE IF NOT EXISTS pending (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT, record_type TEXT NOT NULL);
"""
# The ids a run has seen matter only to that run (one connection): a TEMP table keeps them out of the file.
_SEEN = "CREATE TEMP TABLE IF NOT EXISTS seen (id TEXT PRIMARY KEY)"
_ORIGINS = """
CREATE TABLE IF NOT EXISTS origins (id TEXT NOT NULL, origin TEXT NOT NULL, PRIMARY KEY (id, origin)) WITHOUT ROWID;
"""
_ORIGINS_VERSION = 1
_COMPACT_VERSION = 2
_COMPACT = """
CREATE TABLE committed_compact (id TEXT PRIMARY KEY, hash TEXT NOT NULL, thread_id TEXT,
  record_type TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO committed_compact SELECT id, hash, thread_id, record_type FROM committed;
DROP TABLE committed;
ALTER TABLE committed_compact RENAME TO committed;
CREATE INDEX committed_thread ON committed(thread_id);
DROP TABLE IF EXISTS main.seen;
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
        self.origin = LEGACY
        try:
            with disk_full_as_error(path, "opening the ledger"):
                self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.executescript(_SCHEMA)
                if self.db.execute("PRAGMA user_version").fetchone()[0] < _COMPACT_VERSION:
                    self._migrate()
                self.db.execute(_SEEN)
        except sqlite3.DatabaseError as exc:
            if getattr(self, "db", None) is not None:
                self.db.close()
            raise BackendError(
                f"{path}: the store's ledger cannot be opened ({exc}); it is damaged or not a memdock ledger, and "
                "nothing was changed",
                details={"file": str(path)},
            ) from None

    @classmethod
    def reader(cls, path: Path) -> Ledger:
        """The ledger opened only to read: it creates and migrates nothing, so it also opens on a read-only store
        (a mounted snapshot, a backup). Where SQLite cannot make the WAL index there, the file is read as
        immutable, which sees what the last clean close checkpointed."""
        self = cls.__new__(cls)
        self.path, self.origin = path, LEGACY
        try:
            self.db = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True, check_same_thread=False)
            self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            self.db = sqlite3.connect(path.as_uri() + "?immutable=1", uri=True, check_same_thread=False)
        return self

    def _migrate(self) -> None:
        """Bring an older ledger up to date. Before origins (version 0), every committed record keeps the legacy
        origin; before version 2, committed was a rowid table (an extra copy of every id) and the ids a run saw
        were kept in the file. A read-only ledger stays as it is: reading its counts needs neither, and writing
        fails anyway."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "readonly" in str(exc) or "read-only" in str(exc):
                return
            raise
        try:
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version < _ORIGINS_VERSION:
                self.db.execute(_ORIGINS)
                self.db.execute("INSERT OR IGNORE INTO origins(id, origin) SELECT id, ? FROM committed", (LEGACY,))
            if version < _COMPACT_VERSION:
                table = self.db.execute("SELECT sql FROM sqlite_schema WHERE name = 'committed'").fetchone()[0]
                if "WITHOUT ROWID" not in table.upper():
                    for statement in _COMPACT.strip().split(";\n"):
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version={_COMPACT_VERSION}")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def begin_run(self, origin: str) -> None:
        """Start a run whose records all come from ORIGIN."""
        self.origin = origin
        self.db.execute("DELETE FROM pending")
        self.db.execute("DELETE FROM seen")

    def _claim(self, select_ids: str, params: Sequence[str] = ()) -> None:
        """Link the ids SELECT_IDS yields to this run's origin (inside a transaction); a legacy link gives way."""
        self.db.execute(
            f"INSERT OR IGNORE INTO origins(id, origin) SELECT id, ? FROM ({select_ids})", [self.origin, *params]
        )
        if self.origin != LEGACY:
            self.db.execute(f"DELETE FROM origins WHERE origin = ? AND id IN ({select_ids})", [LEGACY, *params])

    def finish_run(self) -> None:
        """Claim every committed record this run saw (the unchanged ones too) for its origin.

        Done once at the end, as one statement: a run killed before it leaves the records it merely saw
        unclaimed, and its next run claims them."""
        with self._transaction():
            self._claim("SELECT s.id FROM seen s JOIN committed c ON c.id = s.id")

    def changed(self, items: Sequence[tuple[str, str, str | None, str]]) -> list[bool]:
        """For (id, hash, thread_id, type) items: True where the ledger lacks that id with that hash."""
        known: dict[str, str] = {}
        ids = [i[0] for i in items]
        for start in range(0, len(ids), _BATCH):
            part = ids[start : start + _BATCH]
            q = f"SELECT id, hash FROM committed WHERE id IN ({','.join('?' * len(part))})"
            known.update(self.db.execute(q, part).fetchall())
        with self._transaction():
            self.db.executemany("INSERT OR IGNORE INTO seen(id) VALUES (?)", [(i,) for i in ids])
        return [known.get(i[0]) != i[1] for i in items]

    def add_pending(self, items: Iterable[tuple[str, str, str | None, str]]) -> None:
        with self._transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO pending(id, hash, thread_id, record_type) VALUES (?,?,?,?)", items
            )

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
                part = list(ids[start : start + _BATCH])
                marks = ",".join("?" * len(part))
                cur = self.db.execute(
                    f"INSERT OR REPLACE INTO committed SELECT * FROM pending WHERE id IN ({marks})", part
                )
                n += cur.rowcount
                self._claim(f"SELECT id FROM pending WHERE id IN ({marks})", part)
                self.db.execute(f"DELETE FROM pending WHERE id IN ({marks})", part)
        return n

    def commit_all_pending(self) -> int:
        with self._transaction():
            n = self.db.execute("INSERT OR REPLACE INTO committed SELECT * FROM pending").rowcount
            self._claim("SELECT id FROM pending")
            self.db.execute("DELETE FROM pending")
        return n

    def vanished(self, thread_ids: Sequence[str]) -> list[str]:
        """Committed ids under THREAD_IDS that this run's origin (or the legacy one) wrote and this run did not see."""
        out: list[str] = []
        for start in range(0, len(thread_ids), _BATCH):
            part = list(thread_ids[start : start + _BATCH])
            q = (
                f"SELECT DISTINCT c.id FROM committed c JOIN origins o ON o.id = c.id "
                f"WHERE c.thread_id IN ({','.join('?' * len(part))}) AND o.origin IN (?, ?) "
                "AND c.id NOT IN (SELECT id FROM seen) ORDER BY c.id"
            )
            out.extend(r[0] for r in self.db.execute(q, [*part, self.origin, LEGACY]))
        return out

    def kept_for_other_sources(self, thread_ids: Sequence[str]) -> int:
        """How many committed records under THREAD_IDS this run did not see and only another bundle's source holds.

        They are kept, since only their own source deletes them; a renamed or moved source is another source."""
        n = 0
        for start in range(0, len(thread_ids), _BATCH):
            part = list(thread_ids[start : start + _BATCH])
            q = (
                f"SELECT count(*) FROM committed c WHERE c.thread_id IN ({','.join('?' * len(part))}) "
                "AND c.id NOT IN (SELECT id FROM seen) AND EXISTS (SELECT 1 FROM origins o WHERE o.id = c.id) "
                "AND NOT EXISTS (SELECT 1 FROM origins o WHERE o.id = c.id AND o.origin IN (?, ?, ?))"
            )
            n += self.db.execute(q, [*part, self.origin, LEGACY, REMEMBER]).fetchone()[0]
        return n

    def held_elsewhere(self, ids: Sequence[str]) -> set[str]:
        """Those of IDS that an origin other than this run's (and legacy) still holds."""
        out: set[str] = set()
        for start in range(0, len(ids), _BATCH):
            part = list(ids[start : start + _BATCH])
            q = f"SELECT DISTINCT id FROM origins WHERE id IN ({','.join('?' * len(part))}) AND origin NOT IN (?, ?)"
            out.update(r[0] for r in self.db.execute(q, [*part, self.origin, LEGACY]))
        return out

    def release(self, ids: Sequence[str]) -> None:
        """This run's origin (and legacy) no longer holds IDS; other origins' links stay."""
        with self._transaction():
            self.db.executemany(
                "DELETE FROM origins WHERE id=? AND origin IN (?, ?)", [(i, self.origin, LEGACY) for i in ids]
            )

    def forget(self, ids: Sequence[str]) -> None:
        with self._transaction():
            for start in range(0, len(ids), _BATCH):
                part = list(ids[start : start + _BATCH])
                marks = ",".join("?" * len(part))
                self.db.execute(f"DELETE FROM committed WHERE id IN ({marks})", part)
                self.db.execute(f"DELETE FROM origins WHERE id IN ({marks})", part)

    def hashes(self, ids: Sequence[str]) -> dict[str, str]:
        """The committed content hash of each of IDS the ledger holds."""
        out: dict[str, str] = {}
        for start in range(0, len(ids), _BATCH):
            part = list(ids[start : start + _BATCH])
            q = f"SELECT id, hash FROM committed WHERE id IN ({','.join('?' * len(part))})"
            out.update(self.db.execute(q, part).fetchall())
        return out

    def threads(self) -> dict[str, int]:
        """Each thread id with the number of entries committed under it."""
        q = "SELECT thread_id, count(*) FROM committed WHERE record_type = 'entry' AND thread_id IS NOT NULL "
        return dict(self.db.execute(q + "GROUP BY thread_id ORDER BY thread_id"))

    def counts_by_type(self) -> dict[str, int]:
        return dict(
            self.db.execute("SELECT record_type, count(*) FROM committed GROUP BY record_type ORDER BY record_type")
        )

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM committed").fetchone()[0]
