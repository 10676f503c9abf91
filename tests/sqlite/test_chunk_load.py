"""A bulk load builds chunk_rows' secondary indexes once its rows are in, and leaves out a VACUUM that would give no
page back (memdock_sqlite/bulk.py, first_load.missing_indexes); the store it leaves has the schema a database made
in place has, and a run that falls back to asking the database has the indexes before it asks."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import bulk, db, first_load, ingest


def _chunk(i: int, text: str = "") -> dict:
    return {
        "id": f"chunk:{i}",
        "entry_id": f"entry:{i}",
        "thread_id": f"thread:{i // 3}",
        "position": 0,
        "text": text or f"word{i} storage replica",
    }


def _schema(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return sorted(conn.execute("SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL").fetchall())


def _traced(monkeypatch) -> list[str]:
    """The statements the bulk load's connection runs, from here on."""
    seen: list[str] = []
    opened = db.open_writer

    def open_writer(*args, **kw):
        conn = opened(*args, **kw)
        conn.set_trace_callback(seen.append)
        return conn

    monkeypatch.setattr(db, "open_writer", open_writer)
    return seen


def _load(data: Path, parts: list[tuple[str, list[dict]]], checks=None) -> None:
    with bulk.load(data) as conn, db.transaction(conn, "indexing"):
        run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=4)
        for rtype, records in parts:
            run.run(rtype, iter(records))
            if checks:
                checks(conn, run)
        run.finish()


def test_a_bulk_load_builds_the_chunk_indexes_after_its_rows(tmp_path, monkeypatch):
    missing: list[list[str]] = []
    _load(tmp_path / "bulk", [("chunk", [_chunk(i) for i in range(10)])], lambda c, r: missing.append(r.unbuilt))
    assert list(missing[0]) == list(db.LOAD_INDEXES)  # not there while the rows go in
    fresh = db.open_writer(tmp_path / "made")
    loaded = sqlite3.connect(tmp_path / "bulk" / db.DB_NAME)
    assert _schema(loaded) == _schema(fresh)
    plan = loaded.execute("EXPLAIN QUERY PLAN SELECT rowid FROM chunk_rows WHERE entry_id = 'entry:3'").fetchall()
    assert "chunks_entry" in str(plan)


def test_a_load_that_falls_back_to_the_database_has_the_indexes_before_it_asks(tmp_path):
    again = [_chunk(1, "sent again"), _chunk(20)]
    seen: list[tuple[bool, list[str]]] = []
    parts = [("chunk", [_chunk(i) for i in range(4)]), ("chunk", again)]
    _load(tmp_path, parts, lambda c, r: seen.append((r.first is None, first_load.missing_indexes(c))))
    assert seen[0][0] is False and list(seen[0][1]) == list(db.LOAD_INDEXES)
    assert seen[1] == (True, {})  # the chunk sent again: asked of the database, indexes built
    conn = sqlite3.connect(tmp_path / db.DB_NAME)
    conn.create_function("unblock", 2, lambda b, s: "")
    assert conn.execute("SELECT count(*) FROM chunk_rows").fetchone()[0] == 5


def test_a_chunks_only_load_is_not_vacuumed(tmp_path, monkeypatch):
    seen = _traced(monkeypatch)
    _load(tmp_path, [("chunk", [_chunk(i) for i in range(10)])])
    assert "VACUUM" not in seen and "PRAGMA journal_mode = WAL" in seen


def test_a_load_with_nodes_or_free_pages_is_vacuumed(tmp_path, monkeypatch):
    seen = _traced(monkeypatch)
    entry = {"id": "entry:1", "thread_id": "thread:0", "position": 0, "body": "word1 storage replica"}
    _load(tmp_path / "nodes", [("entry", [entry]), ("chunk", [_chunk(1)])])
    assert "VACUUM" in seen
    seen.clear()
    rewritten = [_chunk(i, "x" * 3000 + str(i)) for i in range(8)]  # a rewrite sweeps its blocks: free pages
    _load(tmp_path / "free", [("chunk", rewritten), ("chunk", [_chunk(i, "short") for i in range(8)])])
    assert "VACUUM" in seen


def test_chunks_whose_entries_have_not_come_leave_those_entries_to_the_database():
    joins = first_load.Joins()
    assert joins.before_entries(["entry:a", "entry:b"])  # a chunks-only batch: not checked one by one
    assert not joins.at
    joins.entry("entry:a", "alpha")  # its chunk came first
    joins.entry("entry:c", "gamma")
    assert joins.unknown == {"entry:a"} and joins.text == {"entry:c": "gamma"}
    assert not joins.before_entries(["entry:c", "entry:d"])  # one of them came: each chunk is checked
    assert "entry:d" not in joins.early


def test_chunk_attrs_shared_by_a_batch_are_stored_as_each_alone(tmp_path):
    conn = db.open_writer(tmp_path)
    attrs = ['{"source":"a.md"}', "{}", '{"source":"b.md"}'] * 6 + ['{"k":1}']
    with db.transaction(conn):
        stored = ingest.chunk_attrs.store(conn, attrs)
        known = ingest.chunk_attrs.templates(conn)
    assert known and stored == [ingest.chunk_attrs.encode(a, known) for a in attrs]
    assert [ingest.chunk_attrs.decode(s, known) for s in stored] == attrs
