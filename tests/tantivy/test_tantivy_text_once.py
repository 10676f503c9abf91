"""The text once (layout 3): an entry whose chunks join to its body is stored without it, and every read gives the
body exactly, also after its chunks are rewritten or deleted without it, or when chunks stored earlier stay. Layout 8
also stores without it an entry whose chunks overlap but hold all of it (text_once.SPANS)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tantivy_support import backend, gate, in_adapter

from memdock.bundle import BundleWriter
from memdock.ids import content_hash

pytestmark = gate

T0 = "2026-01-05T10:00:00Z"
BODY = "Ana calibrated the Quartz sensors. Bo logged the humidity spikes near the vents."
HALF = BODY.index("Bo")

STORED = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import docs, store
graph = store.open_index(Path(sys.argv[1]), write=False).graph
searcher = graph.searcher()
hits = searcher.search(tantivy.Query.term_query(graph.schema, "kind", "entry"), 1000).hits
for _, addr in hits:
    rec = docs.record(searcher.doc(addr))
    print(rec["id"], "body" in rec, bool(rec.get("in_chunks")), rec.get("in_chunks", 0))
"""


def stored_entries(store: Path) -> dict[str, tuple[bool, bool]]:
    """Entry id -> (its body is stored, it is flagged as held by its chunks), read from the index itself."""
    out = in_adapter(STORED, str(store / "data")).split("\n")
    return {i: (body == "True", flag == "True") for i, body, flag, _ in (line.split() for line in out if line)}


def flags(store: Path) -> dict[str, str]:
    """Entry id -> its stored `in_chunks` value (`True`: its chunks join to its body; `2`: they overlap; `0`)."""
    out = in_adapter(STORED, str(store / "data")).split("\n")
    return {line.split()[0]: line.split()[3] for line in out if line}


def chunk(cid: str, entry_id: str, position: int, start: int, end: int, body: str = BODY) -> dict[str, Any]:
    text = body[start:end]
    return {
        "id": cid,
        "entry_id": entry_id,
        "thread_id": "thread:lab",
        "position": position,
        "text": text,
        "start": start,
        "end": end,
        "token_count": len(text.split()),
        "content_hash": content_hash(text),
        "event_time": T0,
    }


def bundle(path: Path, entries: list[str], chunks: list[dict[str, Any]]) -> Path:
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": "thread:lab", "title": "Lab log", "ingestion_time": T0})
        for i, eid in enumerate(entries):
            entry = {"id": eid, "thread_id": "thread:lab", "position": i, "body": BODY, "author": "ana"}
            w.write("entry", {**entry, "ingestion_time": T0})
        for c in chunks:
            w.write("chunk", c)
    return path


def send(b, path: Path) -> None:
    """Straight to the adapter (no ledger): exactly these records are indexed."""
    b.call("index", {"bundle": str(path)})


def text_of(b, entry_id: str) -> str:
    return b.call("get_node", {"id": entry_id})["item"]["text"]


def first(tmp_path: Path):
    """Entry e:split held by two chunks that join to its body; e:overlap's chunks overlap (held as SPANS)."""
    b = backend(tmp_path / "store")
    split = [chunk("c:s0", "e:split", 0, 0, HALF), chunk("c:s1", "e:split", 1, HALF, len(BODY))]
    overlap = [chunk("c:o0", "e:overlap", 0, 0, HALF + 5), chunk("c:o1", "e:overlap", 1, HALF, len(BODY))]
    send(b, bundle(tmp_path / "b1", ["e:split", "e:overlap"], split + overlap))
    return b


def test_an_entry_whose_chunks_join_to_its_body_is_stored_once_and_read_exactly(tmp_path):
    b = first(tmp_path)
    assert stored_entries(tmp_path / "store") == {"e:split": (False, True), "e:overlap": (False, True)}
    assert flags(tmp_path / "store") == {"e:split": "True", "e:overlap": "2"}
    assert text_of(b, "e:split") == BODY and text_of(b, "e:overlap") == BODY
    hits = b.call("search_nodes", {"text": "calibrated quartz", "limit": 5})["hits"]
    assert {h["id"]: h["text"] for h in hits} == {"e:split": BODY, "e:overlap": BODY}
    facts = b.call("search_facts", {"text": "calibrated", "limit": 5})["hits"]
    assert all(BODY[:20] in f["text"] for f in facts)


def test_chunks_rewritten_without_their_entry_leave_its_text_exact(tmp_path):
    b = first(tmp_path)
    rechunked = [chunk("c:s1", "e:split", 1, HALF - 4, len(BODY))]  # overlaps c:s0 now
    send(b, bundle(tmp_path / "b2", [], rechunked))
    assert text_of(b, "e:split") == BODY
    assert stored_entries(tmp_path / "store")["e:split"] == (True, False)


def test_a_chunk_deleted_without_its_entry_leaves_its_text_exact(tmp_path):
    b = first(tmp_path)
    gone = b.delete(["c:s1"])
    assert sorted(gone.deleted) == ["c:s1"]
    assert text_of(b, "e:split") == BODY
    assert stored_entries(tmp_path / "store")["e:split"] == (True, False)


def test_an_entry_sent_again_beside_chunks_stored_earlier_keeps_its_body(tmp_path):
    b = first(tmp_path)
    whole = [chunk("c:whole", "e:split", 0, 0, len(BODY))]  # joins to the body alone; c:s0 and c:s1 stay stored
    send(b, bundle(tmp_path / "b2", ["e:split"], whole))
    assert stored_entries(tmp_path / "store")["e:split"] == (True, False)
    assert text_of(b, "e:split") == BODY


def test_an_entry_sent_again_with_all_its_chunks_is_stored_once_again(tmp_path):
    b = first(tmp_path)
    split = [chunk("c:s0", "e:split", 0, 0, HALF), chunk("c:s1", "e:split", 1, HALF, len(BODY))]
    send(b, bundle(tmp_path / "b2", ["e:split"], split))
    assert stored_entries(tmp_path / "store")["e:split"] == (False, True)
    assert text_of(b, "e:split") == BODY


def test_overlapping_chunks_that_miss_part_of_the_body_leave_it_stored(tmp_path):
    """A gap between two chunks, a chunk whose offsets are not its text's, or a body longer than the last chunk's
    end: the body stays stored."""
    b = backend(tmp_path / "store")
    gap = [chunk("c:g0", "e:gap", 0, 0, HALF - 3), chunk("c:g1", "e:gap", 1, HALF, len(BODY))]
    moved = [chunk("c:m0", "e:moved", 0, 0, HALF + 5), {**chunk("c:m1", "e:moved", 1, HALF, len(BODY)), "start": 1}]
    short = [chunk("c:t0", "e:short", 0, 0, HALF + 5), chunk("c:t1", "e:short", 1, HALF, len(BODY) - 1)]
    send(b, bundle(tmp_path / "b1", ["e:gap", "e:moved", "e:short"], gap + moved + short))
    assert flags(tmp_path / "store") == {"e:gap": "0", "e:moved": "0", "e:short": "0"}
    assert all(text_of(b, e) == BODY for e in ("e:gap", "e:moved", "e:short"))


def test_a_chunk_of_an_entry_held_as_spans_deleted_without_it_leaves_its_text_exact(tmp_path):
    b = first(tmp_path)
    assert sorted(b.delete(["c:o1"]).deleted) == ["c:o1"]
    assert text_of(b, "e:overlap") == BODY
    assert stored_entries(tmp_path / "store")["e:overlap"] == (True, False)


def test_a_layout_7_store_keeps_the_body_of_an_entry_its_chunks_overlap(tmp_path):
    b = backend(tmp_path / "store")
    send(b, bundle(tmp_path / "b0", [], [chunk("c:x", "e:x", 0, 0, 5)]))  # the store made, no entry yet
    b.close()
    path = tmp_path / "store" / "data" / "memdock-tantivy.json"
    path.write_text(json.dumps({"format": "memdock-tantivy", "schema_version": 7}))  # as layout 7 wrote it
    b = backend(tmp_path / "store")
    overlap = [chunk("c:o0", "e:overlap", 0, 0, HALF + 5), chunk("c:o1", "e:overlap", 1, HALF, len(BODY))]
    send(b, bundle(tmp_path / "b1", ["e:overlap"], overlap))
    assert flags(tmp_path / "store") == {"e:overlap": "0"}
    assert text_of(b, "e:overlap") == BODY
