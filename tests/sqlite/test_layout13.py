"""Schema 13 (memdock_sqlite/db.py): a chunk names its entry by the entry's rowid (chunk_rows.entry_id, INTEGER,
and so chunks_entry), by its id only where no node had it when the chunk was written or its node was deleted; the
chunks view joins the id back. Every answer is what the adapter of schema 12 gave, thread-scoped searches included,
on the shared corpora, in a new store and in a schema-12 store read as it is and once migrated; on small stores, ids
of digits are never taken for rowids, a chunk sent before its entry is found through its id, and a node's rowid
given again to another node never takes the chunks of the one deleted.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from test_layout7 import _run, migrated, stores_fixture
from test_layout10 import _scoped, every_answer, old_schema, scoped_read_and_migrated
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, filters, graph, neighbours

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_12 = "fa9caa1175f9bb69cecf42ea37eae35b93936ba2"  # the last commit before schema 13
both = stores_fixture(SCHEMA_12, ["watercooler", "locomo"])  # the newest step: every corpus
_TYPES = "SELECT count(*) FILTER (WHERE typeof(entry_id) = 'integer'), count(*) FROM chunk_rows"
_ENTRIES = "SELECT id, entry_id FROM chunks ORDER BY id"  # the view, read as the adapter reads it (`_read_as`)
_BYTES = "SELECT sum(pgsize) FROM dbstat WHERE name IN ('chunk_rows', 'chunks_entry')"


def _read_as(store: Path, sql: str) -> list[tuple]:
    """SQL's rows on STORE's database opened as the adapter opens it (its functions registered)."""
    conn = db.open_db(store / "data", write=False)
    assert conn is not None
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_old_adapter_is_schema_12(both):
    assert "SCHEMA_VERSION = 12" in old_schema(both)


def test_a_new_store_names_entries_by_rowid_in_fewer_bytes_and_answers_as_schema_12_did(both):
    old, new, bundle, base = both
    before, after = every_answer(old, bundle, base, base / "old"), every_answer(new, bundle, base, base / "new")
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    by_rowid, chunks = _rows(base / "new", _TYPES)[0]
    assert _rows(base / "old", _TYPES)[0] == (0, chunks) and by_rowid == chunks > 100
    assert _read_as(base / "new", _ENTRIES) == _read_as(base / "old", _ENTRIES)
    assert _rows(base / "new", _BYTES)[0][0] < _rows(base / "old", _BYTES)[0][0]


def test_a_schema_12_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION >= db.ENTRY_ROWIDS
    assert layouts["before"].startswith("schema 12 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _rows(tmp_path / "copy", _TYPES) == _rows(base / "new", _TYPES)
    assert _read_as(tmp_path / "copy", _ENTRIES) == _read_as(base / "old", _ENTRIES)
    every = "SELECT * FROM chunk_rows ORDER BY rowid"
    assert [r[:2] + r[3:] for r in _rows(tmp_path / "copy", every)] == [
        r[:2] + r[3:] for r in _rows(base / "old", every)
    ]
    assert _rows(tmp_path / "copy", "SELECT count(*) FROM sqlite_temp_schema") == [(0,)]
    as_read, after = scoped_read_and_migrated(base / "old", bundle, tmp_path / "scoped")
    assert _scoped(old, bundle) == as_read == after


# -- the rules, on small stores ----------------------------------------------------------------------------------


def _entry(k: int, thread: str = "thread:a", eid: str | None = None) -> dict:
    return {"id": eid or str(k), "thread_id": thread, "position": k, "body": f"note {k} about apples"}


def _chunk(k: int, eid: str, thread: str = "thread:a") -> dict:
    text = f"note {k} about apples"
    return {"id": f"chunk:{k}", "entry_id": eid, "thread_id": thread, "position": 0, "text": text, "start": 0,
            "end": len(text)}  # fmt: skip


def _read(conn: sqlite3.Connection) -> dict[str, object]:
    """Each chunk's entry and thread as the chunks view and get_node read them, and each entry's text."""
    chunks = [i for (i,) in conn.execute("SELECT id FROM chunk_rows ORDER BY id")]
    entries = [i for (i,) in conn.execute("SELECT id FROM node_rows WHERE kind = 'entry' ORDER BY id")]
    got: dict[str, object] = dict(conn.execute("SELECT id, entry_id || ' ' || thread_id FROM chunks"))
    for i in chunks:
        got[f"provenance {i}"] = graph.get_node(conn, {"id": i})["item"]["provenance"]
    for i in entries:
        got[f"text {i}"] = graph.get_node(conn, {"id": i})["item"]["text"]
    return got


def _in_threads(conn: sqlite3.Connection, threads: list[str]) -> list[str]:
    conds, args = filters.where({"thread_ids": threads}, "c", conn)
    return [i for (i,) in conn.execute(f"SELECT c.id FROM chunks c WHERE {conds[0]} ORDER BY c.id", args)]


def test_an_id_of_digits_is_not_taken_for_a_rowid(tmp_path):
    conn = db.open_writer(tmp_path)
    # rowids: thread:a 1, thread:b 2, entry "1" 3, entry "2" 4; chunk:3 comes before its entry "3" (rowid 5): it
    # names it "3", a rowid entry "1" has; chunk:2's entry is stored: named by its rowid, 4
    _run(conn, ("thread", [{"id": "thread:a"}, {"id": "thread:b"}]), ("entry", [_entry(1), _entry(2, "thread:b")]))
    _run(conn, ("chunk", [_chunk(3, "3"), _chunk(2, "2", "thread:b")]), ("entry", [_entry(3)]))
    assert dict(conn.execute("SELECT id, entry_id FROM chunk_rows")) == {"chunk:2": 4, "chunk:3": "3"}
    assert dict(conn.execute("SELECT id, rowid FROM node_rows WHERE kind = 'entry'")) == {"1": 3, "2": 4, "3": 5}
    assert dict(conn.execute("SELECT id, indexed FROM node_rows WHERE kind = 'entry'")) == {"1": 1, "2": 1, "3": 2}
    read = _read(conn)
    assert read["chunk:2"] == "2 thread:b" and read["chunk:3"] == "3 thread:a"
    assert read["provenance chunk:3"]["entry_id"] == "3" and read["provenance chunk:2"]["entry_id"] == "2"
    assert [read[f"text {k}"] for k in "123"] == [f"note {k} about apples" for k in "123"]
    assert _in_threads(conn, ["thread:b"]) == ["chunk:2"] and _in_threads(conn, ["thread:a"]) == ["chunk:3"]
    third = conn.execute("SELECT rowid FROM chunk_rows WHERE id = 'chunk:3'").fetchone()[0]
    assert neighbours._answer(conn, "thread:a", 1) == third
    delete.delete(conn, {"ids": ["1"]})  # rowid 3: not chunk:3's entry, which stays as it was
    assert dict(conn.execute("SELECT id, entry_id FROM chunk_rows")) == {"chunk:2": 4, "chunk:3": "3"}
    delete.delete(conn, {"ids": ["3"]})
    assert dict(conn.execute("SELECT id, entry_id FROM chunk_rows")) == {"chunk:2": 4}


@pytest.mark.parametrize("first", [True, False], ids=["first-load", "later-run"])
def test_a_chunk_names_its_entry_by_rowid_and_one_before_it_by_id(tmp_path, first):
    conn = db.open_writer(tmp_path)
    if not first:  # the store is not empty: ingest asks the database for the entries' rowids
        _run(conn, ("thread", [{"id": "thread:a"}]))
    _run(conn, ("chunk", [_chunk(1, "entry:1")]), ("entry", [_entry(1, eid="entry:1"), _entry(2, eid="entry:2")]))
    _run(conn, ("chunk", [_chunk(2, "entry:2")]))
    rowid = conn.execute("SELECT rowid FROM node_rows WHERE id = 'entry:2'").fetchone()[0]
    assert dict(conn.execute("SELECT id, entry_id FROM chunk_rows")) == {"chunk:1": "entry:1", "chunk:2": rowid}
    read = _read(conn)
    assert read["chunk:1"] == "entry:1 thread:a" and read["chunk:2"] == "entry:2 thread:a"
    assert read["text entry:1"] == "note 1 about apples" and read["text entry:2"] == "note 2 about apples"
    assert _in_threads(conn, ["thread:a"]) == ["chunk:1", "chunk:2"]


def test_a_deleted_nodes_rowid_given_again_does_not_take_its_chunks(tmp_path):
    conn = db.open_writer(tmp_path)
    _run(conn, ("entry", [_entry(1, eid="entry:1"), _entry(2, eid="entry:2")]), ("chunk", [_chunk(2, "entry:2")]))
    rowid = conn.execute("SELECT rowid FROM node_rows WHERE id = 'entry:2'").fetchone()[0]
    conn.execute("DELETE FROM node_rows WHERE id = 'entry:2'")  # its chunk left (as no run leaves one)
    assert dict(conn.execute("SELECT id, entry_id FROM chunk_rows")) == {"chunk:2": "entry:2"}
    _run(conn, ("entry", [_entry(3, eid="entry:3")]))
    assert conn.execute("SELECT rowid FROM node_rows WHERE id = 'entry:3'").fetchone()[0] == rowid
    read = _read(conn)
    assert read["chunk:2"] is None and read["text entry:3"] == "note 3 about apples"  # no entry: no thread either
    assert _in_threads(conn, ["thread:a"]) == []
    _run(conn, ("entry", [_entry(2, eid="entry:2")]))  # back, with another rowid: found through its id
    assert _read(conn)["chunk:2"] == "entry:2 thread:a" and _in_threads(conn, ["thread:a"]) == ["chunk:2"]


def test_a_read_request_sees_one_schema_though_a_writer_migrates_meanwhile(tmp_path):
    """The schema a query is built for (db.entry_of, read at each query) is the one it reads: a read request runs
    in one read transaction (adapter._snapshot), so a migration committed between the two is not seen by it."""
    from memdock_sqlite.adapter import _snapshot

    writer = db.open_writer(tmp_path)
    _run(writer, ("thread", [{"id": "thread:a"}]), ("entry", [_entry(1)]), ("chunk", [_chunk(1, "1")]))
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None

    def request(conn: sqlite3.Connection) -> tuple[str, str]:
        built = db.entry_of(conn)
        writer.execute("PRAGMA user_version = 12")  # as a migration's commit changes it, between two queries
        return built, db.entry_of(conn)

    built, read = _snapshot(request, reader)
    assert built == read == db.ENTRY_OF and not reader.in_transaction
    assert db.entry_of(reader) == db.ENTRY_OF_12  # the next request sees the writer's commit
