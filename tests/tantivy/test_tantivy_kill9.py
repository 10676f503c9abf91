"""kill -9 of the whole process group (memdock and the tantivy adapter) after a durable checkpoint, then a
re-run: both indexes (graph and chunks) hold every record exactly once, and rank as a clean run does."""

import os
import signal
import subprocess
import sys

from tantivy_support import backend, gate
from test_tantivy_resume import KINDS, counts

pytestmark = gate

RUN = """
import os, signal, sys
from pathlib import Path
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

bundle, store = sys.argv[1:3]
seen = []
def after(ids):
    seen.append(ids)
    if len(seen) == 3:
        os.killpg(0, signal.SIGKILL)
backend = SubprocessBackend(Registry(use_entry_points=False).get("tantivy"), Path(store), config={"batch_size": 20})
backend.index(bundle, after_checkpoint=after)
"""


def test_kill_9_after_a_checkpoint_then_a_rerun_holds_every_record_once(tmp_path, fixture_chunks):
    """On the file path, where tantivy commits a batch at a time (a stream commits once, at its end:
    test_tantivy_stream_commit.py kills that one)."""
    clean = backend(tmp_path / "clean")
    clean.index(fixture_chunks)
    expected = counts(clean)
    store = tmp_path / "store"
    killed = subprocess.run(
        [sys.executable, "-c", RUN, str(fixture_chunks), str(store)],
        start_new_session=True,
        timeout=600,
        env={**os.environ, "MEMDOCK_INDEX_STREAM": "0"},
    )
    assert killed.returncode == -signal.SIGKILL
    b = backend(store, {"batch_size": 20})
    again = b.index(fixture_chunks)
    assert again.skipped > 0, "what was checkpointed is not sent again"
    assert again.skipped + sum(again.details["sent"].values()) == sum(expected[k] for k in KINDS)
    assert counts(b) == expected
    query = "thundering herd after cache expiry"
    assert [(h.id, h.text) for h in b.query(query, limit=10).hits] == [
        (h.id, h.text) for h in clean.query(query, limit=10).hits
    ]
    fact = clean.search_facts("mentions file migrate_v2", limit=3).hits
    assert [(h.id, h.text) for h in b.search_facts("mentions file migrate_v2", limit=3).hits] == [
        (h.id, h.text) for h in fact
    ]
