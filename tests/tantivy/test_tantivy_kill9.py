"""kill -9 of the whole process group (memdock and the tantivy adapter) after a durable checkpoint, then a
re-run: both indexes (graph and chunks) hold every record exactly once, and rank as a clean run does. On the file
path, where the adapter commits a batch at a time, and on the streamed one, where it commits once its input is
whole (all before its held edges) and then a batch at a time."""

import os
import signal
import subprocess
import sys

import pytest
from tantivy_support import backend, gate
from test_tantivy_resume import KINDS, counts

pytestmark = gate

RUN = """
import os, signal, sys
from pathlib import Path
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

bundle, store, at = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = []
def after(ids):
    seen.append(ids)
    if len(seen) == at:
        os.killpg(0, signal.SIGKILL)
backend = SubprocessBackend(Registry(use_entry_points=False).get("tantivy"), Path(store), config={"batch_size": 20})
backend.index(bundle, after_checkpoint=after)
"""


# a stream's first checkpoint holds what came before its input was whole; the entries it held come with its last
KILL_AT = {"0": 3, "1": 1}


@pytest.mark.parametrize("stream", ["0", "1"])
def test_kill_9_after_a_checkpoint_then_a_rerun_holds_every_record_once(tmp_path, fixture_chunks, monkeypatch, stream):
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", stream)
    clean = backend(tmp_path / "clean")
    clean.index(fixture_chunks)
    expected = counts(clean)
    store = tmp_path / "store"
    killed = subprocess.run(
        [sys.executable, "-c", RUN, str(fixture_chunks), str(store), str(KILL_AT[stream])],
        start_new_session=True,
        timeout=600,
        env={**os.environ, "MEMDOCK_INDEX_STREAM": stream},
    )
    assert killed.returncode == -signal.SIGKILL
    b = backend(store, {"batch_size": 20})
    again = b.index(fixture_chunks)
    assert ("input_stream" in again.details) == (stream == "1")
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
