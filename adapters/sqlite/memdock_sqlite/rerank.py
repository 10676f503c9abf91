"""The session, time-cue, named-date and addressed-turn reordering (memdock_entries.rerank says what each rule does
and what it measured), over sqlite's chunks: one query reads each candidate's thread, text, author, date and its
thread's import format."""

from __future__ import annotations

import sqlite3
from typing import Any

from memdock_entries import timeframe
from memdock_entries.rerank import CONVERSATIONS, TIME_CUES, Read, Turn, Weights, asks_when, ordered
from memdock_entries.rerank import reorder as _reorder

__all__ = ["CONVERSATIONS", "DATED_CUE_WEIGHT", "TIME_CUES", "Weights", "asks_when", "reorder"]

DATED_CUE_WEIGHT = 0.5
"""For a question naming a date, a chunk dated within it whose text names a time ("last Friday", "last week") has
its ranking value raised by this weight times itself (`dated_cue_weight`; 0 turns it off): a question naming a day
asks about an event, which a turn tells of in the days after with a relative time."""

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
    dated_cue: float = DATED_CUE_WEIGHT,
) -> Ranked:
    """RANKED reordered by the rules of memdock_entries.rerank.reorder, reading the candidates from CONN, then
    the chunks dated within a date QUESTION names that name a time raised by DATED_CUE times their value."""
    ranked = _reorder(ranked, question, weights, _turns(conn), by_score=by_score, k=k, formats=formats)
    spans = timeframe.spans(question) if dated_cue > 0 and weights.dated > 0 else []
    if not spans or not ranked:
        return ranked
    turns = _turns(conn)([rid for rid, _, _ in ranked])
    value: dict[int, float] = {}
    for rank, (rid, score, extra) in enumerate(ranked, 1):
        own = extra.get("rank_value", score if by_score else 1.0 / (k + rank))
        turn = turns.get(rid)
        cued = turn is not None and timeframe.within(spans, turn.timestamp) and TIME_CUES.search(turn.body or "")
        value[rid] = own * (1.0 + dated_cue) if cued else own
    return ordered(ranked, value)
