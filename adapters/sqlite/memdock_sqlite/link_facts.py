"""The facts of links ranked by BM25 without an FTS5 row each (schema 9).

A link's fact is a template over its two ends' phrases (memdock.sdk.facts.parts): its words are the words of its
parts in order (the phrases, the verb, the date), because a space sets each part off from the next. Schema 8
indexed every link's rendered fact in fact_fts (63,544 rows on 20,000 notes: 0.43x the text with their sizes);
schema 9 keeps only edges' stored facts there and ranks links' facts from their parts, tokenized once per
connection (and again after any write) by FTS5 itself, with fact_fts's tokenizer in an in-memory table. A query's
scores are computed as FTS5's bm25() computes them over one table holding every fact (fts5_aux.c: k1 1.2, b 0.75,
IDF log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, N and the average length over edges and links together), in
the same floating-point steps, so `search_facts` answers what schema 8 answered, scores included.
"""

from __future__ import annotations

import heapq
import json
import math
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from memdock.sdk import facts as sdk_facts

from . import facts, fts, graph_log, links
from .db import TOKENIZE

K1, B = 1.2, 0.75  # fts5_aux.c's bm25()
Ranked = list[tuple[int, float]]  # (rowid, bm25) best first


class Tokenizer:
    """Texts into their FTS5 tokens (TOKENIZE), read back from an in-memory contentless table's instances."""

    def __init__(self) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False)  # as the store's connection (db.py)
        self.lock = threading.Lock()
        self.db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, content='', tokenize='{TOKENIZE}')")
        self.db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")

    def __call__(self, texts: Sequence[str]) -> list[tuple[str, ...]]:
        out: list[list[str]] = [[] for _ in texts]
        with self.lock:
            self.db.execute("INSERT INTO t(t) VALUES ('delete-all')")
            self.db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", enumerate(texts, 1))
            for term, doc in self.db.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
                out[doc - 1].append(term)
        return [tuple(x) for x in out]


@dataclass
class Links:
    """Every link's fact as its parts' token lists, with what a query needs to rank them."""

    rowids: list[int] = field(default_factory=list)
    threads: list[str | None] = field(default_factory=list)  # each link's source's thread (search_facts' groups)
    parts: list[tuple[int, ...]] = field(default_factory=list)  # each link's part numbers, in order
    tokens: list[tuple[str, ...]] = field(default_factory=list)  # each part's tokens
    lengths: list[int] = field(default_factory=list)  # each link's fact in tokens
    having: dict[str, dict[int, int]] = field(default_factory=dict)  # token: {part: count}
    using: list[list[int]] = field(default_factory=list)  # part: the links that hold it, once per time
    total: int = 0  # the links' facts' tokens in all (every query's average length reads it)
    number: dict[str, int] = field(default_factory=dict)  # each part: its number (its tokens' index)


_LINKS = (
    "SELECT l.rowid, l.code, s.id, t.id, s.thread_id, s.event_time FROM "
    + links.JOIN
    + " WHERE l.rowid > ? AND l.rowid <= ? ORDER BY l.rowid"
)


def load(conn: sqlite3.Connection, tokenize: Tokenizer, upto: int | None = None) -> Links:
    """The links stored in CONN (up to rowid UPTO when given), their facts cut into parts as links.as_edge renders
    them."""
    out = Links()
    extend(out, conn, tokenize, 0, (1 << 63) - 1 if upto is None else upto)
    return out


def extend(lk: Links, conn: sqlite3.Connection, tokenize: Tokenizer, after: int, upto: int) -> None:
    """LK with the links stored in CONN above rowid AFTER, up to UPTO (all of them above LK's), their new parts
    tokenized."""
    rows = conn.execute(_LINKS, (after, upto)).fetchall()
    get = facts.lookup(conn, facts.prefetch(conn, (i for r in rows for i in r[2:4])))
    phrases: facts.Phrases = {}
    number, fresh = lk.number, []
    first = len(lk.rowids)
    for rowid, code, source, target, thread, when in rows:
        edge = {"type": links.TYPES[code >> 1], "source_id": source, "target_id": target}
        edge["event_time"] = when if code & 1 else None  # as links.COLUMNS reads it
        cut, _ = sdk_facts.parts(get, edge, phrases)
        numbers = []
        for piece in cut:
            if piece not in number:
                number[piece] = len(number)
                fresh.append(piece)
            numbers.append(number[piece])
        lk.rowids.append(rowid)
        lk.threads.append(thread)
        lk.parts.append(tuple(numbers))
    start = len(lk.tokens)
    lk.tokens += tokenize(fresh)
    lk.using += [[] for _ in fresh]
    for part in range(start, len(lk.tokens)):
        for w in lk.tokens[part]:
            counts = lk.having.setdefault(w, {})
            counts[part] = counts.get(part, 0) + 1
    for n in range(first, len(lk.rowids)):
        length = sum(len(lk.tokens[p]) for p in lk.parts[n])
        lk.lengths.append(length)
        lk.total += length
        for p in lk.parts[n]:  # twice where a fact names one phrase twice
            lk.using[p].append(n)


def _occurrences(words: Sequence[str], phrase: tuple[str, ...]) -> int:
    """How many times PHRASE starts in WORDS (FTS5 counts overlapping matches of a phrase)."""
    k = len(phrase)
    return sum(1 for i in range(len(words) - k + 1) if tuple(words[i : i + k]) == phrase)


def _link_hits(lk: Links, phrase: tuple[str, ...]) -> dict[int, int]:
    """The links whose fact holds PHRASE, each with how many times."""
    if not phrase:
        return {}
    first = lk.having.get(phrase[0], {})
    out: dict[int, int] = {}
    if len(phrase) == 1:
        for part, count in first.items():
            for n in lk.using[part]:
                out[n] = out.get(n, 0) + count
        return out
    for n in {n for part in first for n in lk.using[part]}:
        words = [w for part in lk.parts[n] for w in lk.tokens[part]]
        found = _occurrences(words, phrase)
        if found:
            out[n] = found
    return out


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (FTS5 writes its records with them)."""
    out, i = [], 0
    while i < len(blob):
        value = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(value)
    return out


def indexed(conn: sqlite3.Connection) -> tuple[int, int]:
    """fact_fts's rows and their tokens in all, as bm25() reads them (FTS5's averages record, id 1)."""
    row = conn.execute("SELECT block FROM fact_fts_data WHERE id = 1").fetchone()
    counts = _varints(row[0]) if row else []
    return (counts[0], counts[1]) if len(counts) >= 2 else (0, 0)


_EDGES = "SELECT e.rowid, e.fact FROM fact_fts JOIN edges e ON e.rowid = fact_fts.rowid WHERE fact_fts MATCH ?"
_IN_THREADS = " AND e.thread_id IN (SELECT value FROM json_each(?))"


def _edges(
    conn: sqlite3.Connection, words: list[str], groups: list[str] | None, tokenize: Tokenizer
) -> tuple[list[int], list[tuple[int, tuple[str, ...]]]]:
    """How many edges' facts hold each of WORDS, and the edges (of GROUPS' threads) any of them matches with their
    facts' tokens."""
    count = "SELECT count(*) FROM fact_fts WHERE fact_fts MATCH ?"
    df = [conn.execute(count, (fts.any_of([w]),)).fetchone()[0] for w in words]
    if not any(df):
        return df, []
    match = fts.any_of(words)
    rows = conn.execute(_EDGES + (_IN_THREADS if groups else ""), (match, json.dumps(groups)) if groups else (match,))
    found = rows.fetchall()
    return df, list(zip((r for r, _ in found), tokenize([f for _, f in found])))


def bm25(freqs: Sequence[int], length: int, idf: Sequence[float], avgdl: float) -> float:
    """fts5_aux.c's bm25() of a row: its phrases' frequencies, its length in tokens (the same steps in doubles)."""
    score = 0.0
    for f, w in zip(freqs, idf):
        tf = float(f)
        score += w * ((tf * (K1 + 1.0)) / (tf + K1 * (1 - B + B * float(length) / avgdl)))
    return -1.0 * score


def _idf(rows: int, hits: int) -> float:
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0.0 else 1e-6


@dataclass
class _State:
    key: tuple[int, int]
    links: Links
    tokenize: Tokenizer
    mark: graph_log.Mark | None  # where the log stood when the links were read (None: the store keeps none)


def _state(conn: sqlite3.Connection) -> _State:
    """CONN's links as of its last write or another's (kept on the connection while neither changes them, and
    followed where the writes since only added: graph_log.py)."""
    key = (conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    state: _State | None = getattr(conn, "link_facts", None)
    if state is not None and state.key == key:
        return state
    mark = graph_log.mark(conn)
    if state is not None and _followed(conn, state, mark):
        state.key, state.mark = key, mark
    else:
        tokenize = state.tokenize if state is not None else Tokenizer()
        state = _State(key, load(conn, tokenize, None if mark is None else mark.link), tokenize, mark)
    if hasattr(conn, "link_facts"):  # a db.Connection; a plain sqlite3.Connection reads them again each time
        conn.link_facts = state
    return state


def _followed(conn: sqlite3.Connection, state: _State, now: graph_log.Mark | None) -> bool:
    """Whether STATE's links are brought up to NOW by reading the links added since (every write since only
    added, and no link came back to a rowid below the last one STATE read)."""
    before = state.mark
    if before is None or now is None or not graph_log.appended(conn, before):
        return False
    extend(state.links, conn, state.tokenize, before.link, now.link)
    stored = conn.execute("SELECT count(*) FROM links WHERE rowid <= ?", (now.link,)).fetchone()[0]
    return bool(stored == len(state.links.rowids))


def rank(conn: sqlite3.Connection, words: list[str], limit: int, groups: list[str] | None) -> Ranked:
    """The LIMIT best facts (edges' and links') for the FTS5 OR of the quoted WORDS, with the bm25() fact_fts
    would give them if it held every fact, best first (ties by rowid, as FTS5 returns them); only the facts of
    GROUPS' threads when given (the statistics stay those of every fact, as FTS5's are)."""
    state = _state(conn)
    lk = state.links
    phrases = state.tokenize(words)
    rows, tokens = indexed(conn)
    rows, tokens = rows + len(lk.rowids), tokens + lk.total
    if rows == 0:
        return []
    avgdl = float(tokens) / float(rows)
    hits = [_link_hits(lk, p) for p in phrases]
    df, edges = _edges(conn, words, groups, state.tokenize)
    idf = [_idf(rows, d + len(h)) for d, h in zip(df, hits)]
    allowed = set(groups) if groups else None
    known: dict[tuple[tuple[int, ...], int], float] = {}  # structural facts share frequencies and lengths

    def score(freqs: tuple[int, ...], length: int) -> float:
        key = (freqs, length)
        if key not in known:
            known[key] = bm25(freqs, length, idf, avgdl)
        return known[key]

    scored = []
    for n in {n for h in hits for n in h}:
        if allowed is None or lk.threads[n] in allowed:
            scored.append((score(tuple(h.get(n, 0) for h in hits), lk.lengths[n]), lk.rowids[n]))
    for rowid, words_of in edges:
        freqs = tuple(_occurrences(words_of, p) if p else 0 for p in phrases)
        scored.append((score(freqs, len(words_of)), rowid))
    return [(rowid, r) for r, rowid in heapq.nsmallest(limit, scored)]
