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


PROBE_ABOVE = 50
"""A term whose chunks outnumber the candidates this many times over is looked up candidate by candidate (a seek
each, ~50 us); below it, reading the term's whole list of chunks once is cheaper."""

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


def document_frequency(conn: sqlite3.Connection, term: str) -> int:
    return conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?", [f'"{term}"']).fetchone()[0]


def idf(df: int, total: int) -> float:
    """BM25's idf, kept positive (log(1 + ...)) so a term in most chunks still counts a little."""
    return math.log(1.0 + (total - df + 0.5) / (df + 0.5))


def holders(conn: sqlite3.Connection, term: str, df: int, rowids: list[int]) -> set[int]:
    """Which of the candidate ROWIDS hold TERM (DF chunks hold it in all)."""
    if df > PROBE_ABOVE * len(rowids):
        marks = ",".join("?" * len(rowids))
        sql = f"SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid IN ({marks})"
        return {rid for (rid,) in conn.execute(sql, [f'"{term}"', *rowids])}
    every = conn.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ?", [f'"{term}"'])
    return {rid for (rid,) in every} & set(rowids)


def coverage(conn: sqlite3.Connection, terms: list[str], rowids: list[int]) -> dict[int, float]:
    """Each candidate's idf-weighted share of the query terms, in [0, 1]. The candidates matched the query, so
    with one term each holds all of it."""
    if not terms or not rowids:
        return {rid: 0.0 for rid in rowids}
    if len(terms) == 1:
        return {rid: 1.0 for rid in rowids}
    total = max(chunk_count(conn), MIN_STORE)
    score = dict.fromkeys(rowids, 0.0)
    dfs = [document_frequency(conn, term) for term in terms]
    whole = sum(idf(df, total) for df in dfs) or 1.0
    for term, df in zip(terms, dfs):
        weight = idf(df, total) / whole
        for rid in holders(conn, term, df, rowids):
            score[rid] += weight
    return {rid: min(1.0, s) for rid, s in score.items()}


def cosine(cos: float) -> float:
    """A sentence-embedding cosine on the same [0, 1] footing: 0.2 (unrelated for MiniLM) is 0, 0.8 and above 1."""
    return max(0.0, min(1.0, (cos - 0.2) / 0.6))
