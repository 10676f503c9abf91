"""Killed after a durable commit, resumed, re-indexed unchanged: counted in the index itself."""

import pytest
from tantivy_support import backend, gate

from memdock.engine.ledger import Ledger
from memdock.errors import MemdockError

pytestmark = gate

KINDS = ("thread", "entry", "entity", "chunk", "edge")


def counts(b) -> dict[str, int]:
    checks = b.healthcheck().checks
    return {k: checks[k] for k in KINDS}


def test_kill_resume_then_reindex_is_idempotent(tmp_path, fixture_chunks, monkeypatch):
    """On the file path, where tantivy commits a batch at a time (a stream commits once, at its end:
    test_tantivy_stream_commit.py kills that one)."""
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", "0")
    clean = backend(tmp_path / "clean")
    clean.index(fixture_chunks)
    expected = counts(clean)
    assert expected["chunk"] > 0 and expected["edge"] > 0

    b = backend(tmp_path / "store", {"batch_size": 20}, retries=0)  # the kill must end the call, not be retried
    seen: list[int] = []

    def kill_after_three(ids):
        seen.append(len(ids))
        if len(seen) == 3:
            raise RuntimeError("test: killing the index run after its third checkpoint")

    with pytest.raises(MemdockError):
        b.index(fixture_chunks, after_checkpoint=kill_after_three)
    ledger = Ledger(b.store.ledger_path)
    committed = ledger.count()
    ledger.close()
    assert committed >= sum(seen), "every checkpointed record is in the ledger"
    assert sum(counts(b).values()) >= committed, "what was checkpointed is in the index"

    resumed = b.index(fixture_chunks)
    assert resumed.skipped >= committed, "checkpointed records are not sent again"
    assert counts(b) == expected

    query = "thundering herd after cache expiry"
    before = [(h.id, round(h.score, 6)) for h in b.query(query, limit=10).hits]
    assert before == [(h.id, round(h.score, 6)) for h in clean.query(query, limit=10).hits]
    again = b.call("index", {"bundle": str(fixture_chunks)})  # straight to the adapter, bypassing the ledger
    assert again["indexed"]["chunk"] == expected["chunk"]
    assert counts(b) == expected, "re-indexing the same records adds nothing"
    assert [h.id for h in b.query(query, limit=10).hits] == [i for i, _ in before]
