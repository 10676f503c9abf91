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

MIN_STORE = 1000


def document_frequencies(conn: sqlite3.Connection, terms: list[str]) -> tuple[list[int], int]:
    """How many chunks hold each term, and how many chunks there are."""
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    dfs = [
        conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?", [f'"{t}"']).fetchone()[0] for t in terms
    ]
    return dfs, total


def idf(df: int, total: int) -> float:
    """BM25's idf, kept positive (log(1 + ...)) so a term in most chunks still counts a little."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def presence(conn: sqlite3.Connection, terms: list[str], rowids: list[int]) -> dict[int, set[int]]:
    """For each candidate chunk, the indexes of the query terms it holds."""
    out: dict[int, set[int]] = {rid: set() for rid in rowids}
    if not rowids:
        return out
    marks = ",".join("?" * len(rowids))
    for i, term in enumerate(terms):
        sql = f"SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid IN ({marks})"
        for (rid,) in conn.execute(sql, [f'"{term}"', *rowids]):
            out[rid].add(i)
    return out


def coverage(conn: sqlite3.Connection, terms: list[str], rowids: list[int]) -> dict[int, float]:
    """Each candidate's idf-weighted share of the query terms, in [0, 1]."""
    if not terms:
        return {rid: 0.0 for rid in rowids}
    dfs, total = document_frequencies(conn, terms)
    weights = [idf(df, max(total, MIN_STORE)) for df in dfs]
    whole = sum(weights) or 1.0
    held = presence(conn, terms, rowids)
    return {rid: sum(weights[i] for i in held[rid]) / whole for rid in rowids}


def cosine(cos: float) -> float:
    """A sentence-embedding cosine on the same [0, 1] footing: 0.2 (unrelated for MiniLM) is 0, 0.8 and above 1."""
    return max(0.0, min(1.0, (cos - 0.2) / 0.6))
