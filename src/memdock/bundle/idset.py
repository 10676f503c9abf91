"""Exact duplicate-id detection with flat memory: a set in memory while small, then a table on disk.

A bundle of a million records would otherwise hold a million hashes in a Python set (about 70 bytes each);
past SPILL_AT ids they move to a private temporary SQLite database whose page cache is bounded, so a
writer's or reader's memory no longer grows with the corpus.
"""

from __future__ import annotations

import sqlite3

SPILL_AT = 16_384


class IdSet:
    def __init__(self, spill_at: int | None = None):
        self._mem: set[int] | None = set()
        self._db: sqlite3.Connection | None = None
        self.spill_at = spill_at or SPILL_AT

    def add(self, h: int) -> bool:
        """Add the 64-bit hash H; False when it was already there."""
        mem = self._mem
        if mem is not None:
            if h in mem:
                return False
            mem.add(h)
            if len(mem) >= self.spill_at:
                self._spill()
            return True
        return self._db.execute("INSERT OR IGNORE INTO ids(h) VALUES (?)", (h,)).rowcount == 1  # type: ignore[union-attr]

    def _spill(self) -> None:
        db = sqlite3.connect("", isolation_level=None)  # "" is a private on-disk temporary database
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -4096")
        db.execute("CREATE TABLE ids(h INTEGER PRIMARY KEY)")
        db.execute("BEGIN")
        db.executemany("INSERT INTO ids(h) VALUES (?)", ((h,) for h in self._mem))  # type: ignore[union-attr]
        self._db, self._mem = db, None

    def __len__(self) -> int:
        if self._mem is not None:
            return len(self._mem)
        return self._db.execute("SELECT count(*) FROM ids").fetchone()[0]  # type: ignore[union-attr]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._mem = set()
