"""A run into an empty store answers from what it wrote (first_load.py) instead of reading the database back: the
store it leaves is the one the database's own answers make, row for row, whatever the records (chunks that join
to their entry's text or not, overlapping, out of position order, before their entry, ids sent twice)."""

from __future__ import annotations

import random
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, first_load, ingest

WORDS = ["alpha", "beta", "gamma", "delta", " ", "  ", "\n", "é", "epsilon zeta"]


def _entry(rnd: random.Random, k: int) -> dict:
    body = "".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 12)))
    fields = {f: rnd.choice([None, f"{f}-{k % 3}"]) for f in ("author", "role", "entry_type")}
    when = rnd.choice([None, f"2026-01-0{1 + k % 9}T00:00:00Z"])
    return {
        "id": f"entry:{k}",
        "thread_id": "thread:t",
        "position": k,
        "body": body,
        **{f: v for f, v in fields.items() if v is not None},
        **({"event_time": when} if when else {}),
    }


def _chunks_of(rnd: random.Random, entry: dict) -> list[dict]:
    """Chunks of ENTRY's body: windows that join to it (maybe overlapping), or not, in order or not."""
    body, out, at, k = entry["body"], [], 0, 0
    while at < len(body) or not out:
        size = rnd.randint(1, 8)
        back = rnd.choice([0, 0, 1, 2]) if at else 0
        start = max(at - back, 0)
        text = body[start : at + size]
        if rnd.random() < 0.1:
            text += "x"  # no longer its text
        header = rnd.choice(["", "", "# h"])
        chunk = {
            "id": f"chunk:{entry['position']}:{k}",
            "entry_id": entry["id"],
            "thread_id": "thread:t",
            "position": k if rnd.random() > 0.05 else rnd.choice([0, k + 5, 1.0]),
            "text": f"{header}\n{text}" if header else text,
            **({"header": header} if header else {}),
            **({"start": start, "end": at + size} if rnd.random() > 0.1 else {}),
        }
        out.append(chunk)
        at, k = at + size, k + 1
    if rnd.random() < 0.1:
        rnd.shuffle(out)
    return out


def _records(seed: int) -> list[tuple[str, list[dict]]]:
    rnd = random.Random(seed)
    entries = [_entry(rnd, k) for k in range(40)]
    chunks: list[dict] = []
    for e in entries:
        chunks += _chunks_of(rnd, e)
    parts: list[tuple[str, list[dict]]] = [("thread", [{"id": "thread:t", "title": "t"}])]
    if rnd.random() < 0.3:  # a chunk before its entry
        parts.append(("chunk", [chunks.pop(0)]))
    parts += [("entry", entries), ("chunk", chunks)]
    if rnd.random() < 0.3:  # ids sent again, changed
        again = rnd.sample(chunks, 3)
        parts.append(("chunk", [{**c, "text": c["text"] + " more"} for c in again]))
    if rnd.random() < 0.3:
        parts.append(("entry", [{**entries[1], "body": entries[1]["body"] + "!"}]))
    return parts


def _store(path: Path, parts: list[tuple[str, list[dict]]], monkeypatch, first: bool) -> sqlite3.Connection:
    """The store PARTS make (FIRST: as a first load); the count of nodes `finish` indexed kept in temp.finished."""
    conn = db.open_writer(path)
    with monkeypatch.context() as m:
        if not first:
            m.setattr(first_load, "empty", lambda conn: False)
        run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=7)
        assert (run.first is not None) == first
        for rtype, records in parts:
            run.run(rtype, iter(records))
        indexed = run.finish()
    conn.execute("CREATE TEMP TABLE finished AS SELECT ? AS indexed", (indexed,))
    return conn


def _all(conn: sqlite3.Connection) -> dict[str, list]:
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.words USING fts5vocab(main, node_fts, instance)")
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunk_words USING fts5vocab(main, chunk_fts, instance)")
    queries = {
        "node_rows": "SELECT * FROM node_rows ORDER BY rowid",
        "nodes": "SELECT * FROM nodes ORDER BY rowid",
        "chunks": "SELECT * FROM chunks ORDER BY rowid",
        "node_fts": "SELECT * FROM temp.words ORDER BY 1, 2, 3, 4",
        "chunk_fts": "SELECT * FROM temp.chunk_words ORDER BY 1, 2, 3, 4",
        "finished": "SELECT indexed FROM temp.finished",  # what `finish` counted
    }
    return {k: conn.execute(q).fetchall() for k, q in queries.items()}


@pytest.mark.parametrize("seed", range(12))
def test_a_first_load_leaves_the_store_the_database_answers_make(tmp_path, monkeypatch, seed):
    parts = _records(seed)
    first = _store(tmp_path / "first", parts, monkeypatch, first=True)
    asked = _store(tmp_path / "asked", parts, monkeypatch, first=False)
    got, want = _all(first), _all(asked)
    assert [k for k in want if got[k] != want[k]] == []
    assert sum(text is None for _, _, kind, _, text, *_ in want["node_rows"] if kind == "entry") > 0


def test_joins_holds_an_entry_text_only_until_its_chunks_spell_it():
    joins = first_load.Joins()
    joins.entry("entry:a", "alpha beta")
    joins.chunk("entry:a", 0, 0, 6, "alpha ")
    assert joins.held == len("alpha beta") and not joins.joined
    joins.chunk("entry:a", 1, 4, 10, "a beta")  # overlaps the one before by two characters
    assert joins.held == 0 and joins.joined == {"entry:a"}
    joins.chunk("entry:a", 2, 10, 12, "!!")
    assert joins.joined == set()


def test_joins_leaves_to_the_database_what_it_cannot_order_or_hold(monkeypatch):
    joins = first_load.Joins()
    joins.entry("entry:a", "alpha beta")
    joins.chunk("entry:a", 1, 0, 6, "alpha ")
    joins.chunk("entry:a", 1, 6, 10, "beta")  # the same position: SQL orders the two as it likes
    joins.chunk("entry:b", 0, 0, 4, "beta")
    joins.entry("entry:b", "beta")  # its chunk came first
    monkeypatch.setattr(first_load, "HELD_BYTES", 3)
    joins.entry("entry:c", "gamma")
    assert joins.unknown == {"entry:a", "entry:b", "entry:c"} and not joins.joined and joins.held == 0


def test_a_store_that_holds_anything_is_not_a_first_load(tmp_path):
    conn = db.open_writer(tmp_path)
    assert first_load.empty(conn)
    ingest.Ingest(conn, on_commit=lambda ids: None).run("thread", iter([{"id": "thread:t", "title": "t"}]))
    assert not first_load.empty(conn)
    assert ingest.Ingest(conn, on_commit=lambda ids: None).first is None
