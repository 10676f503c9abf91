"""Chunk bodies stored in compressed blocks (schema 8): several consecutive bodies zlib-compressed together, each
chunk's header line just before its body (schema 11: a chunk row keeps its header's length, `head`).

Each body alone shrank to 0.55 of its size on the 20k notes of bench/peers.py (0.39 on its markdown) at ~26 µs a
body; blocks at level 3 shrink them to 0.41 (0.37) in the pages they take, at half the CPU, since zlib finds the
words a note repeats of the notes before it and sets up once a block instead of once a body (`python
bench/sqlite_ingest.py --blocks`). A block is as many bodies as fill two database pages compressed: a row of a
table that does not fit its leaf page spills into overflow pages it fills whole, so a block that ends where its
last page ends leaves no page part empty (schema 8 as first built closed a block at 16 KiB of bodies: ~7 KB
compressed, an 8 KiB page each, 0.49× the notes' bodies). A chunk row keeps its block's id and its `span` (byte
offset << 32 | byte length); its body column is ''. Reading a body decompresses its block once per connection: a
small cache keeps the last blocks read.

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

from . import block_deflate

PAGES = 2  # database pages a block fills: the notes' bodies take 0.41× their size in pages (1 page: 0.43×, 4: 0.40×;
# 16 KiB blocks took 0.49×, a ~7 KB block alone in an 8 KiB page), the markdown's 0.37× (was 0.46×)
LEVEL = 3  # level 6 shrinks blocks 0.03 more at twice the CPU
CACHE = 512  # blocks a connection keeps (about 20 MiB of text): a query reads bodies from across the store
MARK = 0.85  # of a block's guessed bodies compressed before the compressor is kept for a trim (_Packer)
GUESS = 0.45  # compressed size over raw size assumed for a connection's first block (notes 0.42, markdown 0.37)
_LOW = 0xFFFFFFFF

Placed = tuple[int | None, int | None, str, int | None]
"""(block, span, body column, head): where a chunk's body is, and HEAD, the byte length of its header stored in the
block just before the body (None: the header stays in its column; schema 11)."""


def fill_bytes(page_size: int, pages: int) -> int:
    """The largest block that fills PAGES pages of PAGE_SIZE with no room left over: a text_blocks row whose record
    fits in a leaf page (payload up to page_size - 35 bytes, 4 of them its record header) takes that page alone;
    a longer one keeps page_size - 4 bytes on each overflow page (https://sqlite.org/fileformat2.html#ovflpgs)."""
    return page_size - 39 + (pages - 1) * (page_size - 4)


class _Packer:
    """Consecutive bodies cut into blocks that fill their pages: each block's bodies are chosen by the ratio the
    last block compressed at, and trimmed (re-compressed) when they came out over the page (half the notes' blocks
    did: the ratio of the block before is as often under as over).

    A trim re-compresses only the bodies after a mark: the stream is compressed in two pieces, the compressor kept
    (copied) after the first, which ends at MARK of the block's guessed bodies; a trimmed block that still reaches
    the mark goes on from that copy. Its bytes are those of `block_deflate.compress` of its bodies (a compressor writes
    the same stream whatever pieces its input comes in; ISA-L's, which cannot be copied, deflates them whole)."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.fill = fill_bytes(conn.execute("PRAGMA page_size").fetchone()[0], PAGES)
        self.ratio = GUESS

    def cut(self, raw: Sequence[bytes], start: int) -> tuple[int, bytes]:
        """The end of the block starting at RAW[START], and its compressed bytes."""
        end = self._upto(raw, start, self.fill / self.ratio)
        mark = min(end, self._upto(raw, start, MARK * self.fill / self.ratio))
        z = block_deflate.compressobj(LEVEL)
        head = z.compress(b"".join(raw[start:mark]))
        kept = z.copy()
        data = head + z.compress(b"".join(raw[mark:end])) + z.flush()
        while len(data) > self.fill and end - start > 1:
            size = sum(map(len, raw[start:end]))
            end = min(end - 1, self._upto(raw, start, size * self.fill / len(data) * 0.97))
            if end >= mark:
                z = kept.copy()
                data = head + z.compress(b"".join(raw[mark:end])) + z.flush()
            else:
                data = block_deflate.compress(b"".join(raw[start:end]), LEVEL)
        self.ratio = max(0.05, len(data) / max(1, sum(map(len, raw[start:end]))))
        return end, data

    @staticmethod
    def _upto(raw: Sequence[bytes], start: int, budget: float) -> int:
        """The end of the longest run of bodies from START within BUDGET bytes (one body at least)."""
        end, size = start, 0
        while end < len(raw) and (end == start or size + len(raw[end]) <= budget):
            size += len(raw[end])
            end += 1
        return end


def cuts(packer: _Packer, raw: Sequence[bytes]) -> list[tuple[int, bytes]]:
    """RAW (bodies' UTF-8) cut into blocks in order: each block's end in RAW and its compressed bytes (no database
    is touched: block_worker.py runs this on its thread)."""
    out: list[tuple[int, bytes]] = []
    start = 0
    while start < len(raw):
        start, data = packer.cut(raw, start)
        out.append((start, data))
    return out


def _blocks_of(conn: sqlite3.Connection, raw: Sequence[bytes], heads: Sequence[int]) -> list[tuple[int, int]]:
    """RAW (each a header's and a body's UTF-8, HEADS the headers' lengths) put into new blocks in order; each body's
    (block, span)."""
    return stored(conn, raw, heads, cuts(_Packer(conn), raw))


def stored(
    conn: sqlite3.Connection, raw: Sequence[bytes], heads: Sequence[int], blocks: list[tuple[int, bytes]]
) -> list[tuple[int, int]]:
    """BLOCKS (`cuts` of RAW, HEADS its headers' lengths) inserted into text_blocks in order; each body's (block,
    span): the span of what follows its header."""
    out: list[tuple[int, int]] = []
    start = 0
    for end, data in blocks:
        block = conn.execute("INSERT INTO text_blocks(data) VALUES (?)", (data,)).lastrowid
        assert block is not None
        offset = 0
        for b, head in zip(raw[start:end], heads[start:end]):
            out.append((block, (offset + head) << 32 | (len(b) - head)))
            offset += len(b)
        start = end
    return out


def place(conn: sqlite3.Connection, headers: Sequence[str], bodies: Sequence[str]) -> list[Placed]:
    """BODIES (HEADERS their chunks' headers) as chunk rows store them, packed into new blocks (inside the caller's
    transaction)."""
    raw, heads, where, out = encoded(headers, bodies)
    return placed_at(out, where, heads, _blocks_of(conn, raw, heads))


def encoded(headers: Sequence[str], bodies: Sequence[str]) -> tuple[list[bytes], list[int], list[int], list[Placed]]:
    """The UTF-8 of each of HEADERS and BODIES, one after the other (a header is kept in its block, just before its
    body, where it is not ''), each header's length, where each came from in BODIES, and the bodies as rows will
    store them but for their blocks. A chunk whose header or body is not valid UTF-8 (a lone surrogate) keeps both
    in their columns, for SQLite to refuse as it refused them before."""
    raw: list[bytes] = []
    heads: list[int] = []
    where: list[int] = []
    out: list[Placed] = []
    for k, (header, body) in enumerate(zip(headers, bodies)):
        try:
            head, text = header.encode(), body.encode()
        except UnicodeEncodeError:
            out.append((None, None, body, None))
            continue
        raw.append(head + text if head else text)
        heads.append(len(head))
        where.append(k)
        out.append((None, None, "", None))
    return raw, heads, where, out


def placed_at(out: list[Placed], where: list[int], heads: Sequence[int], spans: list[tuple[int, int]]) -> list[Placed]:
    """OUT (`encoded`'s) with the block and span of each body at WHERE, and its header's length where it has one."""
    for k, head, (block, span) in zip(where, heads, spans):
        out[k] = (block, span, "", head or None)
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

    def stored(self, block: int, span: int, head: int) -> bytes:
        """The bytes a chunk keeps in BLOCK: its body at SPAN, and its header of HEAD bytes just before it."""
        start, end = (span >> 32) - head, (span >> 32) + (span & _LOW)
        return bytes(self.upto(block, end)[start:end]) if end else b""

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
        "SELECT rowid, block, span, coalesce(head, 0) FROM chunk_rows WHERE block IN (SELECT block FROM stale_blocks) "
        "ORDER BY rowid"
    ).fetchall()
    raw = [reader.stored(b, s, h) for _, b, s, h in live]
    placed = _blocks_of(conn, raw, [h for *_, h in live]) if raw else []
    conn.executemany(
        "UPDATE chunk_rows SET block = ?, span = ? WHERE rowid = ?",
        [(b, s, rowid) for (b, s), (rowid, *_) in zip(placed, live)],
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
        placed = place(conn, [""] * len(rows), [body for _, body in rows])  # headers stay in their column
        conn.executemany(
            "UPDATE chunk_rows SET block = ?, span = ?, body = '' WHERE rowid = ?",
            [(b, s, rowid) for (b, s, *_), (rowid, _) in zip(placed, rows) if b is not None],
        )
        after = rows[-1][0]
