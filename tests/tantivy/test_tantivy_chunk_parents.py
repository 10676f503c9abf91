"""A chunk that lacks its author, role, type or time takes them from its entry (docs.inherit), looked up in the run's
own records, else in the index. An index that was empty when the run began, in a run that sent no entry, holds no
entry to find: those lookups are skipped (a query per slice of a chunks-only `memdock index`)."""

from __future__ import annotations

import json

from tantivy_support import FAKE_WRITER, gate, in_adapter

pytestmark = gate

_RUN = (
    r"""
import json, sys
from memdock_tantivy.ingest import Ingest
from memdock_tantivy.keys import Keys
"""
    + FAKE_WRITER
    + r"""
lookups = []

class Packer:
    untrained = ready = False

class Indexes:
    keys = Keys(None, compact=True)
    version = 8
    packer = Packer()

class Reader:
    num_docs = int(sys.argv[1])
    indexes = Indexes()
    def where(self, field, values, kind=None):
        lookups.append((field, sorted(values), kind))
        if kind == "chunk":  # stored chunks of these ids (ingest._before_chunks): none sent for another entry
            return []
        return [{"id": v, "kind": "entry", "author": "ada"} for v in values] if self.num_docs else []
    def get(self, record_id):
        return None
    def refresh(self):
        pass

run = Ingest(Writer(), Reader(), on_commit=lambda ids: None)
if sys.argv[2] == "entry":  # an entry of this run, and a chunk of another entry
    run.run("entry", [{"id": "entry:a", "thread_id": "thread:t", "body": "x", "author": "bo"}])
chunks = [{"id": f"chunk:{e}", "entry_id": e, "thread_id": "thread:t", "position": 0, "text": "words"}
          for e in ("entry:a", "entry:b")]
run.run("chunk", chunks)
run.finish()
print(json.dumps(lookups))
"""
)


def _lookups(stored: int, sent: str) -> list:
    return json.loads(in_adapter(_RUN, str(stored), sent))


def test_a_chunks_only_run_into_an_empty_index_looks_up_no_entry() -> None:
    assert _lookups(0, "chunks") == []


def test_a_chunk_of_a_stored_entry_is_still_looked_up() -> None:
    both = ["id", ["entry:a", "entry:b"], "entry"]
    chunks = ["id", ["chunk:entry:a", "chunk:entry:b"], "chunk"]  # the entries they were stored for (moved?)
    assert _lookups(3, "chunks") == [chunks, both, both]  # the stored entries' texts checked (text_once), then parents


def test_a_run_that_sent_entries_looks_up_those_it_does_not_hold() -> None:
    """entry:a is this run's own (held in memory); entry:b may have been committed by this run and left its cache."""
    assert _lookups(0, "entry") == [["id", ["entry:b"], "entry"]]
