"""How an index run spends the adapter's CPU: a stream's documents reach tantivy's writer a slice at a time (its
indexing thread works while the adapter builds the next ones), a first index into an empty store deletes nothing,
and the garbage collector is paced for the run and put back after it."""

from __future__ import annotations

import json

from tantivy_support import FAKE_WRITER, gate, in_adapter

pytestmark = gate

_INGEST = (
    r"""
import json, sys
from memdock_tantivy.ingest import Ingest, STREAM_SLICE
from memdock_tantivy.keys import Keys
"""
    + FAKE_WRITER
    + r"""
class Indexes:
    keys = Keys(None, compact=True)
    version = 8

class Reader:
    num_docs = int(sys.argv[2])
    indexes = Indexes()
    def get(self, record_id):
        return None
    def refresh(self):
        events.append("refresh")

def threads(n):
    for i in range(n):
        events.append("read")
        yield {"id": f"thread:t{i}", "title": f"t{i}"}

def edges(n):
    for i in range(n):
        events.append("edge")
        yield {"id": f"edge:e{i}", "type": "references", "source_id": f"thread:t{i}", "target_id": "thread:t0"}

committed = []
mode = sys.argv[1]
batch = {"batch_size": STREAM_SLICE} if mode == "edges" else {}
run = Ingest(Writer(), Reader(), on_commit=committed.extend, one_commit=mode in ("stream", "edges"), **batch)
n = 3 * STREAM_SLICE + 7
run.run("thread", threads(n))
m = 2 * STREAM_SLICE + 3 if mode == "edges" else 0
if m:
    run.run("edge", edges(m))
run.finish()
print(json.dumps({"events": events, "committed": len(committed), "n": n, "m": m}))
"""
)


def _ingest(mode: str, stored: int) -> dict:
    return json.loads(in_adapter(_INGEST, mode, str(stored)))


def test_a_stream_adds_its_documents_while_it_is_still_read() -> None:
    got = _ingest("stream", 0)
    events = got["events"]
    assert events.count("read") == events.count("add") == got["n"]
    assert events.index("add") < len(events) - 1 - events[::-1].index("read")  # added before the last is read
    assert events.count("commit") == 1 and events[-1] == "commit"  # still one commit, at the end
    assert got["committed"] == got["n"]


def test_a_first_index_deletes_nothing_and_a_later_one_replaces_each_id() -> None:
    assert "delete" not in _ingest("stream", 0)["events"]
    later = _ingest("stream", 5)["events"]
    assert later.count("delete") == later.count("add")  # an upsert: the id's term, then the document


def test_a_stream_commits_nothing_before_its_edges_then_every_batch() -> None:
    """A stream's edges come after its end line (the adapter holds them back): before the first, its input may
    still end without that line, so nothing is committed; from it on, a commit every batch_size records, the
    first holding all that came before."""
    got = _ingest("edges", 0)
    events = got["events"]
    assert "commit" not in events[: events.index("edge")]
    assert events.count("add") == got["n"] + got["m"]
    assert events.count("commit") == 3  # the threads with the first slice of edges, the second slice, the rest
    assert events[-1] == "commit" and got["committed"] == got["n"] + got["m"]


def test_a_bundle_commits_by_batch_as_before() -> None:
    events = _ingest("bundle", 0)["events"]
    assert events.count("commit") == 1  # fewer records than a batch: one commit
    assert events.index("add") > len(events) - 1 - events[::-1].index("read")  # added once the batch is read


_GC = r"""
import gc, json
from memdock.sdk import gc_pace

before = gc.get_threshold()
with gc_pace.paced():
    inside = gc.get_threshold()
try:
    with gc_pace.paced():
        raise KeyError("a failed run")
except KeyError:
    pass
print(json.dumps({"before": before, "inside": inside, "after": gc.get_threshold(), "paced": gc_pace.THRESHOLDS}))
"""


def test_an_index_run_paces_the_collector_and_puts_it_back() -> None:
    got = json.loads(in_adapter(_GC))
    assert got["inside"] == got["paced"] != got["before"]
    assert got["after"] == got["before"]


def test_the_index_operation_runs_paced() -> None:
    script = (
        "import gc, json\n"
        "from memdock_tantivy import adapter\n"
        "seen = []\n"
        "adapter.TantivyAdapter._index_run = lambda self, ctx: seen.append(gc.get_threshold()) or {}\n"
        "adapter.TantivyAdapter().index(None)\n"
        "print(json.dumps({'seen': seen[0], 'after': gc.get_threshold()}))\n"
    )
    got = json.loads(in_adapter(script))
    assert tuple(got["seen"]) == (100_000, 50, 1000)
    assert tuple(got["after"]) != (100_000, 50, 1000)
