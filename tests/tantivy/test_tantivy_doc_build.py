"""The adapter builds each document in one `tantivy.Document.from_dict` call (ingest speed, issue 31); it must be
the document the earlier build made one `add_*` call a value, field for field and value for value, for every kind
(the index and its answers are then the same bytes: bench/tantivy_thread_cpu.py's run compares none, this does)."""

from __future__ import annotations

import json

from tantivy_support import gate, in_adapter

pytestmark = gate

SCRIPT = r"""
import json, tantivy
from memdock_tantivy import compact_edges, docs, keys, store, text_once
from memdock_tantivy.implied import Made
from memdock.sdk.implied import edge_id

def one_call_a_value(kind, r, stored, k, fields, pack=None, compact=0):
    # the build before from_dict: docs._base, docs._filters and the kinds' add_* calls, in their order
    doc = tantivy.Document()
    doc.add_text("id", k.own_term(r["id"]))
    doc.add_text("kind", kind)
    raw = docs.stored_bytes(kind, stored, compact=compact)
    doc.add_bytes("rec", pack(raw) if pack is not None else raw)
    ts = docs.timestamp(stored.get("event_time"))
    if ts is not None:
        doc.add_float("ts", ts)
    for name, value in fields:
        doc.add_text(name, value)
    return doc

def filters(r):
    out = [("author", a) for a in docs.author_keys(r.get("author"))]
    out += [("role", str(r["role"]).lower())] if r.get("role") else []
    return out + ([("etype", str(r["entry_type"]).lower())] if r.get("entry_type") else [])

out = []
for compact in (False, True):
    k = keys.Keys(store.schema(), compact=compact)
    t = {"id": "thread:00000000000000aa", "title": "T", "topic": "x", "ball": "y",
         "ingestion_time": "2026-01-01T00:00:00Z"}
    e = {"id": "entry:00000000000000bb", "thread_id": t["id"], "position": 0, "body": "Body text, é.",
         "author": "Codex (lee)", "role": "Agent", "entry_type": "Plan", "event_time": "2026-03-02T10:00:00Z",
         "content_hash": "h", "ingestion_time": "2026-03-03T00:00:00Z"}
    bare = {"id": "entry:00000000000000cc", "thread_id": t["id"], "position": 1, "body": "no author", "title": "Ti"}
    n = {"id": "entity:person:00000000000000dd", "entity_type": "person", "name": "Bob", "aliases": ["Robert"]}
    c = {"id": "chunk:00000000000000ee", "entry_id": e["id"], "thread_id": t["id"], "position": 0, "header": "H",
         "text": "H\nBody text", "author": "lee", "event_time": "2026-03-02T10:00:00Z"}
    c2 = {**c, "id": "chunk:00000000000000ef", "header": ""}
    stored_t = {**t, "thread_id": t["id"]}
    pairs = [
        (docs.thread_doc(t, k), one_call_a_value("thread", t, stored_t, k,
            [("thread_id", k.id_term(t["id"])), ("name", "T"), ("text", "x y")])),
        (docs.entity_doc(n, k), one_call_a_value("entity", n, n, k, [("name", "Bob"), ("text", "person Bob Robert")])),
    ]
    for r in (e, bare):
        for in_chunks in (False, True):
            stored = {**{x: v for x, v in r.items() if x != "body"}, text_once.FLAG: True} if in_chunks else r
            want = one_call_a_value("entry", r, stored, k, [("thread_id", k.id_term(r["thread_id"])), *filters(r),
                ("name", r.get("title", "")), ("text", r["body"])])
            pairs.append((docs.entry_doc(r, k, in_chunks), want))
    pack = lambda raw: b"packed:" + raw
    for r in (c, c2):
        head = [("head", r["header"])] if r.get("header") else []
        want = one_call_a_value("chunk", r, r, k, [("entry_id", k.id_term(r["entry_id"])),
            ("thread_id", k.id_term(r["thread_id"])), *filters(r), *head, ("body", text_once.chunk_body(r))], pack)
        pairs.append((docs.chunk_doc(r, None, k, pack), want))
    for etype, thread, resolved in (("contains", t["id"], True), ("mentions", None, False)):
        edge = {"id": edge_id(etype, e["id"], n["id"]), "type": etype, "source_id": e["id"], "target_id": n["id"]}
        edge = {**edge, "thread_id": thread} if thread else edge
        ends = [("source_id", k.id_term(e["id"])), ("target_id", k.id_term(n["id"]))]
        ends += [("thread_id", k.id_term(thread))] if thread else []
        tail = [*ends, *([] if resolved else [("unresolved", "1")]), ("fact", "a fact")]
        for form in (0, docs.COMPACT, docs.BINARY):
            stored = {**edge, "source_kind": "entry"}
            want = one_call_a_value("edge", stored, stored, k, tail, compact=form)
            pairs.append((docs.edge_doc(stored, "a fact", resolved, k, compact=form), want))
            if form:
                pairs.append((docs.made_edge_doc(Made(edge), "entry", "a fact", resolved, k, form), want))
    out.append([[a == b, sorted(a.to_dict()) == sorted(b.to_dict())] for a, b in pairs])
print(json.dumps(out))
"""


def test_one_call_documents_are_the_add_call_documents() -> None:
    out = json.loads(in_adapter(SCRIPT))
    assert len(out) == 2 and all(len(checks) == 18 for checks in out)
    assert all(all(pair) for checks in out for pair in checks), out
