"""A first index into a store with no database loads in bulk, where nothing already there can be damaged.

The records go into a new file beside where the database belongs (LOADING), with no rollback journal and no
fsync, in large transactions; once everything is in, the file is compacted (VACUUM), switched to WAL, fsynced,
and renamed into place, then the directory is fsynced. Only then are the records reported committed (the core's
ledger counts them from these checkpoints), so a run killed at any point before the rename leaves the store as it
was, with no database, and its re-run loads everything again; one killed after the rename but before the
checkpoints arrive re-writes the same records, which upserts leave as they are. Later runs write the database in
place, in WAL.

The core holds the store's write lock for the whole run, so no other writer can be loading into the same file.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from memdock.diskfull import disk_full_as_error

from . import db, first_load

LOADING = db.DB_NAME + ".loading"
BATCH = 20000  # records per transaction: with no journal and no fsync, a commit costs little
SLICE = 20000  # ids per checkpoint reported once the database is in place


def fresh(data_dir: Path) -> bool:
    """Whether an index run may load in bulk: the data dir holds no database, nor a log of one."""
    path = db.db_path(data_dir)
    return not any(Path(f"{path}{tail}").exists() for tail in ("", "-wal", "-journal"))


def _fsync(path: Path, flags: int = os.O_RDONLY) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _discard(path: Path) -> None:
    for tail in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{tail}")


@contextlib.contextmanager
def load(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a new database at LOADING (a leftover of a killed run is discarded first); on leaving the
    block without error, the database is put in place; on any error it is discarded and the error raised."""
    loading = data_dir / LOADING
    _discard(loading)
    conn = db.open_writer(data_dir, loading=loading)
    try:
        for name in db.LOAD_INDEXES:  # built by the run once its rows are in (ingest.Ingest._built)
            trigger = name in db.LOAD_TRIGGERS + db.LATE_TRIGGERS
            conn.execute(f"DROP {'TRIGGER' if trigger else 'INDEX'} {name}")
        yield conn
        with disk_full_as_error(loading, "putting the loaded database in place"):
            for sql in first_load.missing_indexes(conn).values():  # a load that ran no Ingest to its end
                conn.execute(sql)
            db.merge_fts(conn)
            if _reclaimable(conn):
                conn.execute("VACUUM")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise sqlite3.OperationalError(f"could not switch {loading} to WAL mode (got {mode})")
            conn.close()
            _fsync(loading)
            os.replace(loading, db.db_path(data_dir))
            _fsync(data_dir)
    except BaseException:
        conn.close()
        _discard(loading)
        raise


def _reclaimable(conn: sqlite3.Connection) -> bool:
    """Whether VACUUM gives pages back: free pages (FTS5 segments merged away, text blocks swept), or node rows,
    whose pages entries' texts left to their chunks leave part-empty, unless the load never wrote those texts
    (db.set_loose, first_load.FirstLoad.unwritten). A load of chunks alone into one FTS5 segment leaves neither
    (its secondary indexes are built whole at its end): VACUUM would copy every page of it again (0.11 CPU s on
    bench/peers.py's 100k chunks) for 0.2 % of the pages (the id index, filled in id order)."""
    if conn.execute("PRAGMA freelist_count").fetchone()[0]:
        return True
    if not getattr(conn, "loose", True):
        return False
    return conn.execute("SELECT 1 FROM node_rows LIMIT 1").fetchone() is not None


class Deferred:
    """An on_commit for a bulk load: progress as batches go in, the ids held until `report` (after the rename)."""

    def __init__(self, progress: Callable[[int], None]):
        self.progress = progress
        self.ids: list[str] = []

    def __call__(self, ids: list[str]) -> None:
        self.ids += ids
        self.progress(len(self.ids))

    def report(self, checkpoint: Callable[[list[str]], None]) -> None:
        for k in range(0, len(self.ids), SLICE):
            checkpoint(self.ids[k : k + SLICE])
