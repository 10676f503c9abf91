"""Chunks' attrs stored short (schema 11). A chunk's attrs are JSON text which, chunk after chunk of a store, most
often begins and ends the same (`{"metadata":{"source_id":"` and `"},"source":"notes.jsonl"}` on the notes of
bench/peers.py). A store learns such a beginning and end (a template, kept in `meta`) from a batch of chunks when
enough of them fit none it has (`store`), at most one template a mark (MARKS: 8), and a chunk whose attrs fit one is
stored as its mark and what lies between. JSON text never begins with a control character, so any other attrs are
stored as they are. The `chunks` view puts the template back in SQL (VIEW_SQL), so every reader, a metadata filter
reading every chunk's attrs among them (filters.py), reads the very text that was given.

On the 20k notes a chunk's attrs take 17 bytes instead of 68 (bench/sqlite_attrs.py, which measures what a filtered
query costs too). Measured beside it: SQLite's replace() of the two pieces that recur most, each stored as a
control character (18 bytes, but two replace() a row cost a metadata filter 1.18x the CPU), zlib's raw deflate
with a dictionary (21 bytes; inflating is a Python call, about 1 us a row, and a filter reads every chunk's), and a
reference to the entry's attrs (0 bytes; unpacking the entry's costs about 3 us a row).

A template is never changed once stored, as packed_text's dictionaries are not: it is learnt from the chunks of the
batch that fit none before it, so a first load and later runs of the same chunks learn the same ones. A store
without one (a schema 10 store, or one whose batches were too small to learn from) reads its attrs as stored.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Sequence

MARKS = tuple(map(chr, range(1, 9)))  # a template's mark: the control characters 1 to 8, one a template
MIN_SAMPLES = 8  # chunks of a batch fitting no template that it takes to learn one (fewer: stored as they are)
MIN_SHARE = 4  # a template fits at least one in MIN_SHARE of the distinct attrs it is learnt from
MAX_TEXTS = 512  # distinct attrs a template is learnt from, the first of a batch
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')

Template = tuple[str, str]


def _key(n: int, end: str) -> str:
    return f"chunk-attrs:{n}:{end}"


def _view_sql() -> str:
    ways = " ".join(
        f"WHEN {ord(mark)} THEN (SELECT value FROM meta WHERE key = '{_key(n, 'begins')}') || substr(attrs, 2) || "
        f"(SELECT value FROM meta WHERE key = '{_key(n, 'ends')}')"
        for n, mark in enumerate(MARKS, 1)
    )
    return f"CASE unicode(attrs) {ways} ELSE attrs END"


VIEW_SQL = _view_sql()
"""The `chunks` view's attrs, from chunk_rows.attrs."""


def _parts(text: str) -> list[str]:
    """TEXT cut at the edges of its JSON strings' contents: structure, content, structure, ..."""
    out, at = [], 0
    for m in _STRING.finditer(text):
        out += [text[at : m.start(1)], m.group(1)]
        at = m.end(1)
    out.append(text[at:])
    return [p for p in out if p]


def _best(ends: Counter[str], texts: int) -> str:
    """Of ENDS (a count of the TEXTS that begin, or end, with each), the one that saves the most bytes, held by at
    least one text in MIN_SHARE ('' when none is)."""
    shared = [e for e, n in ends.items() if n * MIN_SHARE >= texts]
    return max(shared, key=lambda e: (len(e) * ends[e], e), default="")


def learn(samples: Sequence[str]) -> tuple[str, str]:
    """The template of SAMPLES: the run of whole parts (see _parts) they begin with, then the run of whole parts of
    what follows it that they end with, each the one that saves the most bytes over the distinct samples; ('', ''):
    none."""
    texts = list(dict.fromkeys(samples))[:MAX_TEXTS]
    begins = _best(Counter(b for t in texts for b in _joined(_parts(t))), len(texts))
    if not begins:
        return "", ""
    rest = [parts for parts in map(_after, [_parts(t) for t in texts], [begins] * len(texts)) if parts is not None]
    ends = _best(Counter(e[::-1] for parts in rest for e in _joined([p[::-1] for p in reversed(parts)])), len(texts))
    return begins, ends


def _after(parts: list[str], begins: str) -> list[str] | None:
    """PARTS after those that spell BEGINS; None when they do not begin so."""
    run = ""
    for k, part in enumerate(parts):
        if run == begins:
            return parts[k:]
        run += part
        if not begins.startswith(run):
            return None
    return [] if run == begins else None


def _joined(parts: list[str]) -> set[str]:
    """PARTS' beginnings: the first part, the first two joined, ..."""
    out, run = set(), ""
    for part in parts:
        run += part
        out.add(run)
    return out


def _fits(text: str, template: Template) -> bool:
    begins, ends = template
    return len(text) >= len(begins) + len(ends) and text.startswith(begins) and text.endswith(ends)


def encode(text: str, templates: Sequence[Template]) -> str:
    """Attrs TEXT as stored: the mark of the first of TEMPLATES it fits and what lies between, else as it is."""
    for mark, template in zip(MARKS, templates):
        if _fits(text, template):
            return mark + text[len(template[0]) : len(text) - len(template[1])]
    return text


def decode(stored: str, templates: Sequence[Template]) -> str:
    """What VIEW_SQL reads from STORED: Python's spelling of it, for the tests."""
    n = ord(stored[:1] or "\0")
    if 1 <= n <= len(templates):
        begins, ends = templates[n - 1]
        return begins + stored[1:] + ends
    return stored


def templates(conn: sqlite3.Connection) -> list[Template]:
    """The store's templates, in the order of their marks."""
    got = dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'chunk-attrs:%'"))
    return [
        (got[_key(n, "begins")], got[_key(n, "ends")]) for n in range(1, len(MARKS) + 1) if _key(n, "begins") in got
    ]


def store(conn: sqlite3.Connection, attrs: list[str]) -> list[str]:
    """ATTRS (chunks' attrs texts, a batch of them) as stored. Where at least MIN_SAMPLES of them, and one in
    MIN_SHARE, fit no template of the store's, a template is learnt from those (and stored, inside the caller's
    transaction), while marks are left."""
    known = templates(conn)
    distinct = dict.fromkeys(attrs)  # a batch's chunks most often share their attrs: each text is looked at once
    fit = {a for a in distinct if any(_fits(a, t) for t in known)}
    unfit = [a for a in attrs if a not in fit]
    while len(known) < len(MARKS) and len(unfit) >= MIN_SAMPLES and len(unfit) * MIN_SHARE >= len(attrs):
        learnt = learn(unfit)
        if not learnt[0]:
            break
        known.append(learnt)
        conn.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?)",
            zip((_key(len(known), "begins"), _key(len(known), "ends")), learnt),
        )
        unfit = [a for a in unfit if not _fits(a, learnt)]
    if not known:
        return attrs
    stored = {a: encode(a, known) for a in distinct}
    return [stored[a] for a in attrs]


def store_existing(conn: sqlite3.Connection, batch: int = 2000) -> None:
    """Schema 10 and before stored chunks' attrs as they are: stored as ingest stores them, BATCH rows at a time in
    rowid order (templates learnt as a first load of the same chunks learns them)."""
    last = 0
    while True:
        rows = conn.execute(
            "SELECT rowid, attrs FROM chunk_rows WHERE rowid > ? ORDER BY rowid LIMIT ?", (last, batch)
        ).fetchall()
        if not rows:
            return
        stored = store(conn, [a for _, a in rows])
        conn.executemany(
            "UPDATE chunk_rows SET attrs = ? WHERE rowid = ?", ((s, r) for (r, a), s in zip(rows, stored) if s != a)
        )
        last = rows[-1][0]
