"""Scores in [0, 1] that mean the same thing on a store of two notes and of a million.

A chunk's lexical score is the share of the query's information it contains: the sum of the BM25 idf of the
query terms it matches over the sum of the idf of every query term. A chunk holding every query term scores 1
whatever the store size; adding unrelated notes raises every term's idf by a similar amount, so the share
barely moves. On a tiny store idf is compressed (every term is in a third of three notes), so the store is
treated as holding at least MIN_STORE chunks: a two-note store then scores a partial match as a big one would.
Raw BM25 (which grows with store size and differs per query) only orders chunks that tie.
"""

from __future__ import annotations

import math
import sqlite3

from .candidates import Level, Plan, holders

MIN_STORE = 1000
TIE_DIGITS = 6
"""Scores equal to this many decimals are a tie (broken by BM25): sums of idf shares differ in their last bits."""


_last_count: tuple[sqlite3.Connection, tuple[int, int], int] | None = None


def chunk_count(conn: sqlite3.Connection) -> int:
    """How many chunks the store holds; counted again only after a write (`count(*)` reads a whole index). One
    connection's count is kept (an adapter process searches through one), held by the connection itself, not
    its id, so a later connection at the same address never inherits it."""
    global _last_count
    version = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    if _last_count is None or _last_count[0] is not conn or _last_count[1] != version:
        _last_count = (conn, version, conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
    return _last_count[2]


def idf(df: int, total: int) -> float:
    """BM25's idf, kept positive (log(1 + ...)) so a term in most chunks still counts a little."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def weights_of(conn: sqlite3.Connection, chosen: Plan) -> dict[str, float]:
    """Each query word's share of a full match: its idf over the sum of all the query words' idf."""
    total = max(chunk_count(conn), MIN_STORE)
    weights = {term: idf(chosen.dfs[term], total) for term in chosen.terms}
    whole = sum(weights.values()) or 1.0
    return {term: w / whole for term, w in weights.items()}


def coverage(conn: sqlite3.Connection, weights: dict[str, float], levels: list[Level]) -> dict[int, float]:
    """Each candidate's idf-weighted share of the query terms, in [0, 1]. The candidates matched the query, so
    with one term each holds all of it."""
    terms = list(weights)
    if len(terms) == 1:
        return {rid: 1.0 for level in levels for rid, _ in level.rows}
    score: dict[int, float] = {}
    for level in levels:
        rowids = [rid for rid, _ in level.rows]
        if not rowids:
            continue
        known = sum(weights[term] for term in level.held)
        found = dict.fromkeys(rowids, known)
        for term in terms:
            if term not in level.held:
                for rid in holders(conn, level, term, rowids):
                    found[rid] += weights[term]
        score.update((rid, min(1.0, s)) for rid, s in found.items())
    return score


def cosine(cos: float) -> float:
    """A sentence-embedding cosine on the same [0, 1] footing: 0.2 (unrelated for MiniLM) is 0, 0.8 and above 1."""
    return max(0.0, min(1.0, (cos - 0.2) / 0.6))
