"""A chunk's text is stored once, in its entry, and every answer still gives it exactly."""

import os
import subprocess
from pathlib import Path

from tantivy_support import backend, descriptor, gate

from memdock.bundle import BundleReader

pytestmark = gate

STORED_CHUNKS = """
import sys
import tantivy
from memdock_tantivy import docs, store
index = store.open_index(__import__("pathlib").Path(sys.argv[1]), write=False).chunks
searcher = index.searcher()
hits = searcher.search(tantivy.Query.term_query(index.schema, "kind", "chunk"), 100000).hits
recs = [docs.record(searcher.doc(addr)) for _, addr in hits]
print(len(recs), sum("text" in r for r in recs), sum("content_hash" in r or "metadata" in r for r in recs))
"""


def stored_chunks(data: Path) -> tuple[int, int, int]:
    root = Path(__file__).resolve().parents[2]
    paths = [root / "adapters" / "tantivy", root / "adapters" / "common", root / "src"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(map(str, paths)))
    out = subprocess.run(
        [str(descriptor().venv / "bin" / "python"), "-c", STORED_CHUNKS, str(data)],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.split()
    n, with_text, with_unread = (int(x) for x in out)
    return n, with_text, with_unread


def test_chunks_store_no_text_of_their_own_and_answer_it_exactly(tmp_path, fixture_chunks):
    b = backend(tmp_path / "store")
    b.index(fixture_chunks)
    chunks = {c["id"]: c for c in BundleReader(fixture_chunks).records("chunk")}
    n, with_text, with_unread = stored_chunks(tmp_path / "store" / "data")
    assert n == len(chunks) and with_text == 0 and with_unread == 0
    for cid, chunk in chunks.items():
        assert b.call("get_node", {"id": cid})["item"]["text"] == chunk["text"]
    for hit in b.query("cache release migration", limit=20).hits:
        assert hit.text == chunks[hit.id]["text"]
