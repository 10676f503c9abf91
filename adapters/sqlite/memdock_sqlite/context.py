"""Context turns: the turns just before and after each of the best hits in its thread are lent a place.

In a conversation the turn that matches a question's words is often beside the one that holds the answer: the
question it answers ("what did you do on Sunday?"), the answer that follows, or the day named a turn earlier.
neighbours.py lends the turn after a hit that asks a question; this step lends each of the top hits' TURNS
entries either side (by entry position in the thread) a ranking value of WEIGHT times the hit's, where that beats
the turn's own. A lent turn that was not ranked comes in with the score WEIGHT times the hit's (as answers do,
neighbours.py), and `extra.context_of` names the hit. On LoCoMo dev (`bench/locomo.py --idea
context_turn_weight=...`, docs/concepts/recall.md) this lifts single-hop and temporal questions.
"""

from __future__ import annotations

import sqlite3

from memdock_entries.rerank import ordered

from . import db
from .values import Ranked, Turn, rank_values, turns

CONTEXT_WEIGHT = 0.5
CONTEXT_TURNS = 2

_AROUND = (
    "SELECT (SELECT k.rowid FROM chunk_rows k WHERE {of} ORDER BY k.position LIMIT 1) FROM nodes n "
    "WHERE n.thread_id = ? AND n.kind = 'entry' AND n.position BETWEEN ? AND ? AND n.position != ?"
)


def around(conn: sqlite3.Connection, turn: Turn, width: int) -> list[int]:
    """The first chunk of each entry up to WIDTH places before or after TURN's in its thread (one index range on
    nodes(thread_id, position))."""
    if turn.position is None:
        return []
    p = turn.position
    sql = _AROUND.replace("{of}", db.entry_of(conn).format(k="k", n="n"))
    found = conn.execute(sql, (turn.thread, p - width, p + width, p)).fetchall()
    return [rid for (rid,) in found if rid is not None]


def lend(
    conn: sqlite3.Connection,
    ranked: Ranked,
    weight: float,
    width: int,
    top: int,
    allowed: set[int] | None,
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None = None,
) -> Ranked:
    """RANKED with the turns up to WIDTH entries either side of each of its TOP hits valued at WEIGHT x the hit's
    value where that beats their own (ALLOWED: the chunks a filter lets through, None: any; FORMATS: only hits in
    threads imported in one of them lend). Scores of ranked chunks are left as they are."""
    if weight <= 0 or width <= 0 or not ranked:
        return ranked
    value = rank_values(ranked, by_score=by_score, k=k)
    entries = {rid: (rid, score, extra) for rid, score, extra in ranked}
    order = list(entries)
    edge = sorted(value.values(), reverse=True)[top - 1] if len(value) >= top else 0.0
    heads = [head for head in ranked[:top] if weight * value[head[0]] > edge]  # the others lend below the page
    found = turns(conn, [rid for rid, _, _ in heads], formats)
    for rid, score, _ in heads:
        if rid not in found:
            continue
        lent = weight * value[rid]
        for near in around(conn, found[rid], width):
            if (allowed is not None and near not in allowed) or value.get(near, -1.0) >= lent:
                continue
            value[near] = lent
            if near not in entries:
                entries[near] = (near, weight * score, {"context_of": found[rid].chunk})
                order.append(near)
    return ordered([entries[rid] for rid in order], value)
