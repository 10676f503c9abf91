"""The core's ledger of what a backend has durably committed: record id -> content hash.

It makes `index` resumable (a killed run resumes after its last checkpoint)
and incremental (a re-run sends only records whose content changed, and
deletes what vanished from threads it has seen again). Records pending in the
current run wait out of the file (a killed run's pending records matter to no
later run) until the adapter checkpoints them: up to `pending.LIMIT` rows in
memory while the run is the store's only origin, the rest in a TEMP table, so
memory stays flat whatever the corpus size; each record costs the file one
write a run: its committed row.

A first index writes those rows early (`prewrite`): once its stream has ended, while the adapter finishes its load
(the sqlite bulk load checkpoints only after its file is in place), the held rows go into `committed` in a
transaction left open, and the checkpoints that follow are only checked against them; the one that covers the last
of them COMMITs. Nothing of it reaches the file before: a run killed meanwhile leaves the ledger as it was (the
next run sends those records again), and a run that ends any other way (an error, a retry, an adapter gone before
its last checkpoint) rolls it back and commits exactly the rows that were checkpointed (`abandon_prewrite`).

Every committed record is linked to the origins that wrote it (a bundle's source identity, see
`memdock.bundle.source`, or `remember`). A run prunes only records linked to its own origin, and deletes one
only when no other origin still holds it. Rows from a ledger written before origins existed are linked to
`legacy`, which any run may prune (the old behaviour) until a run sees the record and claims it.

The file is compact (version 5): one row per record, `committed(key, hash, thread, type, origin)`, the key
the record id as a short BLOB (`ledger_keys`: a numbered prefix and the id's digest as bytes), the hash the first
8 bytes of `record_hash` (a changed record goes unnoticed only if its new hash shares those 64 bits with the old),
thread, type and origin small integers naming rows of `names`; a record held by more than one origin keeps the
others in `also`. There is no index by thread: the queries by thread (a run's prune, its carried files) are
made once a run, and one scan of `committed` costs them less than an index costs every commit and the file.
Older ledgers are migrated when opened for writing (see `ledger_migrate`); a ledger of a newer layout is
refused, naming both versions.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from operator import itemgetter
from pathlib import Path

import orjson

from ..bundle.source import LEGACY, REMEMBER
from ..diskfull import disk_full_as_error, reraise_disk_full, sqlite_transaction
from ..errors import BackendError
from .ledger_keys import Keys, decode
from .ledger_migrate import PREFIX, READS_AS_IS, VERSION, migrate, newer_than_this
from .pending import HeldRows, Prewritten, Row
from .sources import FileState

_SCHEMA = """
CREATE TABLE IF NOT EXISTS names (n INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS names_name ON names(kind, name);
CREATE TABLE IF NOT EXISTS committed (key BLOB PRIMARY KEY, hash BLOB NOT NULL, thread INTEGER,
  type INTEGER NOT NULL, origin INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS also (key BLOB NOT NULL, origin INTEGER NOT NULL, PRIMARY KEY (key, origin)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS forgetting (id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (origin INTEGER NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL, sha256 BLOB NOT NULL, threads BLOB NOT NULL, PRIMARY KEY (origin, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_files (name TEXT PRIMARY KEY, dev INTEGER, ino INTEGER) WITHOUT ROWID;
"""
# What a run has seen and sent matters only to that run (one connection): TEMP tables keep them out of the file.
_TEMP = """
CREATE TEMP TABLE IF NOT EXISTS seen (key BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TEMP TABLE IF NOT EXISTS pending (key BLOB PRIMARY KEY, hash BLOB NOT NULL, thread INTEGER,
  type INTEGER NOT NULL) WITHOUT ROWID;
CREATE TEMP TABLE IF NOT EXISTS checkpointed (key BLOB PRIMARY KEY) WITHOUT ROWID;
CREATE TEMP TABLE IF NOT EXISTS wanted (thread INTEGER PRIMARY KEY);
"""
# Each TEMP table is one b-tree keyed by the record key (WITHOUT ROWID): a rowid table with a key PRIMARY KEY is
# two, and every record of a run goes into two or three of them.
THREAD, TYPE, ORIGIN = 1, 2, 3  # kinds of names
_VOLATILE = ("ingestion_time",)
_BATCH = 500
_WHAT = "recording what the backend committed"
HASH_BYTES = 8
"""How much of `record_hash` the ledger keeps (compare `Ledger.hashes` with `short(record_hash(...))`)."""

Item = tuple[str, bytes, "str | None", str]
"""(id, content hash, thread id, record type) of one record."""


def record_hash(record: dict) -> bytes:
    """Content hash of a record (16 bytes), ignoring when memdock saw it."""
    stable = {k: v for k, v in record.items() if k not in _VOLATILE} if any(k in record for k in _VOLATILE) else record
    return hashlib.sha256(orjson.dumps(stable, option=orjson.OPT_SORT_KEYS)).digest()[:16]


def short(h: bytes) -> bytes:
    """The part of a content hash the ledger keeps."""
    return h[:HASH_BYTES]


def _marks(part: Sequence[object]) -> str:
    return ",".join("?" * len(part))


class Ledger:
    def __init__(self, path: Path):
        self.path = path
        self._names: dict[tuple[int, str], int] = {}
        self._prefixes: dict[int, str] = {}
        self._recent: dict[str, bytes] = {}
        self._alone = False
        self._held = HeldRows()
        self._pre: Prewritten | None = None
        self._keying = Keys(lambda prefix, create: self._name(PREFIX, prefix, create=create))
        try:
            with disk_full_as_error(path, "opening the ledger"):
                self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=NORMAL")
                self.db.execute("PRAGMA cache_size=-65536")  # a run's commit of hashed (random) ids touches many pages
                # cache_size sets the main file's cache only: the run's TEMP tables (also hashed ids) would spill
                # to a temp file past SQLite's default 2 MB; they get the same bound.
                self.db.execute("PRAGMA temp.cache_size=-65536")
                self._check_version()
                self.db.executescript(_SCHEMA)
                self.db.executescript(_TEMP)
        except sqlite3.DatabaseError as exc:
            if getattr(self, "db", None) is not None:
                self.db.close()
            raise BackendError(
                f"{path}: the store's ledger cannot be opened ({exc}); it is damaged or not a memdock ledger, and "
                "nothing was changed",
                details={"file": str(path)},
            ) from None
        except BackendError:
            self.db.close()
            raise
        self.origin = LEGACY

    def _check_version(self) -> None:
        """Refuse a ledger of a newer layout; migrate an older one (writable opens only)."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            raise BackendError(newer_than_this(self.path, version), details={"file": str(self.path)})
        if version < VERSION:
            self._forget_numbers()  # a migration rolled back would leave numbers that are not in the file
            migrate(self.db, _SCHEMA, self._name, self._key)
            self._forget_numbers()

    def _forget_numbers(self) -> None:
        self._names.clear()
        self._keying.forget_numbers()

    @classmethod
    def reader(cls, path: Path) -> Ledger:
        """The ledger opened only to read: it creates nothing, so it also opens on a read-only store (a mounted
        snapshot, a backup). Where SQLite cannot make the WAL index there, the file is read as immutable, which
        sees what the last clean close checkpointed. An older ledger is migrated first where it can be written;
        a newer one is refused."""
        self = cls.__new__(cls)
        self.path, self._names, self._prefixes, self._recent, self._alone = path, {}, {}, {}, False
        self._held = HeldRows()
        self._pre = None
        self._keying = Keys(lambda prefix, create: self._name(PREFIX, prefix, create=create))
        try:
            self.db = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True, check_same_thread=False)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.OperationalError:
            self.db = sqlite3.connect(path.as_uri() + "?immutable=1", uri=True, check_same_thread=False)
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > VERSION:
            self.db.close()
            raise BackendError(newer_than_this(path, version), details={"file": str(path)})
        if version < READS_AS_IS:
            self.db.close()
            return cls(path)
        self.origin = LEGACY
        return self

    @property
    def origin(self) -> str:
        return self._origin

    @origin.setter
    def origin(self, name: str) -> None:
        self._origin = name
        self._run = self._name(ORIGIN, name, create=False)

    def _name(self, kind: int, name: str, *, create: bool = True) -> int:
        """The number NAME has among names of KIND (made when CREATE; -1 for one not known)."""
        key = (kind, name)
        n = self._names.get(key)
        if n is None:
            row = self.db.execute("SELECT n FROM names WHERE kind = ? AND name = ?", key).fetchone()
            if row is None and not create:
                return -1
            if row is None:
                row = self.db.execute("INSERT INTO names(kind, name) VALUES (?, ?) RETURNING n", key).fetchone()
            n = self._names[key] = row[0]
        return n

    def _named(self, kind: int) -> dict[int, str]:
        return dict(self.db.execute("SELECT n, name FROM names WHERE kind = ?", (kind,)))

    def _key(self, rid: str, *, create: bool = True) -> bytes:
        """RID's key (see `ledger_keys`); a new prefix is numbered when CREATE (inside a transaction)."""
        return self._keying.key(rid, create=create)

    def _keys(self, ids: Sequence[str], *, create: bool = False) -> list[bytes]:
        key = self._keying.key
        return [key(i, create=create) for i in ids]

    def _prefix(self, n: int) -> str:
        if n not in self._prefixes:
            self._prefixes = self._named(PREFIX)
        return self._prefixes[n]

    def _id(self, key: bytes) -> str:
        return decode(key, self._prefix)

    def close(self) -> None:
        self.db.close()

    def begin_run(self, origin: str) -> None:
        """Start a run whose records all come from ORIGIN."""
        with self._transaction():
            self._name(ORIGIN, LEGACY)
            self._name(ORIGIN, origin)
        self.origin = origin
        self.db.execute("DELETE FROM pending")
        self.db.execute("DELETE FROM seen")
        self._held.clear()
        self._alone = self._only_mine()

    def _only_mine(self) -> bool:
        """Whether no record is held by an origin but this run's and legacy: then, until the run ends (it holds
        the store's write lock), a commit has no other origin's link to keep in `also` and no legacy one to drop."""
        q = "SELECT EXISTS (SELECT 1 FROM committed WHERE origin NOT IN (?, ?)) OR EXISTS (SELECT 1 FROM also)"
        return not self.db.execute(q, (self._run, self._name(ORIGIN, LEGACY))).fetchone()[0]

    def _claim(self, select_keys: str, params: Sequence[object] = ()) -> None:
        """Link the keys SELECT_KEYS yields to this run's origin (inside a transaction); a legacy link gives way.
        A record already linked to this origin is not written."""
        run, legacy = self._run, self._name(ORIGIN, LEGACY)
        self.db.execute(
            f"UPDATE committed SET origin = ? WHERE key IN ({select_keys}) AND (origin IS NULL OR origin = ?) "
            "AND origin IS NOT ?",
            [run, *params, legacy, run],
        )
        if self._alone:  # every claimed record is now this run's alone: no link to add or drop
            return
        self.db.execute(
            f"INSERT OR IGNORE INTO also(key, origin) SELECT key, ? FROM committed WHERE key IN ({select_keys}) "
            "AND origin != ?",
            [run, *params, run],
        )
        if run != legacy:
            self.db.execute(f"DELETE FROM also WHERE origin = ? AND key IN ({select_keys})", [legacy, *params])

    def finish_run(self) -> None:
        """Claim every committed record this run saw (the unchanged ones too) for its origin.

        Done once at the end: a run killed before it leaves the records it merely saw unclaimed, and its next
        run claims them."""
        with self._transaction():
            self._claim("SELECT key FROM seen")

    def changed(self, items: Sequence[Item]) -> list[bool]:
        """For ITEMS: True where the ledger lacks that id with that hash. Every id is noted as seen (in the run's
        own table, out of the file; a new id prefix is the only write to the file)."""
        known: dict[bytes, bytes] = {}
        with self._transaction():
            keys = self._keys([i[0] for i in items], create=True)
            for start in range(0, len(keys), _BATCH):
                part = keys[start : start + _BATCH]
                known.update(self.db.execute(f"SELECT key, hash FROM committed WHERE key IN ({_marks(part)})", part))
            self.db.executemany("INSERT OR IGNORE INTO seen(key) VALUES (?)", [(k,) for k in keys])
        self._recent = dict(zip((i[0] for i in items), keys, strict=True))  # add_pending takes the changed ones
        return [known.get(k) != short(i[1]) for k, i in zip(keys, items, strict=True)]

    def add_pending(self, items: Iterable[Item]) -> None:
        """Note ITEMS as pending: held in memory by id while the run is the only origin (`engine/pending.py`), else
        in the run's TEMP table, in key order (a batch of hashed ids goes into the b-tree page by page)."""
        recent, self._recent = self._recent, {}
        self.abandon_prewrite()  # rows pending after a pre-write: it no longer holds them all
        with self._transaction():  # new thread, type and prefix names are the only writes to the file
            key, names = self._keying.key, self._names
            rows = [
                (
                    rid,
                    (
                        recent.get(rid) or key(rid, create=True),
                        h[:HASH_BYTES],
                        None if tid is None else names.get((THREAD, tid)) or self._name(THREAD, tid),
                        names.get((TYPE, rtype)) or self._name(TYPE, rtype),
                    ),
                )
                for rid, h, tid, rtype in items
            ]
            spill = self._held.add(rows) if self._alone else [row for _, row in rows]
            if spill:
                spill.sort(key=itemgetter(0))  # stable: of one id given twice, the last still wins
                self._held.spilled = True
                self.db.executemany("INSERT OR REPLACE INTO pending(key, hash, thread, type) VALUES (?,?,?,?)", spill)

    def is_pending(self, rid: str) -> bool:
        if rid in self._held:
            return True
        key = self._key(rid, create=False)
        return self.db.execute("SELECT 1 FROM pending WHERE key = ?", (key,)).fetchone() is not None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One commit per batch, rolled back on error (in autocommit mode every row of an executemany would be
        its own transaction); a full disk is a disk_full error naming the ledger."""
        with sqlite_transaction(self.db, self.path, what=_WHAT):
            yield

    def _move(self, where: str, params: Sequence[object]) -> int:
        """Commit the pending rows WHERE selects: one row each, written with its origin (a record another origin
        holds keeps that one and gains this run's in `also`)."""
        if not self._alone:
            self._keep_others(where, params)
        return self.db.execute(
            "INSERT INTO committed(key, hash, thread, type, origin) SELECT key, hash, thread, type, ? FROM pending "
            f"WHERE {where} {self._on_conflict()}",
            [self._run, *params],
        ).rowcount

    def _on_conflict(self) -> str:
        """How a committed row is written over: its hash, thread and type replaced, its origin kept unless it has
        none or the legacy one (the origin's number is the ledger's own integer, written into the statement)."""
        legacy = int(self._name(ORIGIN, LEGACY))
        return (
            "ON CONFLICT(key) DO UPDATE SET hash = excluded.hash, thread = excluded.thread, type = excluded.type, "
            f"origin = CASE WHEN committed.origin IS NULL OR committed.origin = {legacy} THEN excluded.origin "
            "ELSE committed.origin END"
        )

    def _keep_others(self, where: str, params: Sequence[object]) -> None:
        run, legacy = self._run, self._name(ORIGIN, LEGACY)
        self.db.execute(
            "INSERT OR IGNORE INTO also(key, origin) SELECT c.key, ? FROM committed c "
            f"WHERE c.key IN (SELECT key FROM pending WHERE {where}) AND c.origin IS NOT NULL "
            "AND c.origin NOT IN (?, ?)",
            [run, *params, run, legacy],
        )
        if run != legacy:
            self.db.execute(
                f"DELETE FROM also WHERE origin = ? AND key IN (SELECT key FROM pending WHERE {where})",
                [legacy, *params],
            )

    def commit(self, ids: Sequence[str]) -> int:
        """Move checkpointed ids from pending to committed (under a pre-write, see `_commit_prewritten`)."""
        if self._pre is not None:
            return self._commit_prewritten(self._pre, ids)
        # The keys go into a TEMP table first: a few set statements over it cost far less than the same
        # statements once per few hundred ids with their keys bound as parameters.
        held, rest = self._held.take(ids)  # a held row has its key: only the others' are made here
        with self._transaction():
            n = self._write_held(held)
            if rest and self._held.spilled:
                keys = self._keys(rest)
                self.db.executemany("INSERT OR IGNORE INTO checkpointed(key) VALUES (?)", [(k,) for k in keys])
                n += self._move("key IN (SELECT key FROM checkpointed)", [])
                self.db.execute("DELETE FROM pending WHERE key IN (SELECT key FROM checkpointed)")
                self.db.execute("DELETE FROM checkpointed")
        return n

    def commit_all_pending(self) -> int:
        """Commit every pending row (the adapter answered for the whole delta); a pre-write's rows are among them."""
        pre, self._pre = self._pre, None
        with self._transaction() if pre is None else self._finishing():
            n = self._write_held(self._held.take_all()) + self._move("1", [])
            self.db.execute("DELETE FROM pending")
        return n + (0 if pre is None else len(pre.waiting))

    def prewrite(self) -> bool:
        """Write every held row into `committed` now, in key order, in a transaction left open; returns whether it
        did. A first index does so once its stream has ended, while the adapter finishes its load: the checkpoints
        then cost only the COMMIT, made once they cover every row written (`_commit_prewritten`). Only while the run
        is the store's only origin and every pending row is held (none in the TEMP table, whose rows other origins'
        links would need). Until the COMMIT none of it is in the file: a killed run leaves the ledger as it was, and
        a run that ends otherwise keeps only what was checkpointed (`abandon_prewrite`)."""
        if not self._alone or self._held.spilled or not self._held.rows or self.db.in_transaction:
            return False
        rows = self._held.take_by_id()
        self.db.execute("BEGIN")
        try:
            self._write_held(sorted(rows.values(), key=itemgetter(0)))  # keys are unique: no tuple compares
        except BaseException as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            self._held.rows.update(rows)
            reraise_disk_full(exc, self.path, _WHAT)
            raise
        self._pre = Prewritten(rows)
        return True

    def _commit_prewritten(self, pre: Prewritten, ids: Sequence[str]) -> int:
        """A checkpoint under a pre-write: its pre-written rows are noted (a row held since joins the open
        transaction, as a checked one); COMMIT once every pre-written row is checkpointed. An id neither pre-written
        nor held is pending nowhere (nothing was spilled), as in `commit`."""
        before = len(pre.checked)
        held, _ = self._held.take(pre.check(ids))
        self._write_held(held)
        pre.checked.extend(held)
        if pre.covered:
            self._pre = None
            with self._finishing():
                pass
        return len(pre.checked) - before

    def abandon_prewrite(self) -> None:
        """End a pre-write the run will not see through (an error, a retry, checkpoints that stopped short of its
        rows): ROLLBACK, then commit exactly the rows checkpointed since; the others are pending again."""
        pre, self._pre = self._pre, None
        if pre is None:
            return
        if self.db.in_transaction:
            self.db.execute("ROLLBACK")
        self._held.rows.update(pre.waiting)
        with self._transaction():
            self._write_held(sorted(pre.checked))

    @contextlib.contextmanager
    def _finishing(self) -> Iterator[None]:
        """The pre-write's open transaction: what the block writes joins it, then COMMIT (ROLLBACK on error)."""
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            reraise_disk_full(exc, self.path, _WHAT)
            raise

    def _write_held(self, rows: list[Row]) -> int:
        """Commit ROWS, pending rows held in memory (only while the run is the only origin: no other origin's link
        to keep, see `_move`)."""
        if rows:
            run = int(self._run)  # written into the statement: each row binds only its own four values
            self.db.executemany(
                "INSERT INTO committed(key, hash, thread, type, origin) "
                f"VALUES (?, ?, ?, ?, {run}) {self._on_conflict()}",
                rows,
            )
        return len(rows)

    def _thread_numbers(self, thread_ids: Sequence[str]) -> list[int]:
        return [n for n in (self._name(THREAD, t, create=False) for t in thread_ids) if n >= 0]

    def _want(self, thread_ids: Sequence[str]) -> str:
        """Put THREAD_IDS' numbers in the run's `wanted` table; returns the SQL that is true where committed row
        c is under one of them. The ledger keeps no index by thread (a third of its bytes): a query by thread is
        one scan of `committed`, made once per run (prune, carry), never per record."""
        rows = [(n,) for n in self._thread_numbers(thread_ids)]
        with contextlib.nullcontext() if self.db.in_transaction else self._transaction():
            self.db.execute("DELETE FROM wanted")
            self.db.executemany("INSERT OR IGNORE INTO wanted VALUES (?)", rows)
        return "c.thread IN (SELECT thread FROM wanted)"

    def _in_keys(self, ids: Sequence[str]) -> Iterator[list[bytes]]:
        keys = self._keys(ids)
        for start in range(0, len(keys), _BATCH):
            yield keys[start : start + _BATCH]

    def _holds(self, origins: Sequence[int], *, negate: bool = False) -> str:
        """SQL true where committed row c is linked to one of ORIGINS (to none, NEGATE)."""
        marks = _marks(origins)
        held = f"(c.origin IN ({marks}) OR EXISTS (SELECT 1 FROM also a WHERE a.key = c.key AND a.origin IN ({marks})))"
        return f"NOT {held}" if negate else held

    def vanished(self, thread_ids: Sequence[str]) -> list[str]:
        """Committed ids under THREAD_IDS that this run's origin (or the legacy one) wrote and this run did not see."""
        mine = [self._run, self._name(ORIGIN, LEGACY)]
        q = f"SELECT c.key FROM committed c WHERE {self._want(thread_ids)} AND c.key NOT IN (SELECT key FROM seen)"
        return sorted(self._id(r[0]) for r in self.db.execute(f"{q} AND {self._holds(mine)}", [*mine, *mine]))

    def kept_for_other_sources(self, thread_ids: Sequence[str]) -> int:
        """How many committed records under THREAD_IDS this run did not see and only another bundle's source holds.

        They are kept, since only their own source deletes them; a renamed or moved source is another source."""
        ours = [self._run, self._name(ORIGIN, LEGACY), self._name(ORIGIN, REMEMBER, create=False)]
        q = (
            f"SELECT count(*) FROM committed c WHERE {self._want(thread_ids)} AND c.origin IS NOT NULL "
            f"AND c.key NOT IN (SELECT key FROM seen) AND {self._holds(ours, negate=True)}"
        )
        return int(self.db.execute(q, [*ours, *ours]).fetchone()[0])

    def held_elsewhere(self, ids: Sequence[str]) -> set[str]:
        """Those of IDS that an origin other than this run's (and legacy) still holds."""
        mine = [self._run, self._name(ORIGIN, LEGACY)]
        out: set[str] = set()
        for part in self._in_keys(ids):
            q = (
                f"SELECT c.key FROM committed c WHERE c.key IN ({_marks(part)}) AND ((c.origin IS NOT NULL AND "
                "c.origin NOT IN (?, ?)) OR EXISTS (SELECT 1 FROM also a WHERE a.key = c.key "
                "AND a.origin NOT IN (?, ?)))"
            )
            out.update(self._id(r[0]) for r in self.db.execute(q, [*part, *mine, *mine]))
        return out

    def release(self, ids: Sequence[str]) -> None:
        """This run's origin (and legacy) no longer holds IDS; other origins' links stay (one of them moves into
        the row)."""
        mine = [self._run, self._name(ORIGIN, LEGACY)]
        with self._transaction():
            for part in self._in_keys(ids):
                marks = _marks(part)
                self.db.execute(f"DELETE FROM also WHERE key IN ({marks}) AND origin IN (?, ?)", [*part, *mine])
                self.db.execute(
                    "UPDATE committed SET origin = (SELECT min(a.origin) FROM also a WHERE a.key = committed.key) "
                    f"WHERE key IN ({marks}) AND origin IN (?, ?)",
                    [*part, *mine],
                )
                self.db.execute(
                    "DELETE FROM also WHERE (key, origin) IN (SELECT key, origin FROM committed "
                    f"WHERE key IN ({marks}) AND origin IS NOT NULL)",
                    part,
                )

    def forget(self, ids: Sequence[str]) -> None:
        """Drop IDS, and the file states of the sources that held them: a later `add` or `index` of one of those
        sources reads it again, unchanged or not, and sends what it still holds (`engine/sources.py`)."""
        with self._transaction():
            for part in self._in_keys(ids):
                marks = _marks(part)
                self.db.execute(
                    f"DELETE FROM files WHERE origin IN (SELECT origin FROM committed WHERE key IN ({marks}) "
                    f"UNION SELECT origin FROM also WHERE key IN ({marks}))",
                    [*part, *part],
                )
                self.db.execute(f"DELETE FROM committed WHERE key IN ({marks})", part)
                self.db.execute(f"DELETE FROM also WHERE key IN ({marks})", part)

    def mark_forgetting(self, ids: Sequence[str]) -> None:
        """Note, durably, that IDS are being forgotten: a forget killed before the journal lost their text is
        finished by the next write (see `SubprocessBackend.delete`)."""
        with self._transaction():
            self.db.executemany("INSERT OR IGNORE INTO forgetting(id) VALUES (?)", [(i,) for i in ids])

    def forgetting(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT id FROM forgetting ORDER BY id")]

    def forgotten(self) -> None:
        with self._transaction():
            self.db.execute("DELETE FROM forgetting")

    def hashes(self, ids: Sequence[str]) -> dict[str, bytes]:
        """The committed content hash of each of IDS the ledger holds (the part it keeps: compare with `short`)."""
        out: dict[str, bytes] = {}
        for part in self._in_keys(ids):
            out.update(
                (self._id(k), h)
                for k, h in self.db.execute(f"SELECT key, hash FROM committed WHERE key IN ({_marks(part)})", part)
            )
        return out

    def threads(self) -> dict[str, int]:
        """Each thread id with the number of entries committed under it."""
        entry = self._name(TYPE, "entry", create=False)
        names = self._named(THREAD)
        q = "SELECT thread, count(*) FROM committed WHERE type = ? AND thread IS NOT NULL GROUP BY thread"
        return dict(sorted((names[t], n) for t, n in self.db.execute(q, (entry,))))

    def counts_by_type(self) -> dict[str, int]:
        names = self._named(TYPE)
        return dict(
            sorted((names[t], n) for t, n in self.db.execute("SELECT type, count(*) FROM committed GROUP BY 1"))
        )

    def records(self) -> Iterator[tuple[str, bytes, str | None, str]]:
        """Every committed record as (id, kept hash, thread id, record type), in no set order."""
        threads, types = self._named(THREAD), self._named(TYPE)
        for key, h, thread, rtype in self.db.execute("SELECT key, hash, thread, type FROM committed"):
            yield self._id(key), h, None if thread is None else threads[thread], types[rtype]

    def links(self) -> set[tuple[str, str]]:
        """Every (record id, origin) link the ledger holds."""
        origins = self._named(ORIGIN)
        q = "SELECT key, origin FROM committed WHERE origin IS NOT NULL UNION SELECT key, origin FROM also"
        return {(self._id(k), origins[o]) for k, o in self.db.execute(q)}

    def carry(self, thread_ids: Sequence[str]) -> None:
        """Count the committed records of THREAD_IDS as seen by this run (their source files were unchanged and not
        read again), so the run neither prunes nor re-sends them."""
        with self._transaction():
            self.db.execute(f"INSERT OR IGNORE INTO seen SELECT c.key FROM committed c WHERE {self._want(thread_ids)}")

    def files(self, origin: str) -> dict[str, FileState]:
        """What ORIGIN's source files were when last indexed: path -> size, mtime, sha256 and their threads."""
        n = self._name(ORIGIN, origin, create=False)
        q = "SELECT path, size, mtime_ns, sha256, threads FROM files WHERE origin = ?"
        return {p: FileState(size, mtime, sha, orjson.loads(t)) for p, size, mtime, sha, t in self.db.execute(q, (n,))}

    def save_files(self, files: dict[str, FileState]) -> None:
        """FILES are now this run's origin's source files (a file not among them has left it)."""
        with self._transaction():
            self.db.execute("DELETE FROM files WHERE origin = ?", (self._run,))
            self.db.executemany(
                "INSERT INTO files VALUES (?,?,?,?,?,?)",
                [(self._run, p, f.size, f.mtime_ns, f.sha256, orjson.dumps(f.threads)) for p, f in files.items()],
            )

    def store_files(self) -> dict[str, tuple[int, int]]:
        """The backend's store files as last recorded: name -> (device, inode) (see `engine.lost`)."""
        try:
            return {n: (d, i) for n, d, i in self.db.execute("SELECT name, dev, ino FROM store_files")}
        except sqlite3.OperationalError:  # a ledger opened read-only before the table existed
            return {}

    def set_store_files(self, rows: Sequence[tuple[str, int, int]]) -> None:
        """ROWS (name, device, inode) are now the backend's store files."""
        with self._transaction():
            self.db.execute("DELETE FROM store_files")
            self.db.executemany("INSERT INTO store_files VALUES (?, ?, ?)", rows)

    def keep_only(self, ids: Iterable[str], store_files: Sequence[tuple[str, int, int]]) -> int:
        """In one transaction: drop the claim on every record not among IDS, forget every source file's state
        (so the next `add` reads them all) and record STORE_FILES; returns how many records were dropped."""
        with self._transaction():
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS kept (key BLOB PRIMARY KEY)")
            self.db.execute("DELETE FROM kept")
            self.db.executemany("INSERT OR IGNORE INTO kept VALUES (?)", ((self._key(i, create=False),) for i in ids))
            gone = self.db.execute("DELETE FROM committed WHERE key NOT IN (SELECT key FROM kept)").rowcount
            self.db.execute("DELETE FROM also WHERE key NOT IN (SELECT key FROM kept)")
            self.db.execute("DELETE FROM files")
            self.db.execute("DELETE FROM store_files")
            self.db.executemany("INSERT INTO store_files VALUES (?, ?, ?)", store_files)
            self.db.execute("DELETE FROM kept")
        return int(gone)

    def empty(self) -> bool:
        return self.db.execute("SELECT 1 FROM committed LIMIT 1").fetchone() is None

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM committed").fetchone()[0]
