"""Stored records hold what answers read: no content hashes or metadata, and no edge's fact (rendered from its ends
when read); every answer still gives texts and facts exactly as before (facts as memdock.sdk.facts renders them
from the bundle's own records)."""

from pathlib import Path

from tantivy_support import backend, gate, in_adapter

from memdock.bundle import BundleReader
from memdock.sdk import facts

pytestmark = gate

STORED_CHUNKS = """
import sys
import tantivy
from memdock_tantivy import docs, store
indexes = store.open_index(__import__("pathlib").Path(sys.argv[1]), write=False)
index = indexes.chunks
searcher = index.searcher()
hits = searcher.search(tantivy.Query.term_query(index.schema, "kind", "chunk"), 100000).hits
recs = [docs.record(searcher.doc(addr), indexes.packer.unpack) for _, addr in hits]
graph = store.open_index(__import__("pathlib").Path(sys.argv[1]), write=False).graph.searcher()
edges = graph.search(tantivy.Query.term_query(index.schema, "kind", "edge"), 100000).hits
print(len(recs), sum("text" in r for r in recs), sum("content_hash" in r or "metadata" in r for r in recs),
      sum("fact" in docs.record(graph.doc(addr)) for _, addr in edges))
"""


def stored_chunks(data: Path) -> tuple[int, int, int, int]:
    out = in_adapter(STORED_CHUNKS, str(data)).split()
    n, with_text, with_unread, with_fact = (int(x) for x in out)
    return n, with_text, with_unread, with_fact


def test_chunks_store_no_unread_fields_and_answer_their_text_exactly(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    chunks = {c["id"]: c for c in BundleReader(fixture_chunks).records("chunk")}
    n, with_text, with_unread, _ = stored_chunks(tmp_path / "store" / "data")
    assert n == len(chunks) and with_text == n and with_unread == 0
    for cid, chunk in chunks.items():
        assert b.call("get_node", {"id": cid})["item"]["text"] == chunk["text"]
    for hit in b.query("cache release migration", limit=20).hits:
        assert hit.text == chunks[hit.id]["text"]


def test_facts_are_not_stored_and_read_as_rendered_from_the_records(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    reader = BundleReader(fixture_chunks)
    nodes = {r["id"]: {"kind": t, **r} for t in ("thread", "entry", "entity", "chunk") for r in reader.records(t)}
    edges = list(reader.records("edge"))
    assert edges and stored_chunks(tmp_path / "store" / "data")[3] == 0
    for edge in edges:
        assert b.get_edge(edge["id"]).item.text == facts.render(nodes.get, edge)[0]
    for hit in b.search_facts("mentions file migrate_v2 follows", limit=30).hits:
        assert hit.text == facts.render(nodes.get, next(e for e in edges if e["id"] == hit.id))[0]
    entry = next(r for r in reader.records("entry"))
    for e in b.get_node(entry["id"]).item.extra["edges"]:
        assert e["fact"] == facts.render(nodes.get, next(x for x in edges if x["id"] == e["edge_id"]))[0]
