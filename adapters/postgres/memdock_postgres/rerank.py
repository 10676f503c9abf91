"""The session, time-cue, named-date and addressed-turn reordering the sqlite adapter applies (memdock_entries.rerank
says what each rule does and what it measured), over Postgres's chunks: the candidates' thread, text and author
come from the records in hand, their date (`ts`) and their thread's import format from one query."""

from __future__ import annotations

from typing import Any

import psycopg
from memdock_entries.rerank import Turn, Weights
from memdock_entries.rerank import reorder as _reorder

from .rows import body_of

Ranked = list[tuple[dict[str, Any], float, dict[str, Any]]]

_DATED = (
    "SELECT c.id, c.ts, t.rec->>'format' FROM chunks c LEFT JOIN threads t ON t.id = c.thread_id "
    "WHERE c.id = ANY(%(ids)s)"
)


def reorder(
    conn: psycopg.Connection,
    ranked: Ranked,
    question: str,
    weights: Weights,
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None,
) -> Ranked:
    """RANKED (records, best first) reordered by memdock_entries.rerank.reorder's rules (WEIGHTS, for QUESTION);
    a chunk deleted since it was ranked keeps its own place."""
    recs = {rec["id"]: rec for rec, _, _ in ranked}

    def read(ids: list[str]) -> dict[str, Turn]:
        found = conn.execute(_DATED, {"ids": ids}).fetchall()
        return {
            cid: Turn(recs[cid]["thread_id"], body_of(recs[cid]), recs[cid].get("author"), ts, fmt)
            for cid, ts, fmt in found
        }

    keyed = [(rec["id"], score, extra) for rec, score, extra in ranked]
    return [
        (recs[cid], score, extra)
        for cid, score, extra in _reorder(keyed, question, weights, read, by_score=by_score, k=k, formats=formats)
    ]
