"""The text once (schema 4): an entry whose chunks join to its text stores it only in them, and every answer is
what the adapter of schema 3 gave, on the shared corpora, in a new store and in a schema-3 store once migrated;
rewriting or deleting the chunks of such an entry leaves its text exact."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from support.history import past_step
from support.sqlite_helpers import sqlite_backend
from test_derived_edges import SCHEMA_3, _clean, _old_adapter, _questions, answers, index_both

from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, ingest

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box


def _held(store: Path) -> tuple[int, int]:
    """(entries, entries whose text is held by their chunks only) in STORE's database."""
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return conn.execute("SELECT count(*), count(*) - count(text) FROM node_rows WHERE kind = 'entry'").fetchone()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def schema3_adapter(tmp_path_factory) -> Path:
    return _old_adapter(tmp_path_factory.mktemp("schema3-adapter"), SCHEMA_3, ("adapters/common",))


@pytest.fixture(scope="module", params=past_step("watercooler"))
def both(request, tmp_path_factory, schema3_adapter):
    yield from index_both(schema3_adapter, tmp_path_factory.mktemp(f"text-once-{request.param}"), request.param)


def _all_nodes(b: SubprocessBackend, ids: list[str]) -> dict[str, dict]:
    return {i: _clean(b.call("get_node", {"id": i})) for i in ids}


def _entry_ids(store: Path) -> list[str]:
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return [r[0] for r in conn.execute("SELECT id FROM nodes WHERE kind = 'entry' ORDER BY id")]
    finally:
        conn.close()


def test_a_new_store_holds_most_texts_once_and_answers_as_schema_3_did(both):
    old, new, bundle, base = both
    entries, once = _held(base / "new")
    assert entries > 100 and once > entries // 2, (entries, once)
    q = _questions(bundle)
    before, after = answers(old, q), answers(new, q)
    assert [k for k in before if before[k] != after[k]] == []
    ids = _entry_ids(base / "old")
    assert _all_nodes(old, ids) == _all_nodes(new, ids)  # every entry's text, byte for byte


def test_a_schema_3_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    q = _questions(bundle)
    before = answers(old, q)
    ids = _entry_ids(base / "old")
    texts = _all_nodes(old, ids)
    shutil.copytree(base / "old", tmp_path / "copy")
    b = sqlite_backend(tmp_path / "copy", workers=1)
    try:
        as_read = answers(b, q)
        version = b.call("prepare", {}, use_pool=False)["details"]["schema_version"]
        migrated, migrated_texts = answers(b, q), _all_nodes(b, ids)
    finally:
        b.close()
    assert version == db.SCHEMA_VERSION
    assert [k for k in before if before[k] != as_read[k]] == []
    assert [k for k in before if before[k] != migrated[k]] == []
    assert migrated_texts == texts
    assert _held(tmp_path / "copy")[1] > 0


def _run(conn: sqlite3.Connection, *parts: tuple[str, list[dict]]) -> None:
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=2)
    for rtype, records in parts:
        run.run(rtype, iter(records))
    run.finish()


ENTRY = {"id": "entry:e", "thread_id": "thread:t", "position": 0, "title": "note", "body": "alpha beta gamma delta"}


def _chunks(*bodies: str) -> list[dict]:
    return [
        {"id": f"chunk:{k}", "entry_id": "entry:e", "thread_id": "thread:t", "position": k, "text": body}
        for k, body in enumerate(bodies)
    ]


def _text(conn: sqlite3.Connection) -> tuple[str, str | None]:
    """(the entry's text as get_node answers it, what node_rows stores)."""
    item = graph.get_node(conn, {"id": "entry:e"})["item"]
    return item["text"], conn.execute("SELECT text FROM node_rows WHERE id = 'entry:e'").fetchone()[0]


def _found(conn: sqlite3.Connection, word: str) -> int:
    return conn.execute("SELECT count(*) FROM node_fts WHERE node_fts MATCH ?", (word,)).fetchone()[0]


def _joined(tmp_path: Path) -> sqlite3.Connection:
    """A store of one entry whose two chunks join to its text."""
    conn = db.open_writer(tmp_path)
    _run(
        conn,
        ("thread", [{"id": "thread:t", "title": "t"}]),
        ("entry", [ENTRY]),
        ("chunk", _chunks("alpha beta ", "gamma delta")),
    )
    return conn


def test_chunks_that_join_to_the_text_hold_it_and_others_leave_it_stored(tmp_path):
    conn = _joined(tmp_path)
    assert _text(conn) == ("alpha beta gamma delta", None)
    _run(conn, ("chunk", _chunks("alpha beta", "beta gamma delta")))  # overlapping windows: no longer its text
    assert _text(conn) == ("alpha beta gamma delta", "alpha beta gamma delta")
    _run(conn, ("chunk", _chunks("alpha beta ", "gamma delta")))
    assert _text(conn) == ("alpha beta gamma delta", None)


def test_deleting_the_chunks_that_held_a_text_puts_it_back_and_searchable(tmp_path):
    conn = _joined(tmp_path)
    assert _found(conn, "gamma") == 0  # searched through its chunks
    delete.delete(conn, {"ids": ["chunk:0", "chunk:1"]})
    assert _text(conn) == ("alpha beta gamma delta", "alpha beta gamma delta")
    assert _found(conn, "gamma") == 1
    conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 0)")
