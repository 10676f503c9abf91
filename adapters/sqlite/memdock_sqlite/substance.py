"""Substance: a turn that says more is ranked a little above one that says less, where the words tie.

A question's words often match a turn only through its speaker's name (the chunk header holds it): "What console
does Nate own?" matches every turn of Nate's equally, and BM25, which favours short chunks, then ranks "Bye!" and
"Take care!" first. Every ranked chunk's value is raised by WEIGHT times its length's share of FULL_LENGTH
characters (at most 1), so among equal matches a turn that holds a fact outranks a greeting, while a value at
least 1 + WEIGHT times another's (a turn holding more of the question's words) is never overtaken by it. On LoCoMo dev
(`bench/locomo.py --idea substance_weight=...`, docs/concepts/recall.md) it lifts multi-hop and open-domain
questions, whose evidence shares the fewest words with them.
"""

from __future__ import annotations

import sqlite3

from memdock_entries.rerank import ordered

from .values import Ranked, lengths, rank_values

SUBSTANCE_WEIGHT = 0.2
FULL_LENGTH = 100


def weigh(
    conn: sqlite3.Connection,
    ranked: Ranked,
    weight: float,
    *,
    by_score: bool,
    k: int,
    formats: frozenset[str] | None = None,
) -> Ranked:
    """RANKED reordered by value x (1 + WEIGHT x min(1, length / FULL_LENGTH)); with FORMATS, only chunks of
    threads imported in one of them are weighed. Scores are left as they are."""
    if weight <= 0 or not ranked:
        return ranked
    value = rank_values(ranked, by_score=by_score, k=k)
    for rid, length in lengths(conn, list(value), formats).items():
        value[rid] *= 1.0 + weight * min(length, FULL_LENGTH) / FULL_LENGTH
    return ordered(ranked, value)
