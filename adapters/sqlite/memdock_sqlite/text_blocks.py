"""Chunk bodies stored in compressed blocks (schema 8): several consecutive bodies zlib-compressed together.

Each body alone shrank to 0.55 of its size on the 20k notes of bench/peers.py (0.41 on its markdown) at ~26 µs a
body; 16 KiB blocks at level 3 shrink them to 0.42 (0.37) at a quarter of the CPU, since zlib finds the words a note
repeats of the notes before it and sets up once a block instead of once a body (`python bench/sqlite_ingest.py
--blocks`). A chunk row keeps its block's id and its `span` (byte offset << 32 | byte length); its body column is
''. Reading a body decompresses its block once per connection: a small cache keeps the last blocks read.

A block is never changed: a block id names the same bytes for as long as it exists, and AUTOINCREMENT never gives
it to another block, so a cache keyed by id is right on any connection, in any later transaction. A writer's cache
is emptied at each transaction's start and end (db.transaction), so a block of a transaction rolled back is
forgotten with it. When a chunk leaves its block (deleted, or rewritten into another), a trigger marks the block
stale; `sweep`, inside the same transaction, packs the bodies still in it into a new block and deletes it, so a
forgotten chunk's text does not survive inside a block (with secure_delete on, its pages are zeroed).
"""

from __future__ import annotations

import sqlite3
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

BLOCK_BYTES = 16384  # notes compress to ~7 KB a block, one to an 8 KiB page; see the module docstring
LEVEL = 3  # level 6 shrinks blocks 0.03 more at twice the CPU
CACHE = 1024  # blocks a connection keeps (16 MiB at most): a query reads bodies from across the store
_LOW = 0xFFFFFFFF

Placed = tuple[int | None, int | None, str]  # (block, span, body column)


def _blocks_of(conn: sqlite3.Connection, raw: Sequence[bytes]) -> list[tuple[int, int]]:
    """RAW (bodies' UTF-8) put into new blocks in order; each body's (block, span)."""
    out: list[tuple[int, int]] = []
    start, size = 0, 0
    for k, body in enumerate(raw):
        size += len(body)
        if size >= BLOCK_BYTES or k == len(raw) - 1:
            group = raw[start : k + 1]
            data = zlib.compress(b"".join(group), LEVEL)
            block = conn.execute("INSERT INTO text_blocks(data) VALUES (?)", (data,)).lastrowid
            assert block is not None
            offset = 0
            for b in group:
                out.append((block, offset << 32 | len(b)))
                offset += len(b)
            start, size = k + 1, 0
    return out


def place(conn: sqlite3.Connection, bodies: Sequence[str]) -> list[Placed]:
    """BODIES as chunk rows store them, packed into new blocks (inside the caller's transaction). A body that is
    not valid UTF-8 (a lone surrogate) stays as it is, for SQLite to refuse as it refused it before."""
    raw: list[bytes] = []
    where: list[int] = []
    out: list[Placed] = []
    for k, body in enumerate(bodies):
        try:
            raw.append(body.encode())
        except UnicodeEncodeError:
            out.append((None, None, body))
            continue
        where.append(k)
        out.append((None, None, ""))
    for k, (block, span) in zip(where, _blocks_of(conn, raw)):
        out[k] = (block, span, "")
    return out


class Reader:
    """`unblock(block, span)` of one connection: a body read from its block, decompressed only as far as the body
    ends (and on from there for a later body); the last CACHE blocks kept."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.cache: OrderedDict[int, tuple[Any, bytearray]] = OrderedDict()

    def upto(self, block: int, end: int) -> bytearray:
        """Block BLOCK's text, at least its first END (> 0) bytes."""
        got = self.cache.get(block)
        if got is None:
            row = self.conn.execute("SELECT data FROM text_blocks WHERE id = ?", (block,)).fetchone()
            if row is None:
                raise ValueError(f"text block {block} is missing from the database")
            z = zlib.decompressobj()
            got = self.cache[block] = (z, bytearray(z.decompress(row[0], end)))
            if len(self.cache) > CACHE:
                self.cache.popitem(last=False)
        else:
            self.cache.move_to_end(block)
        z, data = got
        if len(data) < end:
            data += z.decompress(z.unconsumed_tail, end - len(data))
            if len(data) < end:
                raise ValueError(f"text block {block} holds {len(data)} bytes, short of a chunk's end at {end}")
        return data

    def __call__(self, block: int, span: int) -> str:
        start, length = span >> 32, span & _LOW
        return self.upto(block, start + length)[start : start + length].decode() if length else ""


def register(conn: sqlite3.Connection) -> None:
    reader = Reader(conn)
    conn.create_function("unblock", 2, reader, deterministic=True)
    conn.create_function("unblock_forget", 0, reader.cache.clear)


def forget_cache(conn: sqlite3.Connection) -> None:
    """Empty CONN's cache of blocks (at a writer's transaction boundaries: see the module's docstring)."""
    conn.execute("SELECT unblock_forget()")


def sweep(conn: sqlite3.Connection) -> int:
    """Re-pack the bodies still in stale blocks into new ones and delete the stale blocks (inside the caller's
    transaction); returns how many blocks were deleted."""
    stale = [b for (b,) in conn.execute("SELECT block FROM stale_blocks ORDER BY block")]
    if not stale:
        return 0
    reader = Reader(conn)
    live = conn.execute(
        "SELECT rowid, block, span FROM chunk_rows WHERE block IN (SELECT block FROM stale_blocks) ORDER BY rowid"
    ).fetchall()
    raw = [reader(b, s).encode() for _, b, s in live]
    placed = _blocks_of(conn, raw) if raw else []
    conn.executemany(
        "UPDATE chunk_rows SET block = ?, span = ? WHERE rowid = ?",
        [(b, s, rowid) for (b, s), (rowid, _, _) in zip(placed, live)],
    )
    _delete(conn, stale)
    return len(stale)


def _delete(conn: sqlite3.Connection, blocks: Iterable[int]) -> None:
    ids = [(b,) for b in blocks]
    conn.executemany("DELETE FROM text_blocks WHERE id = ?", ids)
    conn.executemany("DELETE FROM stale_blocks WHERE block = ?", ids)


def relay(conn: sqlite3.Connection, rows_at_once: int = 5000) -> None:
    """Schema 7 and before kept each body in its row: moved into blocks, ROWS_AT_ONCE rows at a time (before
    chunk_rows' triggers exist, so nothing is re-indexed; the bodies are the same words)."""
    after = -(1 << 63)
    sql = "SELECT rowid, unpack(body) FROM chunk_rows WHERE block IS NULL AND rowid > ? ORDER BY rowid LIMIT ?"
    while rows := conn.execute(sql, (after, rows_at_once)).fetchall():
        placed = place(conn, [body for _, body in rows])
        conn.executemany(
            "UPDATE chunk_rows SET block = ?, span = ?, body = '' WHERE rowid = ?",
            [(b, s, rowid) for (b, s, _), (rowid, _) in zip(placed, rows) if b is not None],
        )
        after = rows[-1][0]
