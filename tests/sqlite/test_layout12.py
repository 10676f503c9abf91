"""Schema 12 (memdock_sqlite/db.py, links.py, packed_text.py): a link is found by its id through an index of its
key's top 24 bits (the whole key compared in the row), not a unique index of the whole key and its type, and links no
longer carry `pending`; a node's attrs are packed with its kind's dictionary and its own id (raw deflate, no zlib
header or checksum). Every answer is what the adapter of schema 11 gave, on the shared corpora, in a new store and
in a schema-11 store read as it is and once migrated, with the same links (rowids, keys, types, ends); on small
stores, links whose keys share their top 24 bits, or a key and not a type, are each found, moved and deleted by
their id, and attrs read back exactly whatever their id, through a change of kind and from another connection.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from test_layout7 import _run, migrated, stores_fixture
from test_layout10 import _scoped, every_answer, old_schema, scoped_read_and_migrated
from test_packed_attrs import _entries
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, implied_links, links, packed_text

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_11 = "6c8b70590a55e3d6e2fe68c149a0808a69c0604c"  # the last commit before schema 12
both = stores_fixture(SCHEMA_11)
_LINKS = "SELECT rowid, key, code, source, target FROM links ORDER BY rowid"
_INDEXES = "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'links' ORDER BY name"
_KEY_BYTES = "SELECT sum(pgsize) FROM dbstat WHERE name IN ('links_key', 'links_key24')"
_COLUMNS = "SELECT name FROM pragma_table_info('links') ORDER BY cid"
_ATTRS = "SELECT sum(length(attrs)), count(*) FILTER (WHERE substr(attrs, 1, 1) = x'01') FROM node_rows"


def test_the_old_adapter_is_schema_11(both):
    assert "SCHEMA_VERSION = 11" in old_schema(both)


def test_a_new_store_holds_the_same_links_in_fewer_bytes_and_answers_as_schema_11_did(both):
    old, new, bundle, base = both
    before, after = every_answer(old, bundle, base, base / "old"), every_answer(new, bundle, base, base / "new")
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert sum(k.startswith("edge ") and bool(v.get("item")) for k, v in before.items()) > 10  # links by id
    assert [k for k in before if before[k] != after[k]] == []
    assert _rows(base / "new", _LINKS) == _rows(base / "old", _LINKS) and len(_rows(base / "new", _LINKS)) > 100
    assert _rows(base / "old", _INDEXES) == [("links_key",), ("links_source",), ("links_target",)]
    assert _rows(base / "new", _INDEXES) == [("links_key24",), ("links_source",), ("links_target",)]
    assert _rows(base / "new", _KEY_BYTES)[0][0] < _rows(base / "old", _KEY_BYTES)[0][0]
    assert "pending" not in [c for (c,) in _rows(base / "new", _COLUMNS)]
    [(old_bytes, old_tagged)], [(new_bytes, new_tagged)] = _rows(base / "old", _ATTRS), _rows(base / "new", _ATTRS)
    assert old_tagged == 0 and new_tagged > 100 and new_bytes < old_bytes


def test_a_schema_11_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    layouts, answered = migrated(both, tmp_path / "copy", "fact_fts")
    assert answered["version"] == db.SCHEMA_VERSION >= db.LINKS_KEY24
    assert layouts["before"].startswith("schema 11 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _rows(tmp_path / "copy", _LINKS) == _rows(base / "old", _LINKS)
    assert _rows(tmp_path / "copy", _INDEXES) == [("links_key24",), ("links_source",), ("links_target",)]
    assert _rows(tmp_path / "copy", "SELECT count(*) FROM sqlite_schema WHERE name LIKE '%old_links%'") == [(0,)]
    assert _rows(tmp_path / "copy", "SELECT attrs FROM node_rows") == _rows(base / "old", "SELECT attrs FROM node_rows")
    as_read, after = scoped_read_and_migrated(base / "old", bundle, tmp_path / "scoped")
    assert _scoped(old, bundle) == as_read == after


# -- keys that share their top 24 bits, on small stores ------------------------------------------------------------

_NEAR = ("abcdef0000000001", "abcdef0000000002", "abcdef8000000000")  # one top 24 bits; the last signed negative
_FAR = "ffffff0000000001"


def _entry(k: int) -> dict:
    return {"id": f"entry:{k}", "thread_id": "thread:t", "position": k, "body": f"note number {k}"}


def _follows(digest: str, source: int, target: int, kind: str = "follows") -> dict:
    """A structural edge record with an id of the importers' form whose digest is DIGEST (stored as a link)."""
    return {
        "id": f"edge:{kind}:{digest}",
        "type": kind,
        "source_id": f"entry:{source}",
        "target_id": f"entry:{target}" if kind == "follows" else "entity:x",
        "thread_id": "thread:t",
    }


def _store(tmp_path: Path) -> sqlite3.Connection:
    conn = db.open_writer(tmp_path)
    edges = [_follows(d, k + 1, k) for k, d in enumerate(_NEAR)]
    edges += [_follows(_NEAR[0], 1, 0, "mentions"), _follows(_FAR, 3, 0)]  # a key twice, of two types
    entity = {"id": "entity:x", "entity_type": "topic", "name": "x"}
    _run(conn, ("thread", [{"id": "thread:t"}]), ("entry", [_entry(k) for k in range(4)]), ("entity", [entity]))
    _run(conn, ("edge", edges))
    return conn


def _ends(conn: sqlite3.Connection, edge_id: str) -> tuple[str, str] | None:
    item = graph.get_edge(conn, {"id": edge_id})["item"]
    return None if item is None else (item["extra"]["source_id"], item["extra"]["target_id"])


def test_links_whose_keys_share_their_top_bits_are_each_found_by_their_id(tmp_path):
    conn = _store(tmp_path)
    assert conn.execute("SELECT count(*), count(DISTINCT key >> 40) FROM links").fetchone() == (5, 2)
    assert _ends(conn, "edge:follows:abcdef0000000001") == ("entry:1", "entry:0")
    assert _ends(conn, "edge:follows:abcdef0000000002") == ("entry:2", "entry:1")
    assert _ends(conn, "edge:follows:abcdef8000000000") == ("entry:3", "entry:2")
    assert _ends(conn, "edge:mentions:abcdef0000000001") == ("entry:1", "entity:x")
    assert _ends(conn, "edge:follows:abcdef0000000003") is None  # its top 24 bits are stored, not it
    assert _ends(conn, "edge:contains:abcdef0000000001") is None  # its key is stored, not as a contains
    ids = [f"edge:follows:{d}" for d in (*_NEAR, "abcdef0000000003")]
    assert sorted(links.stored(conn, ids)) == ids[:3]
    keys = [links.key_of(i) for i in ids]
    assert implied_links.taken(conn, [k for k in keys[3:] if k]) is False
    assert implied_links.taken(conn, [k for k in keys[:1] if k]) is True


def test_a_link_sent_again_with_other_ends_keeps_its_rowid_and_a_delete_takes_only_it(tmp_path):
    conn = _store(tmp_path)
    rowid = conn.execute("SELECT rowid FROM links WHERE key = ?", (links.key_of("edge:follows:" + _NEAR[1])[0],))
    before = rowid.fetchone()[0]
    _run(conn, ("edge", [_follows(_NEAR[1], 3, 1)]))
    assert _ends(conn, "edge:follows:" + _NEAR[1]) == ("entry:3", "entry:1")
    assert conn.execute("SELECT count(*) FROM links").fetchone()[0] == 5
    assert links.stored(conn, ["edge:follows:" + _NEAR[1]])["edge:follows:" + _NEAR[1]][0] == before
    delete.delete(conn, {"ids": ["edge:follows:" + _NEAR[0]]})
    assert _ends(conn, "edge:follows:" + _NEAR[0]) is None
    assert _ends(conn, "edge:mentions:" + _NEAR[0]) == ("entry:1", "entity:x")
    assert _ends(conn, "edge:follows:" + _NEAR[2]) == ("entry:3", "entry:2")
    assert conn.execute("SELECT count(*) FROM links").fetchone()[0] == 4


# -- attrs packed with their node's id, on small stores ------------------------------------------------------------


def _attrs(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT id, attrs FROM nodes"))


def test_attrs_packed_with_their_id_read_back_exactly_and_smaller_than_without_it(tmp_path):
    entries = _entries(40)
    for e in entries[:3]:  # ids of any characters, named in their attrs or not
        e["id"] = e["metadata"]["source_id"] = f"entry:ünïcode 🚀 {e['position']}"
    conn = db.open_writer(tmp_path)
    _run(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), batch_size=50)
    stored = conn.execute("SELECT id, attrs FROM node_rows WHERE kind = 'entry'").fetchall()
    assert all(isinstance(a, bytes) and a[0] == packed_text.ATTRS_TAG for _, a in stored)
    read = _attrs(conn)
    zdict = packed_text.Dictionaries(conn).of_kind("entry")
    without_id = [packed_text.pack(read[i], zdict, packed_text.ATTRS_MIN, 11, 2) for i, _ in stored]
    assert sum(map(len, (a for _, a in stored))) < sum(map(len, without_id)) * 0.7
    conn.close()
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    try:
        assert _attrs(reader) == read
        assert '"source_id":"entry:ünïcode 🚀 1"' in read["entry:ünïcode 🚀 1"]
        node = graph.get_node(reader, {"id": "entry:5"})["item"]
        assert node["provenance"]["source"] == "notes.jsonl"
        with pytest.raises(sqlite3.OperationalError):  # read without its id and kind, it cannot be read
            reader.execute("SELECT unpack(attrs) FROM node_rows WHERE id = 'entry:5'").fetchone()
    finally:
        reader.close()
    with pytest.raises(ValueError, match=r"unpack\(attrs, id, kind\)"):
        packed_text.unpack(dict(stored)["entry:5"])


def test_a_node_whose_kind_changes_reads_its_attrs_back_with_its_new_kinds_dictionary(tmp_path):
    conn = db.open_writer(tmp_path)
    entries = _entries(40)
    things = [{"id": f"entity:{k}", "entity_type": "topic", "name": f"t{k}", "note": f"n{k:020d}"} for k in range(40)]
    _run(conn, ("thread", [{"id": "thread:t"}]), ("entry", entries), ("entity", things), batch_size=50)
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'zdict-of:%'").fetchone()[0] == 2
    again = {**things[0], "id": "entry:7", "note": "x" * 40}  # entry:7 becomes an entity
    _run(conn, ("entity", [again]))
    assert conn.execute("SELECT kind FROM node_rows WHERE id = 'entry:7'").fetchone() == ("entity",)
    assert '"note":"' + "x" * 40 + '"' in _attrs(conn)["entry:7"]
    assert '"source_line":9' in _attrs(conn)["entry:8"]


def test_a_dictionary_rolled_back_is_not_the_one_a_later_run_reads_with(tmp_path):
    conn = db.open_writer(tmp_path)
    thread = ("thread", [{"id": "thread:t"}])
    with pytest.raises(RuntimeError), db.transaction(conn):
        _run(conn, thread, ("entry", _entries(40, extra="a run rolled back")), batch_size=50)
        assert '"tag":"a run rolled back"' in _attrs(conn)["entry:3"]  # read with its dictionary, then gone
        raise RuntimeError("the run fails")
    assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'zdict%'").fetchone()[0] == 0
    _run(conn, thread, ("entry", _entries(40, extra="the run after it, another dictionary")), batch_size=50)
    assert '"tag":"the run after it, another dictionary"' in _attrs(conn)["entry:3"]
