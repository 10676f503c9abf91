"""Chunks' attrs stored as the store's template and what lies between (schema 11, memdock_sqlite/chunk_attrs.py):
every answer is what the adapter of schema 10 gave, metadata filters and chunks got by id among them, in a new store
and in a schema-10 store read as it is and once migrated; any attrs read back as they were given; a first load and
later runs store the same rows; the metadata filter's SQL (filters.py) keeps the same chunks as the form before it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from test_layout7 import _everything, _run, migrated, stores_fixture
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import chunk_attrs, db, filters, first_load, graph, ingest

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_10 = "9065630e53eb7fb7b7b8994ae21d3ad480c7001e"  # the last commit of schema 10
both = stores_fixture(SCHEMA_10)
_MARKED = (
    "SELECT count(*) FILTER (WHERE unicode(attrs) BETWEEN 1 AND 8), count(*), sum(length(CAST(attrs AS BLOB))) "
    "FROM chunk_rows"
)


def test_the_old_adapter_is_schema_10(both):
    old_db = both[3] / "old-adapter" / "adapters" / "sqlite" / "memdock_sqlite" / "db.py"  # stores_of's
    assert "SCHEMA_VERSION = 10" in old_db.read_text()


def test_a_new_store_keeps_chunks_attrs_short_and_answers_as_schema_10_did(both):
    old, new, bundle, base = both
    before, after = _everything(old, bundle, base, base / "old"), _everything(new, bundle, base, base / "new")
    assert sum(" where " in k and bool(v["hits"]) for k, v in before.items()) > 0  # a metadata filter keeps some
    assert [k for k in before if before[k] != after[k]] == []
    marked, chunks, size = _rows(base / "new", _MARKED)[0]
    was = _rows(base / "old", _MARKED)[0]
    assert was[:2] == (0, chunks) and marked > chunks // 2 > 50 and size < was[2] * 0.8, (was, marked, size)


def test_a_schema_10_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION >= 11
    assert layouts["before"].startswith("schema 10 (read as it is"), layouts
    marked, chunks, size = _rows(tmp_path / "copy", _MARKED)[0]
    assert marked > chunks // 2 and size < _rows(both[3] / "old", _MARKED)[0][2] * 0.8


# -- the rules, on small stores ----------------------------------------------------------------------------------

ODD_METADATA: list[Any] = [
    {"source_id": "a1", "n": 1},
    {"source_id": "a2", "n": 1.0, "flag": True},
    {"source_id": 'é ü \u2028 \x01 " \\ \n', "n": "1"},
    {"source_id": 12345678901234567890123},  # past 64 bits: json, not orjson, writes it
    {"source_id": None, "list": [1, "two", {"three": 3}]},
    {},
]


def _chunks(k: int, metadata: Any, source: str | None = "notes.jsonl") -> dict:
    text = f"note {k} about apples"
    chunk = {"id": f"chunk:{k}", "entry_id": f"entry:{k}", "thread_id": "thread:t", "position": 0, "text": text}
    return chunk | ({"metadata": metadata} if metadata else {}) | ({"source": source} if source else {})


def _records(n: int = 40) -> list[tuple[str, list[dict]]]:
    entries = [{"id": f"entry:{k}", "thread_id": "thread:t", "position": k, "body": f"note {k}"} for k in range(n)]
    chunks = [_chunks(k, {"source_id": f"{k:016x}"}) for k in range(n - len(ODD_METADATA))]
    chunks += [_chunks(n - len(ODD_METADATA) + j, m, None if j % 3 else "x") for j, m in enumerate(ODD_METADATA)]
    return [("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), ("chunk", chunks)]


def _given(chunk: dict) -> str:
    return ingest._attrs(chunk, ingest._CHUNK_KNOWN)


def test_any_attrs_read_back_as_given_and_those_of_the_template_are_short(tmp_path):
    conn = db.open_writer(tmp_path)
    parts = _records()
    _run(conn, *parts, batch_size=40)
    given = {c["id"]: _given(c) for c in parts[2][1]}
    stored = dict(conn.execute("SELECT id, attrs FROM chunk_rows"))
    assert dict(conn.execute("SELECT id, attrs FROM chunks")) == given
    for cid, attrs in given.items():  # as get_node answers them (a chunk's source, from its attrs)
        assert graph.get_node(conn, {"id": cid})["item"]["provenance"].get("source") == json.loads(attrs).get("source")
    templates = chunk_attrs.templates(conn)
    assert templates == [('{"metadata":{"source_id":"', '"},"source":"notes.jsonl"}')]
    assert stored["chunk:0"] == "\x010000000000000000" and len(stored["chunk:0"]) == 17
    odd = range(40 - len(ODD_METADATA), 40)
    assert [i for i, a in stored.items() if a[:1] != "\x01"] == [f"chunk:{k}" for k in odd]
    assert {i: chunk_attrs.decode(a, templates) for i, a in stored.items()} == given


@pytest.mark.parametrize("batch_size", [40, 9])
def test_a_first_load_and_later_runs_store_the_same_rows(tmp_path, monkeypatch, batch_size):
    def stored(path: Path, first: bool) -> tuple[list, list]:
        conn = db.open_writer(path)
        with monkeypatch.context() as m:
            if not first:
                m.setattr(first_load, "empty", lambda conn: False)
            run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=batch_size)
            assert (run.first is not None) == first
            for rtype, records in _records():
                run.run(rtype, iter(records))
            run.finish()
        rows = conn.execute("SELECT rowid, * FROM chunk_rows ORDER BY rowid").fetchall()
        return rows, conn.execute("SELECT * FROM meta WHERE key LIKE 'chunk-attrs:%' ORDER BY key").fetchall()

    first, later = stored(tmp_path / "first", True), stored(tmp_path / "later", False)
    assert first == later and len(first[1]) >= 2


def test_a_chunk_sent_again_is_stored_with_the_template_the_store_has(tmp_path):
    conn = db.open_writer(tmp_path)
    _run(conn, *_records(), batch_size=40)
    templates = chunk_attrs.templates(conn)
    again = [_chunks(0, {"source_id": "other"}, "elsewhere.jsonl"), _chunks(1, {"source_id": "b"})]
    _run(conn, ("chunk", again), batch_size=40)
    assert chunk_attrs.templates(conn) == templates
    assert dict(conn.execute("SELECT id, attrs FROM chunk_rows WHERE id IN ('chunk:0', 'chunk:1')")) == {
        "chunk:0": _given(again[0]),  # does not fit the template: as it is
        "chunk:1": "\x01b",
    }
    assert dict(conn.execute("SELECT id, attrs FROM chunks WHERE id IN ('chunk:0', 'chunk:1')")) == {
        c["id"]: _given(c) for c in again
    }


def test_too_few_chunks_or_attrs_with_nothing_in_common_learn_no_template(tmp_path):
    assert chunk_attrs.learn(["{}"] * 10) == ("{}", "")
    assert chunk_attrs.learn([json.dumps({f"k{i}": i}) for i in range(10)]) == ('{"', "")
    assert chunk_attrs.learn([]) == ("", "")
    conn = db.open_writer(tmp_path)
    few = [_chunks(k, {"source_id": str(k)}) for k in range(chunk_attrs.MIN_SAMPLES - 1)]
    _run(conn, ("chunk", few), batch_size=40)
    assert chunk_attrs.templates(conn) == []
    assert dict(conn.execute("SELECT id, attrs FROM chunk_rows")) == {c["id"]: _given(c) for c in few}


def test_the_migration_stores_a_schema_10_stores_attrs_as_a_new_store_does(tmp_path):
    new, old = tmp_path / "new", tmp_path / "old"
    _run(db.open_writer(new), *_records(), batch_size=40)
    conn = db.open_writer(old)
    _run(conn, *_records(), batch_size=40)
    given = dict(conn.execute("SELECT id, attrs FROM chunks"))
    conn.execute("DELETE FROM meta WHERE key LIKE 'chunk-attrs:%'")
    conn.executemany("UPDATE chunk_rows SET attrs = ? WHERE id = ?", [(a, i) for i, a in given.items()])
    conn.execute("PRAGMA user_version = 10")  # as schema 10 stored them
    conn.close()
    conn = db.open_writer(old)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    assert dict(conn.execute("SELECT id, attrs FROM chunks")) == given
    stored = conn.execute("SELECT id, attrs FROM chunk_rows ORDER BY id").fetchall()
    assert stored == db.open_writer(new).execute("SELECT id, attrs FROM chunk_rows ORDER BY id").fetchall()
    assert sum(a[:1] == "\x01" for _, a in stored) == 40 - len(ODD_METADATA)


# -- the metadata filter's SQL ------------------------------------------------------------------------------------


def _before(matching: dict[str, list[Any]]) -> tuple[list[str], list[Any]]:
    """The metadata filter's SQL before schema 11 (json_type and json_extract beside each value given)."""
    conds, args = [], []
    for key, values in matching.items():
        path = "$.metadata." + json.dumps(key)
        conds.append(
            "EXISTS (SELECT 1 FROM json_each(?) w WHERE w.type = json_type(c.attrs, ?) "
            "AND w.value IS json_extract(c.attrs, ?))"
        )
        args.extend([json.dumps(values), path, path])
    return conds, args


STORED_METADATA = ODD_METADATA[:3] + [
    {"source_id": None},
    {"source_id": [1, 2]},
    {"source_id": {"a": 1}},
    {"source_id": 1},
    {"source_id": 1.5},
    {"source_id": False},
    {"other": "a1"},
]
WHERES = [
    {"source_id": ["a1"]},
    {"source_id": ["a1", "a2", "nope"]},
    {"n": [1]},
    {"n": [1.0]},
    {"n": ["1"]},
    {"n": [True]},
    {"flag": [True]},
    {"flag": [1]},
    {"source_id": [None]},
    {"source_id": [[1, 2]]},
    {"source_id": [{"a": 1}]},
    {"source_id": [1, 1.5]},
    {"source_id": [0]},
    {"source_id": [False]},
    {"source_id": ['é ü \u2028 \x01 " \\ \n']},
    {"source_id": ["a1"], "n": [1]},
    {"other": ["a1"]},
    {"missing": [None]},
    {"missing": ["a1"]},
    {"source_id": ["[1,2]", '{"a":1}']},  # strings spelling the array and the object stored: no match
    {"source_id": ["1", "1.5", "false", "null", ""]},
]


@pytest.mark.parametrize("where", WHERES, ids=[json.dumps(w) for w in WHERES])
def test_the_metadata_filter_keeps_the_chunks_the_form_before_it_kept(tmp_path, where):
    conn = db.open_writer(tmp_path)
    chunks = [_chunks(k, m) for k, m in enumerate(STORED_METADATA * 2)]  # enough to learn a template from
    _run(conn, ("chunk", chunks), batch_size=40)
    assert chunk_attrs.templates(conn) != []

    def kept(conds: list[str], args: list[Any]) -> list[str]:
        sql = f"SELECT c.id FROM chunks c WHERE {' AND '.join(conds)} ORDER BY c.id"
        return [i for (i,) in conn.execute(sql, args)]

    now = kept(*filters.where({"metadata": where}, "c"))
    assert now == kept(*_before(where))
    expected = [
        c["id"]
        for c in chunks
        if all(_same((c.get("metadata") or {}).get(k, _ABSENT), v) for k, vs in where.items() for v in [vs])
    ]
    assert now == sorted(expected)


_ABSENT = object()


def _same(value: Any, values: list[Any]) -> bool:
    """Whether VALUE is one of VALUES as JSON compares them: by type (true is not 1, 1.0 is not 1)."""
    if value is _ABSENT:
        return False
    return any(type(value) is type(v) and value == v for v in values)


def test_a_connection_opened_for_reading_reads_a_new_store(tmp_path):
    writer = db.open_writer(tmp_path)
    _run(writer, *_records(), batch_size=40)
    given = dict(writer.execute("SELECT id, attrs FROM chunks"))
    writer.close()
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    assert dict(reader.execute("SELECT id, attrs FROM chunks")) == given
