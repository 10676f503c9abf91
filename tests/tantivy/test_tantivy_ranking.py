"""Chunk ranking is BM25 over the chunks alone: records of other kinds do not enter its statistics."""

import os
import subprocess
from pathlib import Path

from tantivy_support import backend, descriptor, gate

from memdock.bundle.writer import BundleWriter
from memdock.engine.store import Store

pytestmark = gate

QUERY = "release migration staging cache"


def entities(path, n):
    with BundleWriter(path, "chunks") as w:
        for i in range(n):
            w.write("entity", {"id": f"entity:topic:padding-{i}", "entity_type": "topic", "name": f"padding {i}"})
    return path


def test_graph_records_do_not_change_chunk_scores(tmp_path, fixture_chunks):
    """tantivy's BM25 counts documents and averages field lengths over a whole index: with the graph's records in
    the chunks' index, adding entities changed every chunk score (and, over a real corpus, the top 10)."""
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    before = [(h.id, h.score) for h in b.query(QUERY, limit=10).hits]
    assert len(before) >= 4
    b.call("index", {"bundle": str(entities(tmp_path / "padding", 2000))})
    assert b.healthcheck().checks["entity"] >= 2000
    assert [(h.id, h.score) for h in b.query(QUERY, limit=10).hits] == before


def test_chunks_have_an_index_of_their_own(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    data = tmp_path / "store" / "data"
    assert (data / "chunks" / "meta.json").is_file() and (data / "index" / "meta.json").is_file()
    got = b.call("get_node", {"id": b.query(QUERY, limit=1).hits[0].id})["item"]
    assert got["kind"] == "chunk"


ONE_INDEX_STORE = """
import json, sys
from pathlib import Path
import tantivy
from memdock_tantivy import docs, keys, store
data = Path(sys.argv[1])
(data / "index").mkdir(parents=True)
index = tantivy.Index(store.schema(), path=str(data / "index"))
text_keys = keys.Keys(index.schema, compact=False)
index.register_tokenizer(store.ANALYZER, store.analyzer())
w = index.writer(50_000_000, 1)
entry = {"id": "entry:old", "thread_id": "thread:old", "position": 0, "body": "an heirloom tomato variety"}
w.add_document(docs.entry_doc(entry, text_keys))
chunk = {"id": "chunk:old", "entry_id": "entry:old", "thread_id": "thread:old", "position": 0,
         "text": entry["body"], "start": 0, "end": len(entry["body"]), "token_count": 4, "content_hash": "sha256:0"}
w.add_document(docs.chunk_doc(chunk, None, text_keys))
w.commit()
w.wait_merging_threads()
(data / store.MARKER).write_text(json.dumps({"format": "memdock-tantivy", "schema_version": 1}))
"""


def test_a_version_1_store_with_one_index_is_read_and_written_as_it_is(tmp_path, fixture_chunks):
    d = descriptor()
    root = Path(__file__).resolve().parents[2]
    paths = [root / "adapters" / "tantivy", root / "adapters" / "common", root / "src"]
    data = Store(tmp_path / "store").ensure().data_dir
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, paths)))
    subprocess.run([str(d.venv / "bin" / "python"), "-c", ONE_INDEX_STORE, str(data)], check=True, env=env)
    b = backend(tmp_path / "store")
    assert [h.id for h in b.query("heirloom tomato").hits] == ["chunk:old"]
    b.call("index", {"bundle": str(fixture_chunks)})
    assert not (data / "chunks").exists(), "a version 1 store keeps its one index"
    assert b.query(QUERY, limit=3).hits and b.call("get_node", {"id": "chunk:old"})["item"]["kind"] == "chunk"
