"""A document's stored record and id term are the ones a plain build gives: `docs.stored_bytes` drops the unread
fields from a copy in place (not by a filtered copy) and `Keys.add_own` writes a record's own id uncached, both
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
            doc = docs._base(kind, r, r, k)
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
