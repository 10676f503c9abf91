"""Which chunks a word query ranks, so that a query on a million chunks costs about what it costs on twenty
thousand.

FTS5 has no top-k pruning: bm25() scores every row its MATCH expression yields (about 1 us a row on this
project's 2-core box, where walking a word's rows costs 0.04 us), so a query with a word found in one chunk of
seven scored 150,000 rows of a million to return ten. The search ranks chunks by the share of the query they hold
(`scoring.coverage`), then by BM25; each query word's chunks are counted first (estimated past BUDGET), then:

1. when the words' chunks add up to at most BUDGET, every chunk holding any of them is ranked (a store of
   fewer than BUDGET chunks is never narrowed);
2. otherwise the ranking goes by levels, each the chunks holding a set of the query words, ranked by BM25 among
   themselves: the set of every word first, then the others by their share of the score, heaviest first (for
   a long query, the rarest 6, 5, ... words), until a page of candidates holds at least what the next set
   would score. A chunk holding more of the words than its level asks for scores what it holds. A level
   holding more than BUDGET chunks ranks the BUDGET newest of them: a one-word query whose word is in more
   than BUDGET chunks ranks the newest BUDGET, and a level asking only for common words does the same.

A query with filters is not narrowed: its cost is the filter's join over every matching chunk, which each level
would pay again (a thread-filtered one-word query at a million chunks took 8 s narrowed against 0.2 s not).

On bench/sqlite.py's synthetic million chunks this kept 99 % of the unnarrowed top 10 for queries of several
words and 32 % for the one-word queries it narrowed, at a quarter of the unnarrowed search's p50.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .filters import where
from .fts import all_of, any_of, chunk_bm25

BUDGET = 20_000
MAX_SUBSET_WORDS = 6


@dataclass(frozen=True)
class Plan:
    terms: list[str]
    dfs: dict[str, int]
    """How many chunks hold each query word (exact up to BUDGET, estimated past it)."""
    filtered: bool = False

    @property
    def narrowed(self) -> bool:
        return not self.filtered and sum(self.dfs.values()) > BUDGET

    def rarest_first(self) -> list[str]:
        return sorted(self.terms, key=lambda t: (self.dfs[t], self.terms.index(t)))


@dataclass
class Level:
    match: str
    """The FTS5 expression this level's candidates match."""
    held: list[str]
    """The words every candidate of this level holds (the others are looked up)."""
    rows: list[tuple[int, float]]
    """(rowid, BM25 under MATCH), best first."""
    newest_only: bool = False


def document_frequency(conn: sqlite3.Connection, term: str) -> int:
    """How many chunks hold TERM: counted up to BUDGET; past it, estimated from how far back the BUDGET-th newest
    chunk holding it lies among all chunks' rowids (a word in most of a million chunks costs BUDGET rows, not all).
    One walk of at most BUDGET of its rows, newest first, gives both the count and that rowid."""
    sql = (
        "SELECT count(*), min(rowid) FROM "
        "(SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? ORDER BY rowid DESC LIMIT ?)"
    )
    counted, oldest = conn.execute(sql, [f'"{term}"', BUDGET]).fetchone()
    if counted < BUDGET:
        return int(counted)
    lowest = conn.execute("SELECT min(rowid) FROM chunks").fetchone()[0]
    highest = conn.execute("SELECT max(rowid) FROM chunks").fetchone()[0]
    return max(BUDGET, round(BUDGET * (highest - lowest + 1) / (highest - oldest + 1)))


def plan(conn: sqlite3.Connection, terms: list[str], filters: dict[str, Any] | None = None) -> Plan:
    dfs = {term: document_frequency(conn, term) for term in terms}
    return Plan(terms, dfs, filtered=bool(where(filters, "c", conn)[0]))


def rank(
    conn: sqlite3.Connection,
    chosen: Plan,
    filters: dict[str, Any] | None,
    k: int,
    page: int,
    weight: Callable[[str], float],
) -> list[Level]:
    """The K best candidates under CHOSEN, level by level; PAGE is how many the caller shows, WEIGHT a word's
    share of the score."""
    if not chosen.narrowed:
        match = any_of(chosen.terms)
        return [Level(match, [], bm25_ranking(conn, match, filters, k))]
    levels: list[Level] = []
    seen: set[int] = set()
    above = 2.0
    for held in _subsets(chosen, weight):
        floor = sum(weight(t) for t in held)
        if len(seen) >= page and floor < above:
            break  # a page of chunks each holding a heavier set than this one (or than any later one)
        above = floor
        match = all_of(held)
        since = _newest(conn, match)
        rows = [(rid, r) for rid, r in bm25_ranking(conn, match, filters, k, since) if rid not in seen]
        if rows:
            levels.append(Level(match, held, rows, since is not None))
            seen.update(rid for rid, _ in rows)
    return levels


def _subsets(chosen: Plan, weight: Callable[[str], float]) -> list[list[str]]:
    """The sets of query words a level asks for, heaviest first (a superset before its subsets): every non-empty
    subset for a query of up to MAX_SUBSET_WORDS words, the rarest-first prefixes for a longer one. A word no
    chunk holds is in no set: every level asking for it would be empty."""
    rarest = [t for t in chosen.rarest_first() if chosen.dfs[t] > 0]
    if len(rarest) > MAX_SUBSET_WORDS:
        return [rarest[:size] for size in range(len(rarest), 0, -1)]
    every = [list(c) for size in range(len(rarest), 0, -1) for c in combinations(rarest, size)]
    return sorted(every, key=lambda held: (-sum(weight(t) for t in held), -len(held)))


def bm25_ranking(
    conn: sqlite3.Connection, match: str, filters: dict[str, Any] | None, k: int, since: int | None = None
) -> list[tuple[int, float]]:
    """The K best chunks for MATCH by FTS5's BM25 (most negative first), of those at rowid SINCE or later."""
    conds, args = where(filters, "c", conn)
    window = "" if since is None else " AND chunk_fts.rowid >= ?"
    if since is not None:
        args = [since, *args]
    rank = chunk_bm25(conn)
    if conds:
        sql = (
            f"SELECT c.rowid, {rank} AS r FROM chunk_fts "
            f"JOIN chunks c ON c.rowid = chunk_fts.rowid WHERE chunk_fts MATCH ?{window} AND {' AND '.join(conds)} "
            "ORDER BY r LIMIT ?"
        )
    else:
        sql = f"SELECT rowid, {rank} AS r FROM chunk_fts WHERE chunk_fts MATCH ?{window} ORDER BY r LIMIT ?"
    return conn.execute(sql, [match, *args, k]).fetchall()


def _newest(conn: sqlite3.Connection, match: str) -> int | None:
    """The rowid of the BUDGET-th newest chunk matching MATCH (None when fewer match)."""
    sql = "SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?"
    row = conn.execute(sql, [match, BUDGET - 1]).fetchone()
    return row[0] if row else None


def holders(conn: sqlite3.Connection, level: Level, term: str, rowids: list[int]) -> set[int]:
    """Which of a level's candidate ROWIDS hold TERM: FTS5 walks the rows matching the level's expression between
    the lowest and highest candidate and seeks TERM in each (at most BUDGET rows on a big store); SQLite keeps
    those rows and looks each candidate up among them, so only the holders come back to Python."""
    sql = (
        "SELECT value FROM json_each(?) WHERE value IN "
        "(SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? AND rowid BETWEEN ? AND ?)"
    )
    found = conn.execute(sql, [json.dumps(rowids), f'({level.match}) AND "{term}"', min(rowids), max(rowids)])
    return {rid for (rid,) in found}
