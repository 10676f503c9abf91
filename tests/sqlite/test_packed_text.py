"""Chunk bodies stored compressed (schema 5, memdock_sqlite/packed_text.py): every answer is what the adapter of
schema 4 gave, on the shared corpora, in a new store and in a schema-4 store once migrated; chunk_fts stays
consistent with the text through rewrites and deletes; any text comes back exactly as it was given."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from support.history import past_step
from support.sqlite_helpers import sqlite_backend
from test_derived_edges import LATER_STEPS_OFF, _clean, _old_adapter, _questions, answers, index_both

from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, ingest, packed_text

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_4 = "7fe438fd511f94eb51e58a4388b1ed5f96b36e0b"  # the last commit before packed chunk bodies (schema 5)


def _rows(store: Path, sql: str) -> list[tuple]:
    conn = sqlite3.connect(store / "data" / "memory.sqlite")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _packed(store: Path) -> tuple[int, int]:
    """(chunks, chunks whose body is stored compressed: alone, or in a block since schema 8) in STORE's database."""
    packed = "typeof(body) = 'blob' OR block IS NOT NULL"
    return _rows(store, f"SELECT count(*), count(*) FILTER (WHERE {packed}) FROM chunk_rows")[0]


def _chunk_ids(store: Path) -> list[str]:
    return [r[0] for r in _rows(store, "SELECT id FROM chunks ORDER BY id")]  # schema 4: chunks is a table


def _get(b: SubprocessBackend, ids: list[str]) -> dict[str, dict]:
    return {i: _clean(b.call("get_node", {"id": i})) for i in ids}


def _search(b: SubprocessBackend, q: dict) -> dict[str, dict]:
    return {t: _clean(b.call("query", {"text": t, "limit": 10})) for t in q["queries"]}


@pytest.fixture(scope="module")
def schema4_adapter(tmp_path_factory) -> Path:
    return _old_adapter(tmp_path_factory.mktemp("schema4-adapter"), SCHEMA_4, ("adapters/common",))


@pytest.fixture(scope="module", params=past_step("watercooler"))
def both(request, tmp_path_factory, schema4_adapter):
    yield from index_both(schema4_adapter, tmp_path_factory.mktemp(f"packed-{request.param}"), request.param)


def test_the_old_adapter_is_schema_4(schema4_adapter):
    assert not (schema4_adapter / "memdock_sqlite" / "packed_text.py").exists()
    assert "SCHEMA_VERSION = 4" in (schema4_adapter / "memdock_sqlite" / "db.py").read_text()


def test_a_new_store_packs_most_bodies_and_answers_as_schema_4_did(both):
    old, new, bundle, base = both
    chunks, packed = _packed(base / "new")
    assert chunks > 100 and packed > chunks // 2, (chunks, packed)
    q = _questions(bundle)
    before, after = answers(old, q), answers(new, q)
    assert [k for k in before if before[k] != after[k]] == []
    assert _search(old, q) == _search(new, q)  # chunk hits: text, scores, order
    ids = _chunk_ids(base / "old")
    assert _get(old, ids) == _get(new, ids)  # every chunk's text, byte for byte


def test_a_schema_4_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    q = _questions(bundle)
    ids = _chunk_ids(base / "old")
    before, texts, found = answers(old, q), _get(old, ids), _search(old, q)
    shutil.copytree(base / "old", tmp_path / "copy")
    b = sqlite_backend(tmp_path / "copy", workers=1, config=LATER_STEPS_OFF)
    try:
        as_read = answers(b, q)
        version = b.call("prepare", {}, use_pool=False)["details"]["schema_version"]
        migrated, migrated_texts, migrated_found = answers(b, q), _get(b, ids), _search(b, q)
    finally:
        b.close()
    assert version == db.SCHEMA_VERSION
    assert [k for k in before if before[k] != as_read[k]] == []
    assert [k for k in before if before[k] != migrated[k]] == []
    assert migrated_texts == texts and migrated_found == found
    assert _packed(tmp_path / "copy")[1] > 0
    conn = db.open_writer(tmp_path / "copy" / "data")
    try:
        conn.execute("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")  # against the content
    finally:
        conn.close()


@pytest.mark.parametrize(
    "text",
    [
        "",
        "short",
        "é" * 300,
        "naïve café — 東京 🚀 " * 20,
        "".join(chr(c) for c in range(32, 0x2FF)) * 2,
        "line one\r\nline two\n\n\ttabbed  double  spaces " * 10,
        "\x00 zero byte inside " * 10,
    ],
)
def test_any_text_comes_back_exactly(text):
    stored = packed_text.pack(text)
    assert packed_text.unpack(stored) == text
    assert isinstance(stored, str) or len(stored) < len(text.encode())  # packed only where that is smaller


def test_a_text_that_would_not_shrink_is_stored_as_it_is():
    noise = bytes(range(256)).decode("latin-1") * 2
    assert packed_text.pack(noise[:40]) == noise[:40]
    assert packed_text.pack("\U0001f680\u00e9\u4e1c" * 3) == "\U0001f680\u00e9\u4e1c" * 3


def _run(conn: sqlite3.Connection, *parts: tuple[str, list[dict]]) -> None:
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=2)
    for rtype, records in parts:
        run.run(rtype, iter(records))
    run.finish()


def _chunks(*bodies: str) -> list[dict]:
    return [
        {"id": f"chunk:{k}", "entry_id": "entry:e", "thread_id": "thread:t", "position": k, "text": body}
        for k, body in enumerate(bodies)
    ]


def _found(conn: sqlite3.Connection, words: str) -> int:
    return conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?", (words,)).fetchone()[0]


def _consistent(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")


def test_rewritten_and_deleted_packed_chunks_leave_the_index_exact(tmp_path):
    conn = db.open_writer(tmp_path)
    long = "alpha beta gamma delta epsilon " * 20
    _run(
        conn,
        ("thread", [{"id": "thread:t", "title": "t"}]),
        ("entry", [{"id": "entry:e", "thread_id": "thread:t", "position": 0, "body": long + "zeta"}]),
        ("chunk", _chunks(long, "zeta")),
    )
    assert conn.execute("SELECT count(block) FROM chunk_rows").fetchone()[0] == 2  # in blocks (schema 8)
    _consistent(conn)
    _run(conn, ("chunk", _chunks("omega " * 40, "zeta")))  # rewritten: the old words leave the index
    _consistent(conn)
    assert (_found(conn, "alpha"), _found(conn, "omega")) == (0, 1)
    assert graph.get_node(conn, {"id": "chunk:0"})["item"]["text"] == "omega " * 40
    assert graph.get_node(conn, {"id": "entry:e"})["item"]["text"] == long + "zeta"  # the entry's own text, kept
    delete.delete(conn, {"ids": ["chunk:0"]})
    _consistent(conn)
    assert _found(conn, "omega") == 0
    conn.close()


def test_a_connection_without_unpack_cannot_misread_a_body(tmp_path):
    """A body is never read as its compressed bytes: the view needs the adapter's function, or it fails."""
    conn = db.open_writer(tmp_path)
    _run(
        conn,
        ("thread", [{"id": "thread:t", "title": "t"}]),
        ("entry", [{"id": "entry:e", "thread_id": "thread:t", "position": 0, "body": "x"}]),
        ("chunk", _chunks("words repeated " * 30)),
    )
    conn.close()
    raw = sqlite3.connect(tmp_path / "memory.sqlite")
    try:
        with pytest.raises(sqlite3.OperationalError, match="unpack|unblock"):
            raw.execute("SELECT body FROM chunks").fetchall()
    finally:
        raw.close()
