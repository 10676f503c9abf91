"""Index directories the adapter did not write, or from a newer schema, are refused and left untouched."""

import hashlib
import json

import pytest
from tantivy_support import backend, gate

from memdock.engine.store import Store
from memdock.errors import BackendError, VersionError

pytestmark = gate


def digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_index_dir_without_the_marker_is_refused_and_left_untouched(tmp_path, fixture_chunks):
    data = Store(tmp_path / "store").ensure().data_dir  # a memdock store whose data dir holds a foreign index
    (data / "index").mkdir(parents=True)
    (data / "index" / "meta.json").write_text('{"someone": "else"}')
    before = digest(data)
    b = backend(tmp_path / "store", retries=0)
    with pytest.raises(BackendError, match="memdock-tantivy.json"):
        b.call("index", {"bundle": str(fixture_chunks)})
    with pytest.raises(BackendError, match="not written by the memdock"):
        b.query("cache")
    assert digest(data) == before


def test_a_newer_schema_is_refused_and_left_untouched(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store", retries=0)
    b.index(fixture_chunks)
    marker = tmp_path / "store" / "data" / "memdock-tantivy.json"
    marker.write_text(json.dumps({"format": "memdock-tantivy", "schema_version": 99}))
    before = digest(tmp_path / "store" / "data")
    fresh = backend(tmp_path / "store", retries=0)
    with pytest.raises(VersionError, match="newer than this adapter reads"):
        fresh.query("cache")
    with pytest.raises(VersionError):
        fresh.call("delete", {"ids": ["thread:x"]})
    assert digest(tmp_path / "store" / "data") == before


def test_an_unreadable_marker_names_the_file(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store", retries=0)
    b.index(fixture_chunks)
    (tmp_path / "store" / "data" / "memdock-tantivy.json").write_text("{not json")
    with pytest.raises(BackendError, match="memdock-tantivy.json: unreadable marker"):
        backend(tmp_path / "store", retries=0).query("cache")


def test_a_new_store_keeps_field_norms_of_ranked_fields_only(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    data = tmp_path / "store" / "data"
    assert json.loads((data / "memdock-tantivy.json").read_text())["schema_version"] == 8
    for folder, ranked in (("chunks", {"head", "body"}), ("index", {"name", "text", "fact"})):
        meta = json.loads((data / folder / "meta.json").read_text())
        normed = {f["name"] for f in meta["schema"] if f["type"] == "text" and f["options"]["indexing"]["fieldnorms"]}
        assert normed == ranked, folder
    assert b.query("cache release migration", limit=5).hits  # the keys still filter and look up
    assert b.get_node(b.query("cache", limit=1).hits[0].id).item is not None
