"""Exact duplicate-id detection with flat memory: a set in memory while small, then a table on disk.

A bundle of a million records would otherwise hold a million hashes in a Python set (about 70 bytes each);
past SPILL_AT ids they move to a private temporary SQLite database whose page cache is bounded, so a
writer's or reader's memory no longer grows with the corpus.

Past the spill, asking the database about every id cost as much as orjson takes to write the record. So a
bitmap of FILTER_BITS bits (a Bloom filter with one hash: 1 MiB) says whether an id may have been seen: an id
whose bit is clear is new without a lookup, and new ids reach the database BATCH at a time in one statement.
Only an id whose bit is set (a repeat, or an id sharing another's bit: about 11 % of ids at a million) is looked
up, after the batch waiting is written.
"""

from __future__ import annotations

import sqlite3

import orjson

SPILL_AT = 16_384
FILTER_BITS = 1 << 23
BATCH = 4096


class IdSet:
    def __init__(self, spill_at: int | None = None):
        self._mem: set[int] | None = set()
        self._db: sqlite3.Connection | None = None
        self._bits = bytearray()
        self._pending: list[int] = []
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
        bit = h & (FILTER_BITS - 1)
        byte, mask = bit >> 3, 1 << (bit & 7)
        if self._bits[byte] & mask:
            self._flush()
            if self._db.execute("SELECT 1 FROM ids WHERE h = ?", (h,)).fetchone():  # type: ignore[union-attr]
                return False
        else:
            self._bits[byte] |= mask
        pending = self._pending
        pending.append(h)
        if len(pending) >= BATCH:
            self._flush()
        return True

    def _spill(self) -> None:
        db = sqlite3.connect("", isolation_level=None)  # "" is a private on-disk temporary database
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA cache_size = -4096")
        db.execute("CREATE TABLE ids(h INTEGER PRIMARY KEY)")
        db.execute("BEGIN")
        held, self._mem = self._mem or set(), None
        self._db, self._bits = db, bytearray(FILTER_BITS // 8)
        for h in held:  # through add(), so the bitmap and the batches are kept in one place
            self.add(h)
        self._flush()

    def _flush(self) -> None:
        if self._pending:
            batch = orjson.dumps(self._pending).decode()
            self._db.execute("INSERT INTO ids(h) SELECT value FROM json_each(?)", (batch,))  # type: ignore[union-attr]
            self._pending = []

    def __len__(self) -> int:
        if self._mem is not None:
            return len(self._mem)
        self._flush()
        return int(self._db.execute("SELECT count(*) FROM ids").fetchone()[0])  # type: ignore[union-attr]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._mem, self._bits, self._pending = set(), bytearray(), []
