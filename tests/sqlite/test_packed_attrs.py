"""Nodes' attrs, the texts entries keep and chunk bodies packed (with the store's zlib dictionaries where it has
them), content hashes as 32 bytes (schema 6, memdock_sqlite/packed_text.py): every answer is what the adapter of
schema 5 gave, on the shared corpora, in a new store and in a schema-5 store once migrated; a value never reads
back as anything but what was given."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from support.history import past_step
from support.sqlite_helpers import sqlite_backend
from test_derived_edges import LATER_STEPS_OFF, _clean, _old_adapter, _questions, answers, index_both
from test_packed_text import _rows

from memdock.bundle.reader import BundleReader
from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, ingest, packed_text

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_5 = "542c0d49c8635d7926af89bb0bc8a1f3faa3751c"  # the last commit before packed attrs (schema 6)


def _packed(store: Path) -> dict[str, tuple[int, int]]:
    """(rows, rows stored as a BLOB) of node attrs, chunk attrs, chunk bodies and content hashes in STORE."""
    out = {}
    for what, table, column in (
        ("entry attrs", "node_rows WHERE kind = 'entry'", "attrs"),
        ("entry texts", "node_rows WHERE kind = 'entry' AND length(text) > 200", "text"),
        ("chunk attrs", "chunk_rows", "attrs"),
        ("bodies", "chunk_rows", "body"),
        ("hashes", "chunk_rows", "content_hash"),
    ):
        in_block = column == "body" and ("block",) in _rows(store, "SELECT name FROM pragma_table_info('chunk_rows')")
        blobs = f"count(*) FILTER (WHERE typeof({column}) = 'blob'{' OR block IS NOT NULL' * in_block})"
        out[what] = _rows(store, f"SELECT count(*), {blobs} FROM {table}")[0]
    return out


def _ids(store: Path, table: str) -> list[str]:
    return [r[0] for r in _rows(store, f"SELECT id FROM {table} ORDER BY id")]


def _metadata_filters(bundle: Path) -> list[dict[str, list[Any]]]:
    """`where` filters on the metadata the bundle's chunks carry: each key with a value some chunk has."""
    found: dict[str, Any] = {}
    for r in BundleReader(bundle).records("chunk"):
        for k, v in (r.get("metadata") or {}).items():
            found.setdefault(k, v)
    return [{k: [v]} for k, v in sorted(found.items())[:4]]


def _reads(b: SubprocessBackend, q: dict, chunk_ids: list[str], filters: list[dict]) -> dict[str, Any]:
    """What schema 6 changes the storage of: chunk hits (source from attrs), nodes and chunks got by id, search
    with metadata filters (json over attrs), episodes."""
    out: dict[str, Any] = {}
    for text in q["queries"]:
        out[f"query {text}"] = _clean(b.call("query", {"text": text, "limit": 10}))
        out[f"episodes {text}"] = _clean(b.call("search_episodes", {"text": text, "limit": 10}))
        for where in filters:
            out[f"query {text} where {where}"] = _clean(b.call("query", {"text": text, "limit": 10, "where": where}))
    for i in chunk_ids:
        out[f"chunk {i}"] = _clean(b.call("get_node", {"id": i}))
    return out


def _schema5_adapter(dest: Path) -> Path:
    return _old_adapter(dest, SCHEMA_5, ("adapters/common",))


@pytest.fixture(scope="module", params=past_step("watercooler"))
def both(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"attrs-{request.param}")
    yield from index_both(_schema5_adapter(base / "schema5-adapter"), base, request.param)


def test_the_old_adapter_is_schema_5(tmp_path):
    assert "SCHEMA_VERSION = 5" in (_schema5_adapter(tmp_path) / "memdock_sqlite" / "db.py").read_text()


def test_a_new_store_packs_attrs_and_answers_as_schema_5_did(both):
    old, new, bundle, base = both
    packed = _packed(base / "new")
    assert packed["entry attrs"][1] > packed["entry attrs"][0] // 2, packed
    assert packed["chunk attrs"][1] == 0, packed  # left as they are: metadata filters read them all
    assert packed["hashes"][1] == packed["hashes"][0] > 100, packed
    assert _packed(base / "old")["entry attrs"][1] == 0
    texts, packed_texts = packed["entry texts"]  # texts their chunks do not hold (watercooler's; LoCoMo has none)
    assert (texts == 0 and "locomo" in str(base)) or packed_texts > texts // 2 > 0, packed
    q = _questions(bundle)
    chunk_ids, filters = _ids(base / "new", "chunk_rows"), _metadata_filters(bundle)
    before, after = answers(old, q), answers(new, q)
    assert [k for k in before if before[k] != after[k]] == []
    read_old, read_new = _reads(old, q, chunk_ids, filters), _reads(new, q, chunk_ids, filters)
    assert [k for k in read_old if read_old[k] != read_new[k]] == []
    assert _stored_hashes(base / "old") == _stored_hashes(base / "new")


def _stored_hashes(store: Path) -> list[tuple]:
    conn = db.open_db(store / "data", write=False)
    assert conn is not None
    try:
        return conn.execute("SELECT id, content_hash FROM chunks ORDER BY id").fetchall()
    finally:
        conn.close()


def test_a_schema_5_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    q = _questions(bundle)
    chunk_ids, filters = _ids(base / "new", "chunk_rows"), _metadata_filters(bundle)
    before, reads = answers(old, q), _reads(old, q, chunk_ids, filters)
    shutil.copytree(base / "old", tmp_path / "copy")
    b = sqlite_backend(tmp_path / "copy", workers=1, config=LATER_STEPS_OFF)
    try:
        as_read = answers(b, q)
        version = b.call("prepare", {}, use_pool=False)["details"]["schema_version"]
        migrated, migrated_reads = answers(b, q), _reads(b, q, chunk_ids, filters)
    finally:
        b.close()
    assert version == db.SCHEMA_VERSION
    assert [k for k in before if before[k] != as_read[k]] == []
    assert [k for k in before if before[k] != migrated[k]] == []
    assert [k for k in reads if reads[k] != migrated_reads[k]] == []
    packed = _packed(tmp_path / "copy")
    assert packed["entry attrs"][1] > packed["entry attrs"][0] // 2 and packed["hashes"][1] == packed["hashes"][0]
    assert _stored_hashes(tmp_path / "copy") == _stored_hashes(base / "old")


# -- the dictionaries ------------------------------------------------------------------------------------------------


def _entries(n: int, extra: str = "") -> list[dict]:
    return [
        {
            "id": f"entry:{k}",
            "thread_id": "thread:t",
            "position": k,
            "body": f"note {k}",
            "source": "notes.jsonl",
            "source_line": k + 1,
            "metadata": {"source_id": f"{k:016x}", "tag": extra or "plain"},
        }
        for k in range(n)
    ]


def _index(conn: sqlite3.Connection, *parts: tuple[str, list[dict]]) -> None:
    run = ingest.Ingest(conn, on_commit=lambda ids: None)
    for rtype, records in parts:
        run.run(rtype, iter(records))
    run.finish()


def _attrs(conn: sqlite3.Connection) -> dict[str, dict]:
    return {i: json.loads(a) for i, a in conn.execute("SELECT id, attrs FROM nodes WHERE kind = 'entry'")}


def test_attrs_packed_with_a_dictionary_read_back_exactly_from_another_connection(tmp_path):
    conn = db.open_writer(tmp_path)
    _index(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", _entries(40)))
    _index(conn, ("entry", _entries(45, extra="second run, same dictionary: ünïcode 🚀")[40:]))
    assert conn.execute("SELECT count(*) FROM meta WHERE key = 'zdict-of:entry'").fetchone()[0] == 1
    conn.close()
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    try:
        attrs = _attrs(reader)
        stored = reader.execute("SELECT count(*) FILTER (WHERE typeof(attrs) = 'blob') FROM node_rows").fetchone()[0]
    finally:
        reader.close()
    assert stored >= 40
    assert attrs["entry:3"] == {
        "source": "notes.jsonl",
        "source_line": 4,
        "metadata": {"source_id": f"{3:016x}", "tag": "plain"},
    }
    assert attrs["entry:44"]["metadata"]["tag"] == "second run, same dictionary: ünïcode 🚀"


def test_a_first_batch_too_small_for_a_dictionary_stores_attrs_as_text(tmp_path):
    conn = db.open_writer(tmp_path)
    _index(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", _entries(3)))
    assert conn.execute("SELECT DISTINCT typeof(attrs) FROM node_rows").fetchall() == [("text",)]
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'zdict%'").fetchone()[0] == 0
    assert _attrs(conn)["entry:2"]["source_line"] == 3
    conn.close()


def test_a_dictionary_id_taken_by_other_bytes_is_not_reused(tmp_path):
    """An Adler-32 names one dictionary: when the id is taken by other bytes, the attrs stay text."""
    conn = db.open_writer(tmp_path)
    samples = [json.dumps(e) for e in _entries(40)]
    zdict = "".join(samples).encode()[-packed_text.DICT_BYTES :]
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?)", (f"zdict:{zlib.adler32(zdict):08x}", b"other bytes"))
    assert packed_text.Dictionaries(conn).pack_attrs("entry", samples, [str(k) for k in range(40)]) == samples
    conn.close()


def test_a_value_whose_dictionary_is_missing_is_an_error_not_a_wrong_text(tmp_path):
    conn = db.open_writer(tmp_path)
    _index(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", _entries(40)))
    conn.execute("DELETE FROM meta WHERE key LIKE 'zdict:%'")
    conn.close()
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    try:
        with pytest.raises(sqlite3.OperationalError, match="user-defined function raised exception"):
            reader.execute("SELECT attrs FROM nodes WHERE kind = 'entry'").fetchall()
    finally:
        reader.close()


def test_a_failed_batch_leaves_no_dictionary_behind(tmp_path, monkeypatch):
    """The dictionary is stored in the batch's transaction: a batch that fails takes it back with its rows."""
    conn = db.open_writer(tmp_path)
    _index(conn, ("thread", [{"id": "thread:t", "title": "t"}]))
    run = ingest.Ingest(conn, on_commit=lambda ids: None)
    monkeypatch.setattr(ingest.Ingest, "_first_nodes", lambda *a: (_ for _ in ()).throw(OSError("disk gone")))
    with pytest.raises(OSError):
        run.run("entry", iter(_entries(40)))
    monkeypatch.undo()
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'zdict%'").fetchone()[0] == 0
    _index(conn, ("entry", _entries(40)))
    assert _attrs(conn)["entry:39"]["source_line"] == 40
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'zdict%'").fetchone()[0] == 2  # made again
    conn.close()


@pytest.mark.parametrize(
    "value",
    [None, "sha256:" + "ab" * 32, "sha256:" + "AB" * 32, "md5:" + "0" * 32, "sha256:short", ""],
)
def test_content_hashes_read_back_as_given(tmp_path, value):
    conn = db.open_writer(tmp_path)
    chunk = {"id": "chunk:0", "entry_id": "entry:0", "thread_id": "thread:t", "position": 0, "text": "note 0"}
    _index(
        conn,
        ("thread", [{"id": "thread:t", "title": "t"}]),
        ("entry", _entries(1)),
        ("chunk", [{**chunk, "content_hash": value} if value is not None else chunk]),
    )
    assert conn.execute("SELECT content_hash FROM chunks").fetchone()[0] == value
    stored = conn.execute("SELECT typeof(content_hash), length(content_hash) FROM chunk_rows").fetchone()
    packed = value == "sha256:" + "ab" * 32  # only the lower-case form spells its bytes back exactly
    assert stored == ("blob", 32) if packed else stored[0] != "blob"
    conn.close()


def test_a_packed_entry_text_reads_back_and_leaves_the_index_exact_through_rewrites_and_deletes(tmp_path):
    conn = db.open_writer(tmp_path)
    first, second = "alpha beta gamma delta " * 30, "omega psi chi " * 30
    entry = {"id": "entry:e", "thread_id": "thread:t", "position": 0}
    _index(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", [{**entry, "body": first}]))
    assert conn.execute("SELECT typeof(text) FROM node_rows WHERE id = 'entry:e'").fetchone() == ("blob",)
    assert conn.execute("SELECT text FROM nodes WHERE id = 'entry:e'").fetchone() == (first,)
    found = "SELECT count(*) FROM node_fts WHERE node_fts MATCH ?"
    assert conn.execute(found, ("gamma",)).fetchone() == (1,)
    _index(conn, ("entry", [{**entry, "body": second}]))  # rewritten: the old words leave the index
    conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 1)")
    assert [conn.execute(found, (w,)).fetchone()[0] for w in ("gamma", "psi")] == [0, 1]
    assert conn.execute("SELECT text FROM nodes WHERE id = 'entry:e'").fetchone() == (second,)
    delete.delete(conn, {"ids": ["entry:e"]})
    conn.execute("INSERT INTO node_fts(node_fts, rank) VALUES ('integrity-check', 1)")
    assert conn.execute(found, ("psi",)).fetchone() == (0,)
    conn.close()
