"""A document's stored record and id term are the ones a plain build gives: `docs.stored_bytes` drops the unread
fields from a copy in place (not by a filtered copy) and `Keys.own_term` makes a record's own id uncached, both
for speed; the bytes and terms must not move (old stores are read, and compared, byte for byte)."""

from __future__ import annotations

import json

from tantivy_support import gate, in_adapter

pytestmark = gate

RECORDS = [
    {"id": "chunk:0123456789abcdef", "entry_id": "entry:x", "text": "a b", "content_hash": "h", "token_count": 2},
    {"kind": "override", "id": "c", "metadata": {"k": 1}, "ingestion_time": "t", "é": "ü", "z": None, "a": [1]},
    {"id": "entry:ffffffffffffffff", "body": "no unread field"},
    {"id": "odd!id", "text": ""},
]

SCRIPT = """
import json, sys, orjson
from memdock_tantivy import docs, keys, store
records = json.loads(sys.argv[1])
plain = lambda kind, r: orjson.dumps({"kind": kind, **{k: v for k, v in r.items() if k not in docs.UNREAD}})
out = []
for compact in (False, True):
    k = keys.Keys(store.schema(), compact=compact)
    for kind in ("chunk", "edge"):
        for r in records:
            doc = docs._made(docs._base_fields(kind, r, r, k), k)
            out.append([
                docs.stored_bytes(kind, r) == plain(kind, r),
                bytes(doc.to_dict()["rec"][0]) == plain(kind, r),
                doc.to_dict()["id"] == [k.term("id", r["id"])],
            ])
print(json.dumps(out))
"""


def test_stored_bytes_and_own_id_term_are_the_plain_ones() -> None:
    checks = json.loads(in_adapter(SCRIPT, json.dumps(RECORDS)))
    assert len(checks) == 2 * 2 * len(RECORDS)
    assert all(all(c) for c in checks), checks


EMPTY_HEAD = """
import json, sys, tempfile, tantivy
from memdock_tantivy import docs, keys, store
chunks = json.loads(sys.argv[1])
k = keys.Keys(store.schema(), compact=True)
def scores(with_empty_head):
    index = tantivy.Index(store.schema(), path=tempfile.mkdtemp())
    index.register_tokenizer(store.ANALYZER, store.analyzer())
    writer = index.writer(50_000_000, 1)
    for r in chunks:
        doc = docs.chunk_doc(r, None, k)
        if with_empty_head and not r.get("header"):
            doc.add_text("head", "")
        writer.add_document(doc)
    writer.commit()
    index.reload()
    query = index.parse_query("apple pear", ["head", "body"], field_boosts={"head": 2.0})
    found = index.searcher().search(query, 10).hits
    return [[score, docs.record(index.searcher().doc(addr))["id"]] for score, addr in found]
print(json.dumps([scores(False), scores(True), [sorted(docs.chunk_doc(r, None, k).to_dict()) for r in chunks]]))
"""

CHUNKS = [
    {"id": "chunk:1", "entry_id": "e:1", "thread_id": "t:1", "text": "apple pie and pear"},
    {"id": "chunk:2", "entry_id": "e:1", "thread_id": "t:1", "header": "Apple", "text": "Apple\nmore apple"},
    {"id": "chunk:3", "entry_id": "e:2", "thread_id": "t:1", "header": "", "text": "pear pear apple tart"},
]


def test_a_chunk_without_header_scores_as_one_with_an_empty_head() -> None:
    """`chunk_doc` adds no `head` value for a chunk without a header: an empty value added no token, so every
    BM25 score (head boosted, over both fields) is the one the empty value gave."""
    without, with_empty, fields = json.loads(in_adapter(EMPTY_HEAD, json.dumps(CHUNKS)))
    assert len(without) == 3 and without == with_empty
    assert ["head" in f for f in fields] == [False, True, False]
