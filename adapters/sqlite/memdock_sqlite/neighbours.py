"""Neighbour expansion: a hit pulls in the chunks just before and after it in its thread.

In a conversation the words of a question often sit in one turn and the answer in the next ("what did you do
on Sunday?" / "we went hiking"). Each of the top hits lends its neighbours a place in the ranking worth WEIGHT
times its own, so a neighbour of the best hit can outrank a weak match; a neighbour already ranked higher keeps
its place. Its score is WEIGHT times the hit's, and `extra.neighbour_of` names the hit. A place is worth the
hit's score where the ranking is by score (bm25, so scores still fall with rank), else its reciprocal rank
(hybrid, ranked by fusion).

By default only a conversation's turns lend places (threads imported as `chat` or `irc`, CONVERSATIONS), at
CONVERSATION_WEIGHT: there the turn after a hit is its likely answer, while on a memory of notes a note written
just after a perfect match would score nearly as high for a query it shares nothing with, which is not what a
score promises there. A `neighbour_weight` configured applies to every thread.
"""

from __future__ import annotations

import sqlite3
from typing import Any

Ranked = list[tuple[int, float, dict[str, Any]]]

_IN_ENTRY = "SELECT rowid FROM chunks WHERE entry_id = ? AND position {op} ? ORDER BY position {order} LIMIT 1"
_ENTRY = (
    "SELECT id FROM nodes WHERE thread_id = ? AND kind = 'entry' AND position {op} ? ORDER BY position {order} LIMIT 1"
)
_SIDES = (("<", "DESC"), (">", "ASC"))  # before, after
_FORMAT = "SELECT json_extract(n.attrs, '$.format') FROM chunks c JOIN nodes n ON n.id = c.thread_id WHERE c.rowid = ?"

CONVERSATIONS = frozenset({"chat", "irc"})
CONVERSATION_WEIGHT = 0.9
"""The weight every rotation fold of `bench/locomo.py --neighbours` chose for bm25 (README)."""


def _around(conn: sqlite3.Connection, rowid: int) -> list[int]:
    """The chunk before and the chunk after ROWID in its thread: in its own entry, else at the near end of the
    entry before or after (index seeks on chunks(entry_id) and nodes(thread_id, position), whatever the thread's
    size)."""
    at = conn.execute(
        "SELECT c.entry_id, c.position, c.thread_id, n.position FROM chunks c JOIN nodes n ON n.id = c.entry_id "
        "WHERE c.rowid = ?",
        (rowid,),
    ).fetchone()
    if at is None:
        return []
    entry, position, thread, entry_position = at
    found = []
    for op, order in _SIDES:
        row = conn.execute(_IN_ENTRY.format(op=op, order=order), (entry, position)).fetchone()
        if row is None and entry_position is not None:
            other = conn.execute(_ENTRY.format(op=op, order=order), (thread, entry_position)).fetchone()
            if other is not None:
                row = conn.execute(
                    f"SELECT rowid FROM chunks WHERE entry_id = ? ORDER BY position {order} LIMIT 1", other
                ).fetchone()
        if row is not None:
            found.append(row[0])
    return found


def expand(
    conn: sqlite3.Connection,
    ranked: Ranked,
    weight: float,
    top: int,
    k: int,
    allowed: set[int] | None,
    *,
    by_score: bool,
    formats: frozenset[str] | None = None,
) -> Ranked:
    """RANKED (best first) with the neighbours of its TOP hits placed at WEIGHT x their hit's place: its score
    (BY_SCORE) or 1 / (K + rank); with FORMATS, only hits in threads imported in one of them lend places."""
    if weight <= 0 or not ranked:
        return ranked
    value = {rid: score if by_score else 1.0 / (k + rank) for rank, (rid, score, _) in enumerate(ranked, 1)}
    entries = {rid: (rid, score, extra) for rid, score, extra in ranked}
    for rid, score, _ in ranked[:top]:
        if formats is not None and _format(conn, rid) not in formats:
            continue
        lent = weight * value[rid]
        for near in _around(conn, rid):
            if (allowed is not None and near not in allowed) or value.get(near, -1.0) >= lent:
                continue
            value[near] = lent
            _, own, extra = entries.get(near, (near, 0.0, {}))
            parent = conn.execute("SELECT id FROM chunks WHERE rowid = ?", (rid,)).fetchone()[0]
            entries[near] = (near, max(own, score * weight), {**extra, "neighbour_of": parent})
    return [entries[rid] for rid in sorted(value, key=lambda r: -value[r])]


def _format(conn: sqlite3.Connection, rowid: int) -> str | None:
    """The importer format of the thread holding chunk ROWID (None for a thread that does not say)."""
    row = conn.execute(_FORMAT, (rowid,)).fetchone()
    return row[0] if row else None
