"""A batch's chunk bodies compressed into blocks on a worker thread while the batch's other rows are written.

text_blocks.place packs and stores the bodies in one call, on the thread that writes every row: on a
`memdock index` of bench/peers.py's 100k synthetic chunks that was about a fifth of the adapter's time, beside a
third for the chunk_fts inserts. zlib and ISA-L both let go of the GIL while they deflate, and so does SQLite while
it inserts, so the blocks of a batch are cut and compressed on one worker thread (`text_blocks.cuts`, which
touches no database) while the caller inserts the batch's FTS rows, and only then stored in the caller's
transaction (`Packing.placed`). The blocks, their ids and their bytes are those `text_blocks.place` gives.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

from . import text_blocks

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="text-blocks")  # a batch's blocks are cut in order


class Packing:
    """BODIES' blocks (HEADERS their chunks' headers) being compressed on the worker thread from the start;
    `placed()` stores them in CONN."""

    def __init__(self, conn: sqlite3.Connection, headers: Sequence[str], bodies: Sequence[str]):
        self.conn = conn
        self.raw, self.heads, self.where, self.out = text_blocks.encoded(headers, bodies)
        self.blocks: Future[list[tuple[int, bytes]]] = _POOL.submit(
            text_blocks.cuts, text_blocks._Packer(conn), self.raw
        )
        self.done: list[text_blocks.Placed] | None = None

    def placed(self) -> list[text_blocks.Placed]:
        """The bodies as chunk rows store them (text_blocks.place's), their blocks inserted on the first call (in
        the caller's transaction; an error of the worker is raised here)."""
        if self.done is None:
            spans = text_blocks.stored(self.conn, self.raw, self.heads, self.blocks.result())
            self.done = text_blocks.placed_at(self.out, self.where, self.heads, spans)
        return self.done
