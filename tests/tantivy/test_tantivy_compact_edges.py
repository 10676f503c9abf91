"""Layout 5: structural edges stored compactly (memdock_tantivy.compact_edges) answer exactly what layout 4 answered,
in less space.

The adapter as it was at LAYOUT_4 (taken from git) and as it is now index the same bundles of the shared corpora;
search_facts (scores included), get_edge, get_node (its edges), search_nodes with thread scopes and recall must
give the same answers, and deletes remove the same records. A layout 4 store is read and written in its own
layout (its edges stay JSON), and the old adapter still reads it afterwards.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tantivy_support import backend, descriptor, gate, in_adapter
from test_tantivy_layout import (
    SHARED_DATA,
    _corpus,
    _questions,
    data_bytes,
    deleted,
    differ,
    layout,
    old_adapter,
    recalls,
)

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

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
print(sum(r[:1] == compact_edges.MARK for r in raw), sum(r[:1] == b"{" for r in raw))
"""


def edges_stored(store: Path) -> tuple[int, int]:
    """How many edges the store's graph index holds in the compact form, and how many as JSON."""
    compact, as_json = in_adapter(EDGES, str(store / "data")).split()
    return int(compact), int(as_json)


def store_files(store: Path) -> int:
    """The bytes of the graph index's doc store (where the edges' stored records are)."""
    return sum(p.stat().st_size for p in (store / "data" / "index").glob("*.store"))


@pytest.fixture(scope="module")
def old4(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("layout4-adapter"), LAYOUT_4)


@pytest.fixture(scope="module", params=["watercooler", "locomo", "irc"])
def both(request, tmp_path_factory, old4):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared corpora not found at {SHARED_DATA}")
    base = tmp_path_factory.mktemp(f"layout4-{request.param}")
    bundle = _corpus(SHARED_DATA, request.param, base)
    adapters = {"old": Registry().get(old4), "new": descriptor()}
    stores = {name: SubprocessBackend(d, base / name, workers=1) for name, d in adapters.items()}
    for b in stores.values():
        b.index(bundle)
    yield stores["old"], stores["new"], bundle, base
    for b in stores.values():
        b.close()


def test_compact_edges_answer_as_layout_4_did_in_less_space(both):
    before_b, after_b, bundle, base = both
    q = _questions(bundle)
    before, after = recalls(before_b, q), recalls(after_b, q)
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > len(q["edges"])  # not all empty
    assert differ(before, after) == []
    assert (layout(base / "old"), layout(base / "new")) == (4, 5)
    compact, as_json = edges_stored(base / "new")
    assert compact > 0 and edges_stored(base / "old") == (0, compact + as_json)
    assert store_files(base / "new") < store_files(base / "old")  # 2 % on the watercooler threads, 43 % on 20k notes
    assert data_bytes(base / "new") < data_bytes(base / "old")


def test_a_layout_4_store_is_read_and_written_in_its_own_layout(both, tmp_path):
    before_b, _, bundle, base = both
    shutil.copytree(base / "old", tmp_path / "copy")
    b = backend(tmp_path / "copy", workers=1)
    q = _questions(bundle)
    expected = recalls(before_b, q)
    try:
        health = b.healthcheck()
        assert health.checks["layout"] == 4 and "store layout 4" in health.message and "layout 5" in health.message
        assert differ(expected, recalls(b, q)) == []
        b.index(bundle)  # everything again: every record replaced, in layout 4
        assert differ(expected, recalls(b, q)) == []
    finally:
        b.close()
    assert layout(tmp_path / "copy") == 4 and edges_stored(tmp_path / "copy")[0] == 0
    reread = SubprocessBackend(Registry().get(Path(before_b.descriptor.path)), tmp_path / "copy", workers=1)
    try:  # the old adapter still reads what this one wrote there
        assert differ(expected, recalls(reread, q)) == []
    finally:
        reread.close()


def test_deletes_remove_the_same_records(both, tmp_path):
    before_b, _, bundle, base = both
    q = _questions(bundle)
    doomed = [q["threads"][0], q["nodes"][-1], q["edges"][len(q["edges"]) // 2], q["edges"][-1], "edge:nope"]
    for name in ("old", "new"):
        shutil.copytree(base / name, tmp_path / name)
    before = deleted(SubprocessBackend(Registry().get(Path(before_b.descriptor.path)), tmp_path / "old"), doomed, q)
    after = deleted(backend(tmp_path / "new"), doomed, q)
    assert before[0] and before[:2] == after[:2]
    lookups = [k for k in before[2] if k.startswith(("edge ", "node "))]
    assert differ({k: before[2][k] for k in lookups}, {k: after[2][k] for k in lookups}) == []


ROUND_TRIP = """
import json, sys
from memdock_tantivy import compact_edges as c
s, t = "entry:a", "entity:person:b"
edge = {"kind": "edge", "id": c.derived_id("mentions", s, t), "type": "mentions", "source_id": s, "target_id": t,
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
