"""Layout 4: the chunks' stored records compressed with a zstd dictionary trained on the store's first chunks
(memdock_tantivy.packed). Every read gives the texts exactly; a store holding JSON and packed chunks reads both; a
layout 3 store stays JSON; a lost dictionary is named, never replaced by a new one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tantivy_support import backend, gate, in_adapter
from test_tantivy_text_once import T0, chunk

from memdock.bundle import BundleWriter
from memdock.errors import BackendError

pytestmark = gate

WORDS = ["quartz", "sensor", "humidity", "vent", "calibration", "drift", "release", "cache", "migration", "shard"]
DICT = "chunks.zdict"

STORED = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import store
chunks = store.open_index(Path(sys.argv[1]), write=False).chunks
searcher = chunks.searcher()
hits = searcher.search(tantivy.Query.term_query(chunks.schema, "kind", "chunk"), 100000).hits
raw = [searcher.doc(addr).get_first("rec") for _, addr in hits]
print(sum(r[:1] in b"{\x03" for r in raw), sum(r[:1] not in b"{\x03" for r in raw))
"""


def stored(store: Path) -> tuple[int, int]:
    """How many chunks are stored unpacked (JSON; binrec's form from layout 8), and how many packed, read from the
    index itself."""
    out = in_adapter(STORED, str(store / "data")).split()
    return int(out[0]), int(out[1])


def text(i: int) -> str:
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] + str(i % (k + 3)) for k in range(40)) + f" note {i}."


def bundle(path: Path, first: int, n: int) -> Path:
    """N entries (FIRST on), one chunk each holding the entry's whole text."""
    with BundleWriter(path, "chunks") as w:
        w.write("thread", {"id": "thread:lab", "title": "Lab log", "ingestion_time": T0})
        for i in range(first, first + n):
            body = text(i)
            entry = {"id": f"e:{i}", "thread_id": "thread:lab", "position": i, "body": body, "author": "ana"}
            w.write("entry", {**entry, "event_time": T0, "ingestion_time": T0})
            w.write("chunk", chunk(f"c:{i}", f"e:{i}", 0, 0, len(body), body))
    return path


def send(b, path: Path) -> None:
    b.call("index", {"bundle": str(path)})


def exact(b, ids: range) -> None:
    for i in ids:
        assert b.call("get_node", {"id": f"c:{i}"})["item"]["text"] == text(i)
        assert b.call("get_node", {"id": f"e:{i}"})["item"]["text"] == text(i)  # joined from its packed chunk
    hit = b.call("query", {"text": f"note {ids[-1]}", "limit": 50})["hits"]
    assert {h["id"]: h["text"] for h in hit}[f"c:{ids[-1]}"] == text(ids[-1])


def marker(store: Path) -> dict:
    return json.loads((store / "data" / "memdock-tantivy.json").read_text())


def test_a_new_store_packs_its_chunks_with_a_dictionary_trained_on_them(tmp_path):
    b = backend(tmp_path / "store")
    send(b, bundle(tmp_path / "b1", 0, 300))
    assert marker(tmp_path / "store") == {"format": "memdock-tantivy", "schema_version": 8, "dictionary": DICT}
    assert (tmp_path / "store" / "data" / DICT).is_file()
    assert stored(tmp_path / "store") == (0, 300)
    exact(b, range(0, 300, 37))


def test_a_small_first_run_stores_json_and_a_later_run_packs_both_read(tmp_path):
    b = backend(tmp_path / "store")
    send(b, bundle(tmp_path / "b1", 0, 10))  # too few chunks to train a dictionary on
    assert not (tmp_path / "store" / "data" / DICT).exists()
    send(b, bundle(tmp_path / "b2", 10, 300))
    assert stored(tmp_path / "store") == (10, 300)
    exact(b, range(0, 310, 23))


def test_a_layout_3_store_keeps_its_chunks_as_json(tmp_path):
    b = backend(tmp_path / "store")
    send(b, bundle(tmp_path / "b1", 0, 10))
    b.close()
    path = tmp_path / "store" / "data" / "memdock-tantivy.json"
    path.write_text(json.dumps({"format": "memdock-tantivy", "schema_version": 3}))  # as layout 3 wrote it
    b = backend(tmp_path / "store")
    send(b, bundle(tmp_path / "b2", 10, 300))
    assert not (tmp_path / "store" / "data" / DICT).exists()
    assert stored(tmp_path / "store") == (310, 0)
    exact(b, range(0, 310, 23))
    health = b.healthcheck()
    assert health.checks["layout"] == 3 and "store layout 3" in health.message and "layout 8" in health.message


def test_a_lost_dictionary_is_named_and_never_replaced(tmp_path):
    b = backend(tmp_path / "store", retries=0)
    send(b, bundle(tmp_path / "b1", 0, 300))
    b.close()
    (tmp_path / "store" / "data" / DICT).unlink()
    b = backend(tmp_path / "store", retries=0)
    with pytest.raises(BackendError, match=DICT):
        b.call("get_node", {"id": "c:5"})
    send(b, bundle(tmp_path / "b2", 300, 300))  # a new run stores its chunks as JSON, and trains nothing
    assert not (tmp_path / "store" / "data" / DICT).exists()
    assert stored(tmp_path / "store") == (300, 300)
    assert b.call("get_node", {"id": "c:400"})["item"]["text"] == text(400)
