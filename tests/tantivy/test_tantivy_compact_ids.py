"""Layout 6: ids indexed as compact bytes (memdock_tantivy.keys) answer exactly what layout 5 answered, in less
space.

The adapter as it was at LAYOUT_5 (taken from git) and as it is now index the same bundles of the shared corpora;
recall (with thread filters), search_facts and search_nodes (scores included, thread scopes too), get_edge and
get_node (its edges) must give the same answers, and deletes remove the same records. A layout 5 store is read and
written in its own layout (ids as text), and the old adapter still reads it afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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

LAYOUT_5 = "bdaef08983f5cdcef542ce2c0e46617259c3aaa5"  # the last commit whose new stores were layout 5
pytestmark = [*gate, pytest.mark.timeout(1200)]  # two adapters index three shared corpora on a loaded 2-core box


def field_types(store: Path) -> dict[str, str]:
    """Each field of the graph index's schema, and its type, as the index's meta.json says."""
    meta = json.loads((store / "data" / "index" / "meta.json").read_text())
    return {f["name"]: f["type"] for f in meta["schema"]}


def term_bytes(store: Path) -> int:
    """The bytes of both indexes' term dictionaries (where the id terms are)."""
    return sum(p.stat().st_size for p in (store / "data").rglob("*.term"))


@pytest.fixture(scope="module")
def old5(tmp_path_factory) -> Path:
    return old_adapter(tmp_path_factory.mktemp("layout5-adapter"), LAYOUT_5)


@pytest.fixture(scope="module", params=["watercooler", "locomo", "irc"])
def both(request, tmp_path_factory, old5):
    yield from indexed_pair(request.param, tmp_path_factory, old5, "layout5")


def test_compact_ids_answer_as_layout_5_did_in_less_space(both):
    base = answered_alike(both)
    assert (layout(base / "old"), layout(base / "new")) == (5, 6)
    health = both[1].healthcheck()
    assert health.checks["layout"] == 6 and "store layout" not in health.message
    ids = ("id", "entry_id", "thread_id", "source_id", "target_id")
    assert {f: field_types(base / "new")[f] for f in ids} == dict.fromkeys(ids, "bytes")
    assert {f: field_types(base / "old")[f] for f in ids} == dict.fromkeys(ids, "text")
    assert term_bytes(base / "new") < term_bytes(base / "old")
    assert data_bytes(base / "new") < data_bytes(base / "old")


def test_a_layout_5_store_is_read_and_written_in_its_own_layout(both, tmp_path):
    copy = kept_in_its_own_layout(both, tmp_path, 5)
    assert field_types(copy)["id"] == "text"


def test_deletes_remove_the_same_records(both, tmp_path):
    same_deletes(both, tmp_path, lambda q: [*doomed(q), q["edges"][-1]])  # and the last edge


TERMS = """
import json, sys
from memdock_tantivy import keys
ids = json.loads(sys.argv[1])
terms = [keys.compact(i) for i in ids]
lengths, tags = [len(t) for t in terms], [t[:1].hex() for t in terms]
print(json.dumps({"distinct": len(set(terms)), "lengths": lengths, "tags": tags}))
"""


def test_every_id_gets_a_term_of_its_own():
    """The compact form is one-to-one: an id whose 8-byte tail reads as text, an upper-case or short hex tail,
    a tail with no `:` before it, and the plain form of a compact term's bytes all stay apart."""
    tail = "6162636465666768"  # the hex of "abcdefgh"
    ids = [
        f"edge:mentions:{tail}",  # compact: "edge:mentions:" + b"abcdefgh"
        "edge:mentions:abcdefgh",  # plain: the same bytes after the tag
        "edge:mentions:00000000000000AB",  # upper-case hex: plain
        f"edge:mentions:{tail[:15]}",  # 15 digits: plain
        f"edge:mentions:0{tail}",  # 17 hex digits: plain
        f"edge:mentions:{tail}:{tail}",  # compact, its prefix holding the same digits as text
        tail,  # no `:` at all: plain
        f"thread:x:{tail[:8]}",  # a thread's 8 digits: plain
    ]
    out = json.loads(in_adapter(TERMS, json.dumps(ids)).strip())
    assert out["distinct"] == len(ids)
    assert out["tags"] == ["00", "01", "01", "01", "01", "00", "01", "01"]
    assert out["lengths"][0] == 1 + len("edge:mentions:") + 8
