"""Schema 14 (memdock_sqlite/graph_log.py): a connection that has ranked links' facts follows a later write that only
added, reading the new links alone, and reads every link again after any write that changed a fact it had read (a
node's phrase, a link, a chunk, a link taking back an older rowid) or that it cannot know (the log emptied, a store
of schema 13). Either way it ranks exactly as one FTS5 index of every fact would (test_layout9._check)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_layout7 import _run
from test_layout9 import AUTHORS, _check, _edge, _store

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, graph_log, link_facts

from memdock import Memory


@pytest.fixture
def loads(monkeypatch) -> list[int]:
    """One item for each time a connection reads every link (link_facts.load)."""
    calls: list[int] = []
    real = link_facts.load

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(link_facts, "load", counted)
    return calls


def _meta(conn, key: str) -> str:
    return conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]


def _reader(tmp_path: Path):
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    return reader


NEW = {"id": "entry:z", "thread_id": "thread:b", "position": 10, "body": "a zebra near the tools", "author": "sam"}
NEW_EDGES = [
    _edge("contains", "thread:b", "entry:z", NEW),
    _edge("follows", "entry:z", "entry:9", NEW),
    _edge("mentions", "entry:z", "entity:file:m", NEW),
]
SAME_ENTITY = {"id": "entity:file:m", "entity_type": "file", "name": "tools/migrate_v2.py"}  # as _store wrote it


def test_a_reader_follows_a_write_that_only_adds(tmp_path, loads):
    conn = _store(tmp_path)
    reader = _reader(tmp_path)
    _check(reader)
    _check(conn)
    assert len(loads) == 2  # one read of every link on each connection
    had = len(reader.link_facts.links.rowids)
    # an import sends the entities its entries mention again, unchanged: that changes no phrase
    _run(conn, ("entity", [SAME_ENTITY]), ("entry", [NEW]), ("edge", NEW_EDGES))
    for c in (reader, conn):
        found = link_facts.rank(c, ["zebra"], 10, None)
        assert len(found) == 3  # the new entry's three facts name it by its text
        _check(c)
        assert len(c.link_facts.links.rowids) == had + 3
    assert len(loads) == 2  # followed: neither connection read every link again


def _entity_renamed(conn) -> None:
    _run(conn, ("entity", [{**SAME_ENTITY, "name": "tools/migrate_v3.py"}]))


def _thread_retitled(conn) -> None:
    _run(conn, ("thread", [{"id": "thread:a", "title": "Launch plans"}]))


def _entry_rewritten(conn) -> None:
    entry = {"id": "entry:1", "thread_id": "thread:a", "position": 1, "author": AUTHORS[1]}
    _run(conn, ("entry", [{**entry, "body": "ship the launch on monday 1", "event_time": "2026-03-02T10:00:00Z"}]))


def _entry_forgotten(conn) -> None:
    delete.delete(conn, {"ids": ["entry:3"]})


CHUNKED = {"id": "entry:c", "thread_id": "thread:a", "position": 20, "body": "alpha beta gamma delta"}


def _chunked(conn) -> None:
    """An untitled entry whose two chunks hold its text (a fact names it by their first words), and its link."""
    chunk = {"entry_id": "entry:c", "thread_id": "thread:a"}
    chunks = [
        {**chunk, "id": "chunk:c0", "position": 0, "text": "alpha beta ", "start": 0, "end": 11},
        {**chunk, "id": "chunk:c1", "position": 1, "text": "gamma delta", "start": 11, "end": 22},
    ]
    _run(conn, ("entry", [CHUNKED]), ("chunk", chunks), ("edge", [_edge("contains", "thread:a", "entry:c", CHUNKED)]))


def _chunk_rewritten(conn) -> None:
    chunk = {"entry_id": "entry:c", "thread_id": "thread:a", "position": 0, "start": 0, "end": 11}
    _run(conn, ("chunk", [{**chunk, "id": "chunk:c0", "text": "omega beta "}]))


def _chunk_moved(conn) -> None:  # sent again for another entry: entry:c keeps its text, stored in its row first
    chunk = {"thread_id": "thread:a", "position": 0, "start": 0, "end": 11, "text": "alpha beta "}
    _run(conn, ("chunk", [{**chunk, "id": "chunk:c0", "entry_id": "entry:1"}]))


def _chunk_forgotten(conn) -> None:
    delete.delete(conn, {"ids": ["chunk:c0"]})


def _link_deleted(conn) -> None:
    conn.execute("DELETE FROM links WHERE rowid = (SELECT max(rowid) FROM links)")


def _link_changed(conn) -> None:  # the adapter deletes and adds a link again; a link changed in place is logged too
    conn.execute("UPDATE links SET target = (SELECT rowid FROM node_rows WHERE id = 'entry:0') WHERE code >> 1 = 2")


CHANGES = [
    _entity_renamed,
    _thread_retitled,
    _entry_rewritten,
    _entry_forgotten,
    _chunk_rewritten,
    _chunk_moved,
    _chunk_forgotten,
    _link_deleted,
    _link_changed,
]


@pytest.mark.parametrize("change", CHANGES)
def test_a_write_that_changes_a_fact_read_makes_the_reader_read_every_link_again(tmp_path, loads, change: Callable):
    conn = _store(tmp_path)
    _chunked(conn)
    reader = _reader(tmp_path)
    _check(reader)
    assert link_facts.rank(reader, ["alpha"], 10, None)  # named by its chunks' text
    seq = _meta(reader, "graph_seq")
    change(conn)
    assert _meta(reader, "graph_seq") != seq  # logged
    _check(reader)
    assert len(loads) == 2


def test_an_entry_whose_chunk_moves_to_another_keeps_its_text(tmp_path):
    conn = _store(tmp_path)
    _chunked(conn)
    assert conn.execute("SELECT text FROM node_rows WHERE id = 'entry:c'").fetchone()[0] is None  # in its chunks
    _chunk_moved(conn)
    assert graph.get_node(conn, {"id": "entry:c"})["item"]["text"] == CHUNKED["body"]


def test_a_link_that_takes_back_its_edges_older_rowid_is_seen(tmp_path, loads):
    conn = _store(tmp_path)
    early = {"id": "entry:2", "thread_id": "thread:a"}
    waiting = _edge("mentions", "entry:2", "entity:person:x", early)  # its target not stored yet: kept in full
    _run(conn, ("edge", [waiting]))
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 3
    _run(conn, ("entry", [NEW]), ("edge", NEW_EDGES))  # links above the waiting edge's rowid
    reader = _reader(tmp_path)
    _check(reader)
    _run(conn, ("entity", [{"id": "entity:person:x", "entity_type": "person", "name": "xavier"}]), ("edge", [waiting]))
    moved = conn.execute("SELECT rowid FROM links WHERE rowid < (SELECT max(rowid) FROM links) - 2").fetchall()
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 2 and moved  # a link now, its rowid kept
    assert link_facts.rank(reader, ["xavier"], 10, None)
    _check(reader)
    assert len(loads) == 2  # no write logged a change: the count of links told


@pytest.mark.parametrize("limit, reads", [(graph_log.LIMIT, 1), (1, 2)])
def test_a_change_to_a_node_the_reader_never_read_is_followed_unless_the_log_was_emptied(
    tmp_path, loads, monkeypatch, limit: int, reads: int
):
    monkeypatch.setattr(graph_log, "LIMIT", limit)
    conn = _store(tmp_path)
    reader = _reader(tmp_path)
    _check(reader)
    _run(conn, ("entry", [NEW]), ("edge", NEW_EDGES))
    _run(conn, ("entry", [{**NEW, "body": "a zebra far from the tools"}]))  # a node newer than the reader's read
    logged = conn.execute("SELECT count(*) FROM graph_log").fetchone()[0]
    seq, floor = (int(_meta(conn, key)) for key in ("graph_seq", "graph_floor"))
    assert (logged, floor) == ((1, 0) if limit > 1 else (0, seq))  # emptied once it held LIMIT
    _check(reader)
    assert link_facts.rank(reader, ["far"], 10, None)
    assert len(loads) == reads


def test_a_store_of_schema_13_is_read_whole_after_every_write_until_a_write_migrates_it(tmp_path, loads):
    conn = _store(tmp_path)
    conn.executescript(
        "".join(f"DROP TRIGGER {name};" for name in graph_log.TRIGGERS)
        + "DROP TABLE graph_log; DELETE FROM meta WHERE key LIKE 'graph_%'; PRAGMA user_version = 13;"
    )
    reader = _reader(tmp_path)
    assert graph_log.mark(reader) is None
    _check(reader)
    _run(conn, ("entry", [NEW]), ("edge", NEW_EDGES))
    _check(reader)
    assert len(loads) == 2
    conn.close()
    conn = db.open_writer(tmp_path)  # the first writing call migrates it
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION == graph_log.SINCE
    assert graph_log.mark(conn) is not None
    _run(conn, ("entry", [{**NEW, "id": "entry:y", "position": 11, "body": "a yak"}]))
    _check(reader)
    assert len(loads) == 3  # its reader had no mark to follow from


def test_a_bulk_load_logs_nothing_and_leaves_the_log_in_place(tmp_path):
    with Memory("sqlite", data_dir=tmp_path / "store") as memory:
        memory.remember("@alice talked to @bob about the zebra plan", thread="infra", author="ana")
    conn = _reader(tmp_path / "store" / "data")
    names = {n for (n,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'")}
    assert set(graph_log.TRIGGERS) <= names
    assert conn.execute("SELECT count(*) FROM graph_log").fetchone()[0] == 0
    assert graph_log.mark(conn) is not None
