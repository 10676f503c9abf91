"""Spread: a question that asks for several things gathered over time has its hits spread over the sessions.

"What has Melanie painted?", "What activities does John do?", "What do both of them like?" ask for answers told in
several sessions (LoCoMo's multi-hop questions), while session pooling (rerank.py) and context turns (context.py)
fill the page from the one session that matched best. For such a question pooling is set to MANY_POOL_WEIGHT
(off; search.py), and the n-th hit of a thread, in ranked order, has its value divided by 1 + WEIGHT x (n - 1), so
the best turn of another session can come up among them. Which questions ask for several things is read from their
words (`asks_for_many`): English only, so a question in another script keeps its order. On LoCoMo dev
(`bench/locomo.py --idea many_pool_weight=... --idea session_spread_weight=...`, docs/concepts/recall.md) every
fold chose both, for multi-hop R@10 +0.016.
"""

from __future__ import annotations

import re
import sqlite3

from memdock_entries.rerank import ordered

from .values import Ranked, rank_values

SPREAD_WEIGHT = 0.1
MANY_POOL_WEIGHT = 0.0

_MANY = re.compile(
    r"\b(?i:has|have)\s+[A-Z][\w'-]*(?:\s+and\s+[A-Z][\w'-]*)?\s+(?!been\b|a\b|an\b|the\b|any\b)[a-z]+"
    r"|\b(?i:both|in common)\b"
    r"|\b(?i:activities|hobbies|things|ways|events|places)\b"
)
"""A question asking for several things: "has/have NAME <verb>" (what someone has done over time), "both", "in
common", or a plural of the kinds of thing LoCoMo's multi-hop questions list."""

_THREADS = (
    "SELECT c.rowid, c.thread_id, json_extract(t.attrs, '$.format') "
    "FROM chunks c LEFT JOIN nodes t ON t.id = c.thread_id WHERE c.rowid IN ({})"
)


def asks_for_many(question: str) -> bool:
    return _MANY.search(question) is not None


def spread(
    conn: sqlite3.Connection,
    ranked: Ranked,
    question: str,
    weight: float,
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None = None,
) -> Ranked:
    """RANKED with the n-th hit of each thread valued at its value / (1 + WEIGHT x (n - 1)) when QUESTION asks for
    several things (FORMATS: only threads imported in one of them; None: any). Scores are left as they are."""
    if weight <= 0 or len(ranked) < 2 or not asks_for_many(question):
        return ranked
    rowids = [rid for rid, _, _ in ranked]
    found = conn.execute(_THREADS.format(",".join("?" * len(rowids))), rowids)
    thread = {rid: tid for rid, tid, fmt in found if formats is None or fmt in formats}
    if not thread:
        return ranked
    value = rank_values(ranked, by_score=by_score, k=k)
    seen: dict[str, int] = {}
    for rid in sorted(rowids, key=lambda r: -value[r]):
        if rid in thread:
            before = seen.get(thread[rid], 0)
            value[rid] /= 1.0 + weight * before
            seen[thread[rid]] = before + 1
    return ordered(ranked, value)
