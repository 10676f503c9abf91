"""Vectors computed ahead of an index run, by `prepare` jobs that may run at once (one per shard).

The cache is its own SQLite file in the data dir, so the jobs never touch the store's database while they
work; they share the file through WAL, each batch a short transaction. A vector is keyed by the model and a
digest of the exact text embedded, so the index run's backfill takes a vector only for the very text it would
have embedded itself (anything else misses and is embedded as usual). The run removes the file once its
vectors are stored.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memdock.diskfull import disk_full_as_error

NAME = "vector-cache.sqlite"
LOCK = "vector-cache.lock"


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class VectorCache:
    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn, self.path = conn, path

    @classmethod
    def create(cls, data_dir: Path) -> VectorCache:
        path = data_dir / NAME
        with disk_full_as_error(path, "opening the vector cache"):
            data_dir.mkdir(parents=True, exist_ok=True)
            with _creating(data_dir):
                conn = sqlite3.connect(path, isolation_level=None, timeout=120)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS vectors(model TEXT NOT NULL, key BLOB NOT NULL, vec BLOB NOT NULL, "
                    "PRIMARY KEY (model, key)) WITHOUT ROWID"
                )
        return cls(conn, path)

    @classmethod
    def existing(cls, data_dir: Path) -> VectorCache | None:
        """The cache prepare jobs left, or None."""
        path = data_dir / NAME
        if not path.is_file():
            return None
        return cls(sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=120), path)

    def get(self, model: str, keys: list[bytes]) -> dict[bytes, bytes]:
        found: dict[bytes, bytes] = {}
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            rows = self.conn.execute(
                f"SELECT key, vec FROM vectors WHERE model = ? AND key IN ({','.join('?' * len(part))})",
                (model, *part),
            )
            found.update(rows)
        return found

    def put(self, model: str, items: list[tuple[bytes, bytes]]) -> None:
        with disk_full_as_error(self.path, "writing the vector cache"):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                self.conn.executemany(
                    "INSERT OR REPLACE INTO vectors(model, key, vec) VALUES (?, ?, ?)",
                    [(model, k, v) for k, v in items],
                )
                self.conn.execute("COMMIT")
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        self.conn.close()


@contextmanager
def _creating(data_dir: Path) -> Iterator[None]:
    """One prepare job at a time turns the file to WAL and creates its table. Done at once, one job could hold a
    read lock while another waited to write, and SQLite answers such a deadlock "database is locked" at once,
    whatever the busy timeout (seen when shard jobs started together on a loaded box)."""
    fd = os.open(data_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def remove(data_dir: Path) -> None:
    for name in (NAME, f"{NAME}-wal", f"{NAME}-shm", LOCK):
        try:
            os.remove(data_dir / name)
        except FileNotFoundError:
            pass
