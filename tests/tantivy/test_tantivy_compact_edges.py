"""Layout 5: structural edges stored compactly (memdock_tantivy.compact_edges) answer exactly what layout 4 answered,
in less space.

The adapter as it was at LAYOUT_4 (taken from git) and as it is now index the same bundles of the shared corpora;
search_facts (scores included), get_edge, get_node (its edges), search_nodes with thread scopes and recall must
give the same answers, and deletes remove the same records. A layout 4 store is read and written in its own
layout (its edges stay JSON), and the old adapter still reads it afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.history import past_step
from tantivy_support import gate, in_adapter
from test_tantivy_layout import (
    answered_alike,
    data_bytes,
    doomed,
    indexed_pair,
    kept_in_its_own_layout,
    layout,
    old_adapter,
    same_deletes,
)

LAYOUT_4 = "0d633d2059639b0b45d0566025c389f943d54225"  # the last commit whose new stores were layout 4
pytestmark = [*gate, pytest.mark.timeout(1200)]  # two adapters index three shared corpora on a loaded 2-core box

EDGES = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import compact_edges, store
graph = store.open_index(Path(sys.argv[1]), write=False).graph
searcher = graph.searcher()
hits = searcher.search(tantivy.Query.term_query(graph.schema, "kind", "edge"), 1000000).hits
raw = [searcher.doc(addr).get_first("rec") for _, addr in hits]
print(sum(r[:1] in compact_edges.MARKS for r in raw), sum(r[:1] not in compact_edges.MARKS for r in raw))
"""


def edges_stored(store: Path) -> tuple[int, int]:
    """How many edges the store's graph index holds in the compact form, and how many otherwise (JSON; binrec's
    form from layout 8)."""
    compact, as_json = in_adapter(EDGES, str(store / "data")).split()
    return int(compact), int(as_json)


def store_files(store: Path) -> int:
    """The bytes of the graph index's doc store (where the edges' stored records are)."""
    return sum(p.stat().st_size for p in (store / "data" / "index").glob("*.store"))


@pytest.fixture(scope="module")
def old4(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("layout4-adapter"), LAYOUT_4)


@pytest.fixture(scope="module", params=past_step("locomo"))
def both(request, tmp_path_factory, old4):
    yield from indexed_pair(request.param, tmp_path_factory, old4, "layout4")


def test_compact_edges_answer_as_layout_4_did_in_less_space(both):
    base = answered_alike(both)
    assert (layout(base / "old"), layout(base / "new")) == (4, 8)
    health = both[1].healthcheck()  # `memdock health` names the layout; nothing to migrate
    assert health.checks["layout"] == 8 and "store layout" not in health.message
    compact, as_json = edges_stored(base / "new")
    assert compact > 0 and edges_stored(base / "old") == (0, compact + as_json)
    assert store_files(base / "new") < store_files(base / "old")  # 2 % on the watercooler threads, 43 % on 20k notes
    assert data_bytes(base / "new") < data_bytes(base / "old")


def test_a_layout_4_store_is_read_and_written_in_its_own_layout(both, tmp_path):
    copy = kept_in_its_own_layout(both, tmp_path, 4)
    assert edges_stored(copy)[0] == 0  # its edges rewritten as JSON, as layout 4 stores them


def test_deletes_remove_the_same_records(both, tmp_path):
    same_deletes(both, tmp_path, lambda q: [*doomed(q), q["edges"][-1]])  # and the last edge


ROUND_TRIP = """
import json, sys
from memdock_tantivy import compact_edges as c
s, t = "entry:a", "entity:person:b"
edge = {"kind": "edge", "id": c.edge_id("mentions", s, t), "type": "mentions", "source_id": s, "target_id": t,
        "thread_id": "thread:x", "source_kind": "entry"}
same = [edge, {**edge, "source_kind": None}, {k: v for k, v in edge.items() if k != "thread_id"}]
kept = [{**edge, "weight": 0.5}, {**edge, "id": "edge:mentions:made-otherwise"}, {**edge, "thread_id": None},
        {**edge, "thread_id": ""}, {**edge, "source_kind": ""}, {**edge, "target_id": "a\\x1fb"},
        {k: v for k, v in edge.items() if k != "source_kind"}]
print(json.dumps([c.decode(c.encode(e)) == e for e in same] + [c.encode(e) is None for e in kept]))
try:
    c.decode(c.MARK + b"mentions\\x1fentry:a")
except ValueError as exc:
    print(exc)
"""


def test_the_compact_form_gives_back_exactly_what_it_took_and_takes_nothing_else():
    lines = in_adapter(ROUND_TRIP).splitlines()
    assert json.loads(lines[0]) == [True] * 10
    assert "not 5 fields" in lines[1] and "mentions" in lines[1]


BINARY_ROUND_TRIP = r"""
import json
from memdock_tantivy import compact_edges as c

def edge(etype, s, t, **kw):
    return {"kind": "edge", "id": c.edge_id(etype, s, t), "type": etype, "source_id": s, "target_id": t, **kw}

thread, entry = "thread:notes-0000:0123456789abcdef", "entry:1f02801f02801f02"
same = [edge("contains", thread, entry, thread_id=thread, source_kind=kind) for kind in ("thread", None, "entity")]
same += [edge("mentions", entry, "entity:person:fedcba9876543210", thread_id=thread, source_kind=kind)
         for kind in ("entry", "thread", None, "chunk")]
same += [edge("follows", entry, "entry:0123456789ABCDEF", source_kind="entry"),  # no thread; upper-case hex
         edge("follows", "entrée:é" * 40 + ":0123456789abcdef", ":0123456789abcdef", thread_id="t" * 300,
              source_kind="entrée"),  # long fields (two-byte lengths), a tail with nothing before its colon
         edge("x-cites", "a", "b", thread_id="a", source_kind="entry")]
base = same[3]
kept = [{**base, "weight": 0.5}, {**base, "id": "edge:mentions:made-otherwise"}, {**base, "thread_id": None},
        {**base, "thread_id": ""}, {**base, "source_kind": ""}, {**base, "target_id": "a\x1fb"},
        {k: v for k, v in base.items() if k != "source_kind"}]
raw = [c.encode(e, True) for e in same]
out = {"back": [c.decode(r) == e for r, e in zip(raw, same)], "marked": [r[:1] == c.MARK_BINARY for r in raw],
       "kept": [c.encode(e, True) is None for e in kept],
       "shorter": len(raw[3]) < len(c.encode(base)) - 12}
bad = [c.MARK_BINARY + b"\x00", raw[3][:-3], c.MARK_BINARY + b"\x40" + raw[3][2:], raw[3][:4] + b"\xff",
       c.MARK_BINARY + bytes((raw[3][1] | 1,)) + raw[3][2:]]
errors = []
for r in bad:
    try:
        c.decode(r)
        errors.append(None)
    except ValueError as exc:
        errors.append(str(exc))
out["errors"] = errors
print(json.dumps(out))
"""


def test_the_binary_form_gives_back_exactly_what_it_took_and_refuses_what_is_not_one():
    """Layout 7's records: every edge the text form takes comes back exactly (hex tails as bytes, whatever bytes
    they make; other ids, long and non-ASCII ones too, as text; a thread that is the source and the usual source
    kinds as flags), nothing else is taken, and a record cut short, with a field too many or too few, or with an
    unknown flag is refused naming it."""
    got = json.loads(in_adapter(BINARY_ROUND_TRIP))
    assert got["back"] == [True] * 10 and got["marked"] == [True] * 10
    assert got["kept"] == [True] * 7 and got["shorter"]
    assert all(e and "binary edge record" in e and "\\x02" in e for e in got["errors"]), got["errors"]
