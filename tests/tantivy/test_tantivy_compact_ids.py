"""Layout 6: the hash ending an id written shorter in its terms (memdock_tantivy.keys) answers exactly what
layout 5 answered, in less space.

The adapter as it was at LAYOUT_5 (taken from git) and as it is now index the same bundles of the shared corpora;
recall (with thread filters), search_facts and search_nodes (scores included, thread scopes too), get_edge and
get_node (its edges) must give the same answers, and deletes remove the same records. A layout 5 store is read and
written in its own layout (ids as terms as they are), and the old adapter still reads it afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_tantivy_layout as base_layout
from support.history import past_step
from tantivy_support import gate, in_adapter

LAYOUT_5 = "bdaef08983f5cdcef542ce2c0e46617259c3aaa5"  # the last commit whose new stores were layout 5
pytestmark = [*gate, pytest.mark.timeout(1200)]  # the layout 5 and this adapter, three shared corpora each


TERMS_OF = """
import sys, tantivy
from pathlib import Path
from memdock_tantivy import keys, store
indexes = store.open_index(Path(sys.argv[1]), write=False)
searcher = indexes.graph.searcher()
for record_id in sys.argv[2:]:
    as_is = searcher.search(tantivy.Query.term_query(indexes.schema, "id", record_id), 1).hits
    short = searcher.search(tantivy.Query.term_query(indexes.schema, "id", keys.compact(record_id)), 1).hits
    print(len(as_is), len(short))
"""


def found_by(store: Path, ids: list[str]) -> list[tuple[int, int]]:
    """For each of IDS, whether the graph index finds it by the id as it is, and by its layout 6 term."""
    lines = in_adapter(TERMS_OF, str(store / "data"), *ids).splitlines()
    return [(int(a), int(b)) for a, b in (line.split() for line in lines)]


def term_bytes(store: Path) -> int:
    """The bytes of both indexes' term dictionaries (where the id terms are)."""
    return sum(p.stat().st_size for p in (store / "data").rglob("*.term"))


@pytest.fixture(scope="module")
def old5(tmp_path_factory) -> Path:
    return base_layout.old_adapter(tmp_path_factory.mktemp("layout5-adapter"), LAYOUT_5)


@pytest.fixture(scope="module", params=past_step("irc"))
def both(request, tmp_path_factory, old5):
    yield from base_layout.indexed_pair(request.param, tmp_path_factory, old5, "layout5")


def test_compact_ids_answer_as_layout_5_did_in_less_space(both):
    base = base_layout.answered_alike(both)
    assert (base_layout.layout(base / "old"), base_layout.layout(base / "new")) == (5, 8)
    health = both[1].healthcheck()
    assert health.checks["layout"] == 8 and "store layout" not in health.message
    edges = base_layout._questions(both[2])["edges"][:3]  # ids ending in 16 hex digits: their terms differ by layout
    assert found_by(base / "new", edges) == [(0, 1)] * len(edges)
    assert found_by(base / "old", edges) == [(1, 0)] * len(edges)
    assert term_bytes(base / "new") < term_bytes(base / "old")
    assert base_layout.data_bytes(base / "new") < base_layout.data_bytes(base / "old")


def test_a_layout_5_store_is_read_and_written_in_its_own_layout(both, tmp_path):
    copy = base_layout.kept_in_its_own_layout(both, tmp_path, 5)
    edges = base_layout._questions(both[2])["edges"][:3]
    assert found_by(copy, edges) == [(1, 0)] * len(edges)  # written again with its ids' terms as they are


def test_deletes_remove_the_same_records(both, tmp_path):
    base_layout.same_deletes(both, tmp_path, lambda q: [*base_layout.doomed(q), q["edges"][-1]])  # and the last edge


TERMS = """
import json, sys
from memdock_tantivy import keys
print(json.dumps([keys.compact(i) for i in json.loads(sys.argv[1])]))
"""


def test_every_id_gets_a_term_of_its_own():
    """The layout 6 term is one-to-one: an id whose short form could be read as another id, an upper-case, short
    or long hex tail, no `:` before it, and ids holding the `!` that marks a short form all stay apart."""
    tail = "0123456789abcdef"
    ids = [
        f"edge:mentions:{tail}",  # short: "edge:mentions:!" + 11 letters
        f"edge:mentions:!{'0' * 11}",  # not a valid id; looks like a short form, so it is marked
        f"!edge:mentions:!{'0' * 11}",
        f"edge:mentions:{tail.upper()}",  # upper-case hex: as it is
        f"edge:mentions:{tail[:15]}",  # 15 digits: as it is
        f"edge:mentions:0{tail}",  # 17 hex digits: as it is
        f"edge:mentions:{tail}:{tail}",  # short, its prefix holding the same digits as text
        tail,  # no `:` at all: as it is
        f"thread:x:{tail[:8]}",  # a thread's 8 digits: as it is
        "edge:mentions:ffffffffffffffff",  # the largest tail still takes 11 letters
        "edge:mentions:0000000000000000",
    ]
    terms = json.loads(in_adapter(TERMS, json.dumps(ids)).strip())
    assert len(set(terms)) == len(ids)
    assert terms[0].startswith("edge:mentions:!") and len(terms[0]) == len("edge:mentions:!") + 11
    assert terms[1:3] == ["!" + i for i in ids[1:3]]
    assert terms[3:6] == ids[3:6] and terms[7:9] == ids[7:9]
    assert terms[6].startswith(f"edge:mentions:{tail}:!")
    assert [len(t) for t in terms[9:]] == [len("edge:mentions:!") + 11] * 2 and terms[9] != terms[10]


SAME_AS_THE_LOOP = """
import json, random, sys
sys.path.insert(0, sys.argv[2])
from memdock_tantivy import keys
from tantivy_key_pack_cpu import by_division

rng = random.Random(31)
ids = json.loads(sys.argv[1])
ids += [f"{rng.choice(['chunk', 'entry:t', 'edge:mentions:a:b'])}:{rng.getrandbits(64):016x}" for _ in range(5000)]
for _ in range(2000):  # one hex digit replaced, wherever it occurs, by something that is not one
    digit, other = rng.choice("0123456789abcdef"), rng.choice("ABCDEFg:!\\n ")
    ids.append(f"chunk:{rng.getrandbits(64):016x}".replace(digit, other))
print(json.dumps([i for i in ids if keys.compact(i) != by_division(i)]))
"""


def test_terms_are_the_ones_layout_6_wrote():
    """The base64 encoding gives each id the term the division loop gave it, so stores written before it are found
    by the same terms: random hashes, hashes with a character out of the lower-case hex alphabet, and the edges."""
    tail = "0123456789abcdef"
    edges = [
        f"edge:mentions:{tail}",
        f"x:\n:{tail}",  # a newline before the tail
        f":{tail}",  # nothing but the `:` before it
        f"edge:mentions:{tail[:15]}:",
        f"edge:mentions:{tail[:15]}",
        f"edge:mentions: {tail[:15]}",  # 16 characters, one a space: bytes.fromhex would take it
        f"edge:mentions:{tail[:8]} {tail[8:15]}",
        f"edge:mentions:{tail[:14]}\n",
        "edge:mentions:ffffffffffffffff",
        "edge:mentions:0000000000000000",
        "edge:mentions:000000000000000a",
        "edge:mentions:8000000000000000",
        f"a!b:{tail}",
        "",
        ":",
    ]
    bench = Path(__file__).resolve().parents[2] / "bench"  # tantivy_key_pack_cpu.by_division: the loop
    assert json.loads(in_adapter(SAME_AS_THE_LOOP, json.dumps(edges), str(bench)).strip()) == []
