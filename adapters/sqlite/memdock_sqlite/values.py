"""The value a ranked list is ordered by, for the steps that reorder it after rerank.py (context.py,
substance.py): a hit's `extra.rank_value` where an earlier step set one, else its place (its score where the
ranking is by score, bm25; else 1 / (k + rank), hybrid), as neighbours.py and rerank.py read it."""

from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

Ranked = list[tuple[int, float, dict[str, Any]]]

_LENGTH = 'coalesce(c."end" - c.start, length(c.body))'
"""Characters of a chunk's text, from its offsets in its entry where it has them (sparing a stored body's unpacking)."""
_TURNS = (
    f"SELECT c.rowid, c.id, c.thread_id, n.position, {_LENGTH}, json_extract(t.attrs, '$.format') "
    "FROM chunks c JOIN nodes n ON n.id = c.entry_id LEFT JOIN nodes t ON t.id = c.thread_id WHERE c.rowid IN ({})"
)
_LENGTHS = f"SELECT c.rowid, c.thread_id, {_LENGTH} FROM chunks c WHERE c.rowid IN ({{}})"
_FORMATS = "SELECT id, json_extract(attrs, '$.format') FROM nodes WHERE id IN ({})"


class Turn(NamedTuple):
    chunk: str
    thread: str
    position: int | None
    """The entry's place in its thread."""
    length: int
    """Characters of the chunk's text."""


def rank_values(ranked: Ranked, *, by_score: bool, k: int) -> dict[int, float]:
    return {
        rid: float(extra.get("rank_value", score if by_score else 1.0 / (k + rank)))
        for rank, (rid, score, extra) in enumerate(ranked, 1)
    }


def turns(conn: sqlite3.Connection, rowids: list[int], formats: frozenset[str] | None) -> dict[int, Turn]:
    """Thread, entry position and text length of each of ROWIDS in a thread imported in one of FORMATS (None:
    any thread)."""
    if not rowids:
        return {}
    found = conn.execute(_TURNS.format(",".join("?" * len(rowids))), rowids)
    return {
        rid: Turn(chunk, thread, position, length or 0)
        for rid, chunk, thread, position, length, fmt in found
        if formats is None or fmt in formats
    }


def lengths(conn: sqlite3.Connection, rowids: list[int], formats: frozenset[str] | None) -> dict[int, int]:
    """Characters of the text of each of ROWIDS in a thread imported in one of FORMATS (None: any thread); each
    thread's format is read once."""
    if not rowids:
        return {}
    found = conn.execute(_LENGTHS.format(",".join("?" * len(rowids))), rowids).fetchall()
    if formats is None:
        return {rid: length or 0 for rid, _, length in found}
    threads = list({thread for _, thread, _ in found})
    kept = {t for t, fmt in conn.execute(_FORMATS.format(",".join("?" * len(threads))), threads) if fmt in formats}
    return {rid: length or 0 for rid, thread, length in found if thread in kept}
