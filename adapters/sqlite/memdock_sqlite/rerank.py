"""The session, time-cue, named-date and addressed-turn reordering (memdock_entries.rerank says what each rule does
and what it measured), over sqlite's chunks: one query reads each candidate's thread, text, author, date and its
thread's import format."""

from __future__ import annotations

import sqlite3
from typing import Any

from memdock_entries.rerank import CONVERSATIONS, TIME_CUES, Read, Turn, Weights, asks_when
from memdock_entries.rerank import reorder as _reorder

__all__ = ["CONVERSATIONS", "TIME_CUES", "Weights", "asks_when", "reorder"]

Ranked = list[tuple[int, float, dict[str, Any]]]

_ROWS = (
    "SELECT c.rowid, c.thread_id, c.body, c.author, c.event_ts, json_extract(t.attrs, '$.format') "
    "FROM chunks c LEFT JOIN nodes t ON t.id = c.thread_id WHERE c.rowid IN ({})"
)


def _turns(conn: sqlite3.Connection) -> Read[int]:
    def read(rowids: list[int]) -> dict[int, Turn]:
        found = conn.execute(_ROWS.format(",".join("?" * len(rowids))), rowids)
        return {rid: Turn(thread, body, author, ts, fmt) for rid, thread, body, author, ts, fmt in found}

    return read


def reorder(
    conn: sqlite3.Connection,
    ranked: Ranked,
    question: str,
    weights: Weights,
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None = None,
) -> Ranked:
    """RANKED reordered by the rules of memdock_entries.rerank.reorder, reading the candidates from CONN."""
    return _reorder(ranked, question, weights, _turns(conn), by_score=by_score, k=k, formats=formats)
