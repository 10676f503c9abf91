"""Answer expansion: a hit that asks a question pulls in the turn after it, where its answer usually is.

In a conversation the words of a question often sit in one turn and the answer in the next ("what did you do
on Sunday?" / "we went hiking"). Each of the top hits that asks a question (its header or text holds a question
mark, QUESTION_MARKS) lends the turn after it in its thread (the first chunk of the next entry that has one) a
place in the ranking worth WEIGHT times its own, so the answer to the best hit can outrank a weak match; a chunk
already ranked higher keeps its place. Its score is WEIGHT times the hit's score as shown, and
`extra.neighbour_of` names the hit. A place is worth the hit's score where the ranking is by score (bm25, so
scores still fall with rank, also when an answer is itself a question and lends in turn), else its reciprocal
rank (hybrid, ranked by fusion).

Only questions lend, and only forward: on LoCoMo (bench/locomo.py) lending both neighbours of every top hit
filled the page with the turns around a few hits, which cost multi-hop questions the other turns they needed
(R@10 0.352 with MiniLM), while a statement's neighbours rarely held anything asked about.

By default only a conversation's turns lend places (threads imported as `chat` or `irc`, CONVERSATIONS), at
CONVERSATION_WEIGHT: on a memory of notes, a note written just after a perfect match would score nearly as high
for a query it shares nothing with, which is not what a score promises there. A `neighbour_weight` configured
applies to every thread.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from memdock_entries.answers import CONVERSATION_WEIGHT, CONVERSATIONS, QUESTION_MARKS, SKIPPED_ENTRIES, asks

from . import db
from .scoring import TIE_DIGITS

__all__ = ["CONVERSATIONS", "CONVERSATION_WEIGHT", "QUESTION_MARKS", "SKIPPED_ENTRIES", "asks", "expand"]

Ranked = list[tuple[int, float, dict[str, Any]]]

_HITS = (
    "SELECT c.rowid, c.id, c.header, c.body, c.thread_id, n.position, json_extract(t.attrs, '$.format') "
    "FROM chunks c JOIN nodes n ON n.id = c.entry_id LEFT JOIN nodes t ON t.id = c.thread_id WHERE c.rowid IN ({})"
)
_NEXT_ENTRIES = "SELECT id FROM nodes WHERE thread_id = ? AND kind = 'entry' AND position > ? ORDER BY position LIMIT ?"
_FIRST_CHUNK = "SELECT k.rowid FROM node_rows n JOIN chunk_rows k ON {of} WHERE n.id = ? ORDER BY k.position LIMIT 1"


def _answer(conn: sqlite3.Connection, thread: str, entry_position: int | None) -> int | None:
    """The first chunk of the first entry after ENTRY_POSITION in THREAD that has one (index seeks on
    nodes(thread_id, position) and chunks(entry_id), whatever the thread's size)."""
    if entry_position is None:
        return None
    first_chunk = _FIRST_CHUNK.replace("{of}", db.entry_of(conn).format(k="k", n="n"))
    for (following,) in conn.execute(_NEXT_ENTRIES, (thread, entry_position, SKIPPED_ENTRIES + 1)).fetchall():
        row = conn.execute(first_chunk, (following,)).fetchone()
        if row is not None:
            return row[0]
    return None


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
    """RANKED (best first) with the answers of its TOP hits that ask a question placed at WEIGHT x their hit's
    place: its score (BY_SCORE) or 1 / (K + rank); with FORMATS, only hits in threads imported in one of them.
    Equal places keep RANKED's order (its ties are broken by BM25)."""
    if weight <= 0 or not ranked:
        return ranked
    value = {rid: score if by_score else 1.0 / (k + rank) for rank, (rid, score, _) in enumerate(ranked, 1)}
    entries = {rid: (rid, score, extra) for rid, score, extra in ranked}
    heads = ranked[:top]
    marks = ",".join("?" * len(heads))
    found = {row[0]: row[1:] for row in conn.execute(_HITS.format(marks), [rid for rid, _, _ in heads])}
    for rid, _, _ in heads:
        if rid not in found:
            continue
        cid, header, body, thread, entry_position, fmt = found[rid]
        if not (asks(body) or asks(header)) or (formats is not None and fmt not in formats):
            continue
        answer = _answer(conn, thread, entry_position)
        lent = weight * value[rid]  # its place as it stands: raised if it answers a question above it
        if answer is None or (allowed is not None and answer not in allowed) or value.get(answer, -1.0) >= lent:
            continue
        value[answer] = lent
        _, own, extra = entries.get(answer, (answer, 0.0, {}))
        entries[answer] = (answer, max(own, entries[rid][1] * weight), {**extra, "neighbour_of": cid})
    return [entries[rid] for rid in sorted(value, key=lambda r: -round(value[r], TIE_DIGITS))]
