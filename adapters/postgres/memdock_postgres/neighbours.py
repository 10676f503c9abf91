"""Answer expansion as the sqlite adapter does it (memdock_sqlite.neighbours says why and what it measured): each
of the top hits that asks a question lends the turn after it in its thread (the first chunk of the next entry that
has one) a place worth WEIGHT times its score; a chunk already ranked higher keeps its place. By default only in
conversations (threads imported as chat or irc), at 0.9; a `neighbour_weight` configured applies everywhere."""

from __future__ import annotations

from typing import Any

import psycopg
from memdock_entries.answers import CONVERSATION_WEIGHT, CONVERSATIONS, SKIPPED_ENTRIES, asks

Ranked = list[tuple[dict[str, Any], float, dict[str, Any]]]

_CONTEXT = (
    "SELECT c.id, (e.rec->>'position')::numeric, t.rec->>'format' FROM chunks c JOIN entries e ON e.id = c.entry_id "
    "LEFT JOIN threads t ON t.id = c.thread_id WHERE c.id = ANY(%(ids)s)"
)
_ANSWER = (
    "SELECT a.rec FROM (SELECT id, (rec->>'position')::numeric AS pos FROM entries WHERE thread_id = %(thread)s "
    "AND (rec->>'position')::numeric > %(after)s ORDER BY 2 LIMIT %(skip)s) e "
    "JOIN LATERAL (SELECT c.rec FROM chunks c WHERE c.entry_id = e.id{where} "
    "ORDER BY (c.rec->>'position')::numeric LIMIT 1) a ON true ORDER BY e.pos LIMIT 1"
)


def settings(configured: float | None) -> tuple[float, frozenset[str] | None]:
    """The weight, and the thread formats that lend (None: every thread)."""
    return (CONVERSATION_WEIGHT, CONVERSATIONS) if configured is None else (configured, None)


def expand(
    conn: psycopg.Connection,
    ranked: Ranked,
    weight: float,
    formats: frozenset[str] | None,
    top: int,
    where: str,
    args: dict[str, Any],
) -> Ranked:
    """RANKED (best first, by score) with the answers of its TOP hits that ask a question placed at WEIGHT x their
    score. WHERE (conditions over the alias c, values in ARGS) is what an answer must pass: the query's filters."""
    if weight <= 0 or not ranked:
        return ranked
    value = {rec["id"]: score for rec, score, _ in ranked}
    entries = {rec["id"]: (rec, score, extra) for rec, score, extra in ranked}
    heads = ranked[:top]
    context = {row[0]: row[1:] for row in conn.execute(_CONTEXT, {"ids": [rec["id"] for rec, _, _ in heads]})}
    for rec, _, _ in heads:
        position, fmt = context.get(rec["id"], (None, None))
        if position is None or not (asks(rec["text"]) or asks(rec.get("header") or "")):
            continue
        if formats is not None and fmt not in formats:
            continue
        query = _ANSWER.format(where=where)
        row = conn.execute(query, {**args, "thread": rec["thread_id"], "after": position, "skip": SKIPPED_ENTRIES + 1})
        found = row.fetchone()
        lent = weight * value[rec["id"]]
        if found is None or value.get(found[0]["id"], -1.0) >= lent:
            continue
        answer = found[0]
        value[answer["id"]] = lent
        _, own, extra = entries.get(answer["id"], (answer, 0.0, {}))
        shown = entries[rec["id"]][1] * weight
        entries[answer["id"]] = (answer, max(own, shown), {**extra, "neighbour_of": rec["id"]})
    return [entries[i] for i in sorted(value, key=lambda i: -round(value[i], 6))]
