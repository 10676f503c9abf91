"""The edges the tantivy adapter derives from implied entries (memdock_tantivy.implied) take a short way to their
stored record (compact_edges.encode_made_as: no stored fields built, no id hashed again). It must store exactly the
bytes the long way stores, for every edge it takes, and leave the rest to the long way; and only the edges
`Implied` made take it, never an edge record sent as such (its id is checked against its type and ends).

The answer-level comparison (a store built from implied entries against one built from edge records, on the shared
corpora) is test_tantivy_implied.py's."""

from __future__ import annotations

import json

import pytest
from tantivy_support import gate, in_adapter

pytestmark = [*gate, pytest.mark.timeout(300)]

ENTRIES = r"""
entries = []
for i, when in enumerate((None, "2026-03-02T10:00:00Z")):
    spec = {"follows": f"entry:p{i}", "mentions": ["entity:person:a", "entity:file:b\x1fc", "entity:x:"]}
    e = {"id": f"entry:e{i}", "thread_id": "thread:t", "implied_edges": spec, "ingestion_time": "2026-03-03T00:00:00Z"}
    entries.append({**e, "event_time": when} if when else e)
"""  # implied entries, with and without a time, naming ends with odd characters

SAME_BYTES = (
    ENTRIES
    + r"""
import json
from memdock.sdk.implied import expand
from memdock_tantivy import compact_edges, docs
from memdock_tantivy.implied import Made

made = [edge for e in entries for edge in expand(e)]
odd = [{**made[0], "weight": 0.5}, {**made[0], "thread_id": ""}, {**made[0], "thread_id": 7},
       {**made[0], "target_id": ""}]
fast = same = 0
for edge in made + odd:
    for kind in (None, "entry", "entity", "", "a\x1fb"):
        long = docs.stored_bytes("edge", {**edge, "source_kind": kind}, compact=True)
        made_as = compact_edges.encode_made_as(edge, kind)
        fast += made_as is not None
        same += (made_as or long) == long
print(json.dumps({"edges": (len(made) + len(odd)) * 5, "same": same, "fast": fast}))
"""
)

ONLY_MADE = r"""
import json
from memdock_tantivy.implied import Implied, Made
held = Implied(lambda ids: None)
held.lookup = {"entity:person:a": {"kind": "entity"}}.get
entry = {"id": "entry:e", "thread_id": "thread:t", "implied_edges": {"mentions": ["entity:person:a"]}}
sent = {"id": "edge:mentions:made-otherwise", "type": "mentions", "source_id": "entry:e",
        "target_id": "entity:person:a", "thread_id": "thread:t"}
out = []
for rtype, records in held.groups([("entry", [entry]), ("edge", [sent])], None):
    out += [[rtype, r["id"], type(r) is Made] for r in records]
print(json.dumps(out))
"""


def test_the_short_way_stores_the_bytes_the_long_way_stores():
    got = json.loads(in_adapter(SAME_BYTES))
    assert got["same"] == got["edges"]
    # the 5 edges with no event_time and no \x1f in their ends (both contains; the first entry's follows and two
    # mentions), each with its 3 source kinds a compact record takes (None, entry, entity)
    assert got["fast"] == 5 * 3


def test_only_the_edges_implied_made_take_the_short_way():
    rows = json.loads(in_adapter(ONLY_MADE))
    assert rows[0] == ["entry", "entry:e", False]
    made = [r for r in rows if r[2]]
    assert [r[1].split(":")[1] for r in made] == ["contains", "mentions"]
    assert ["edge", "edge:mentions:made-otherwise", False] in rows


SAME_DOCS = (
    ENTRIES
    + r"""
import json
from memdock.sdk.implied import expand
from memdock_tantivy import docs, keys, store
from memdock_tantivy.implied import Made

made = [Made(edge) for e in entries for edge in expand(e)]
made += [Made({k: v for k, v in made[0].items() if k != "thread_id"}), Made({**made[0], "thread_id": ""})]
out = {"docs": 0, "same": 0, "untouched": 0}
for compact, form in ((True, docs.COMPACT), (False, docs.COMPACT), (True, docs.BINARY)):
    ids = keys.Keys(store.schema(), compact=compact)
    for edge in made:
        for kind in (None, "entry", "entity", "", "a\x1fb"):
            for resolved in (True, False):
                before = dict(edge)
                fact = f"{edge['source_id']} {edge['type']} {edge['target_id']}"
                short = docs.made_edge_doc(edge, kind, fact, resolved, ids, form).to_dict()
                long = docs.edge_doc({**edge, "source_kind": kind}, fact, resolved, ids, compact=form)
                out["docs"] += 1
                out["same"] += short == long.to_dict()
                out["untouched"] += edge == before
print(json.dumps(out))
"""
)


def test_a_derived_edge_s_document_is_the_long_way_s_field_for_field():
    """docs.made_edge_doc builds an implied edge's document without copying the edge: every field (id and ends as
    the store's terms, kind, stored record, time, unresolved mark, fact) as edge_doc's, and the edge left as it
    was, whichever way the store writes its ids and its edges' records (layouts 5-6's text, layout 7's binary) and
    whatever the edge holds (a time or an odd value goes the long way)."""
    got = json.loads(in_adapter(SAME_DOCS))
    assert got["docs"] == 3 * 12 * 5 * 2
    assert got["same"] == got["docs"]
    assert got["untouched"] == got["docs"]
