"""Layout 8: an entry whose chunks hold its text is indexed in the graph by its title only and found through its
chunks, so its words are indexed once. search_nodes and search_episodes rank it by its title's BM25 or its best
chunk's, whichever is better (as the sqlite adapter ranks entries); an entry whose chunks do not hold its text keeps
its body indexed in the graph."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.records_factory import chunk
from tantivy_support import backend, gate, in_adapter

from memdock.bundle import BundleWriter

pytestmark = gate

T0 = "2026-01-05T10:00:00Z"
# entry id, thread, title, body; e:own's chunk does not hold its body (another text), so the graph indexes it
ENTRIES = [
    ("e:calib", "thread:lab", "", "Ana calibrated the quartz sensors before the humidity run."),
    ("e:vents", "thread:lab", "Humidity log", "Bo logged humidity spikes near the vents, humidity again at noon."),
    ("e:field", "thread:field", "", "Cy measured humidity in the greenhouse."),
    ("e:own", "thread:field", "", "Dee wrote the quartz order and the humidity budget."),
]
OWN_CHUNK = "Dee wrote the order."

GRAPH_TEXT = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import docs, store
graph = store.open_index(Path(sys.argv[1]), write=False).graph
searcher = graph.searcher()
q = tantivy.Query.term_query(graph.schema, "text", sys.argv[2])
for _, addr in searcher.search(q, 100).hits:
    print(docs.record(searcher.doc(addr))["id"])
"""


def _bundle(path: Path) -> Path:
    with BundleWriter(path, "chunks") as w:
        for tid in ("thread:lab", "thread:field"):
            w.write("thread", {"id": tid, "title": tid.split(":")[1], "ingestion_time": T0})
        for i, (eid, tid, title, body) in enumerate(ENTRIES):
            entry = {"id": eid, "thread_id": tid, "position": i, "body": body, "author": "ana", "ingestion_time": T0}
            w.write("entry", {**entry, **({"title": title} if title else {})})
        for eid, tid, _, body in ENTRIES:
            text = OWN_CHUNK if eid == "e:own" else body
            w.write("chunk", _chunk(eid, tid, text))
    return path


def _chunk(entry_id: str, thread_id: str, text: str) -> dict[str, Any]:
    return chunk(text=text, id=f"chunk:{entry_id}", entry_id=entry_id, thread_id=thread_id, event_time=T0)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Any:
    base = tmp_path_factory.mktemp("chunked-entries")
    b = backend(base / "store")
    b.call("index", {"bundle": str(_bundle(base / "bundle"))})
    yield b, base / "store"
    b.close()


def _graph_text(store: Path, term: str) -> set[str]:
    """The ids of the graph index's documents whose indexed text holds TERM (analysed form)."""
    return set(in_adapter(GRAPH_TEXT, str(store / "data"), term).split())


def _best_chunk_bm25(b: Any, text: str) -> dict[str, float]:
    best: dict[str, float] = {}
    for hit in b.call("query", {"text": text, "limit": 50})["hits"]:
        best.setdefault(hit["provenance"]["entry_id"], hit["extra"]["bm25"])
    return best


def test_only_the_entry_its_chunks_do_not_hold_is_indexed_by_its_body(store) -> None:
    b, path = store
    assert b.call("get_node", {"id": "e:calib"})["item"]["text"] == ENTRIES[0][3]  # read back from its chunk
    assert _graph_text(path, "humid") == {"e:own"}
    assert _graph_text(path, "quartz") == {"e:own"}


def test_an_entry_is_found_through_its_chunks_with_its_best_chunk_s_score(store) -> None:
    b, _ = store
    chunks = _best_chunk_bm25(b, "quartz sensors")
    hits = b.call("search_episodes", {"text": "quartz sensors", "limit": 10})["hits"]
    by_id = {h["id"]: h for h in hits}
    assert set(by_id) == {"e:calib", "e:own"}
    assert by_id["e:calib"]["extra"]["bm25"] == chunks["e:calib"]
    assert by_id["e:own"]["extra"]["bm25"] > 0  # its body, from the graph: its chunk lacks the words
    assert [h["rank"] for h in hits] == [1, 2] and hits[0]["score"] >= hits[1]["score"]


def test_an_entry_ranks_by_its_title_or_its_best_chunk_whichever_is_better(store) -> None:
    b, _ = store
    chunks = _best_chunk_bm25(b, "humidity")
    hits = b.call("search_nodes", {"text": "humidity", "limit": 10})["hits"]
    ids = [h["id"] for h in hits]
    assert len(ids) == len(set(ids)) and {"e:calib", "e:vents", "e:field", "e:own"} <= set(ids)
    vents = next(h for h in hits if h["id"] == "e:vents")
    assert vents["extra"]["bm25"] >= chunks["e:vents"]
    for h in hits:
        if h["id"] in ("e:calib", "e:field"):
            assert h["extra"]["bm25"] == chunks[h["id"]]
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_a_thread_scope_keeps_the_entries_found_through_chunks_in_it(store) -> None:
    b, _ = store
    hits = b.call("search_episodes", {"text": "humidity", "limit": 10, "group_ids": ["thread:field"]})["hits"]
    assert {h["id"] for h in hits} == {"e:field", "e:own"}
    few = b.call("search_episodes", {"text": "humidity", "limit": 1})["hits"]
    assert len(few) == 1


def test_an_entry_whose_chunk_is_sent_in_another_thread_is_found_in_its_own_thread_only(tmp_path) -> None:
    """A chunk may be sent with another thread than its entry's (conformance golden.CROSSED): a thread's search
    still finds the entry by its body, as before layout 8, and never an entry of another thread by its chunk."""
    text = "Walruses bask on the ice floes at dawn."
    with BundleWriter(tmp_path / "bundle", "chunks") as w:
        for tid in ("thread:lab", "thread:field"):
            w.write("thread", {"id": tid, "title": tid.split(":")[1], "ingestion_time": T0})
        w.write("entry", {"id": "e:x", "thread_id": "thread:lab", "position": 0, "body": text, "ingestion_time": T0})
        w.write("chunk", _chunk("e:x", "thread:field", text))
    b = backend(tmp_path / "store")
    try:
        b.call("index", {"bundle": str(tmp_path / "bundle")})
        for verb in ("search_nodes", "search_episodes"):
            for tid, want in (("thread:lab", ["e:x"]), ("thread:field", [])):
                hits = b.call(verb, {"text": "walruses", "limit": 10, "group_ids": [tid]})["hits"]
                assert [h["id"] for h in hits] == want, (verb, tid)
    finally:
        b.close()


def test_a_chunk_left_from_an_entry_s_earlier_text_does_not_find_it(tmp_path) -> None:
    """An entry sent again with another text keeps its body (a chunk of its earlier text stays stored): it is found
    by the words it holds, not through that chunk by words it no longer holds (as before layout 8)."""
    old, new = "Walruses bask at dawn. Narwhals sing at dusk.", "Seals sleep on the rocks."
    entry = {"id": "e:x", "thread_id": "thread:lab", "position": 0, "ingestion_time": T0}
    with BundleWriter(tmp_path / "first", "chunks") as w:
        w.write("thread", {"id": "thread:lab", "title": "lab", "ingestion_time": T0})
        w.write("entry", {**entry, "body": old})
        w.write("chunk", {**_chunk("e:x", "thread:lab", old[:22]), "id": "chunk:1", "end": 22})
        w.write("chunk", {**_chunk("e:x", "thread:lab", old[23:]), "id": "chunk:2", "position": 1, "start": 23})
    with BundleWriter(tmp_path / "again", "chunks") as w:
        w.write("entry", {**entry, "body": new})
        w.write("chunk", {**_chunk("e:x", "thread:lab", new), "id": "chunk:1"})
    b = backend(tmp_path / "store")
    try:
        for name in ("first", "again"):
            b.call("index", {"bundle": str(tmp_path / name)})
        assert b.call("get_node", {"id": "e:x"})["item"]["text"] == new
        for verb in ("search_nodes", "search_episodes"):
            assert [h["id"] for h in b.call(verb, {"text": "seals", "limit": 5})["hits"]] == ["e:x"]
            assert b.call(verb, {"text": "narwhals", "limit": 5})["hits"] == []
    finally:
        b.close()


def test_an_entry_whose_chunk_is_sent_for_another_entry_is_stored_again_with_its_body(tmp_path) -> None:
    """A chunk of an entry its chunks hold (overlapping, layout 8) sent again for another entry: the first entry
    keeps its whole text, and is found by the words that chunk held."""
    text = "Walruses bask on the ice floes at dawn. Narwhals sing under the moon tonight."
    entry = {"thread_id": "thread:lab", "ingestion_time": T0}
    moved = {"id": "chunk:2", "position": 1, "start": 40, "end": len(text)}
    with BundleWriter(tmp_path / "first", "chunks") as w:
        w.write("thread", {"id": "thread:lab", "title": "lab", "ingestion_time": T0})
        w.write("entry", {**entry, "id": "e:x", "position": 0, "body": text})
        w.write("entry", {**entry, "id": "e:y", "position": 1, "body": "Penguins huddle."})
        w.write("chunk", {**_chunk("e:x", "thread:lab", text[:50]), "id": "chunk:1", "end": 50})
        w.write("chunk", {**_chunk("e:x", "thread:lab", text[40:]), **moved})
        w.write("chunk", _chunk("e:y", "thread:lab", "Penguins huddle."))
    with BundleWriter(tmp_path / "again", "chunks") as w:
        w.write("chunk", {**_chunk("e:y", "thread:lab", text[40:]), **moved})
    b = backend(tmp_path / "store")
    try:
        b.call("index", {"bundle": str(tmp_path / "first")})
        assert _graph_text(tmp_path / "store", "narwhal") == set()  # held by its chunks: the premise
        b.call("index", {"bundle": str(tmp_path / "again")})
        assert b.call("get_node", {"id": "e:x"})["item"]["text"] == text
        hits = b.call("search_episodes", {"text": "narwhals", "limit": 5})["hits"]
        assert "e:x" in {h["id"] for h in hits}
    finally:
        b.close()
