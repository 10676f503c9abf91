"""Killed after a durable commit, resumed, re-indexed unchanged: counted in the index itself. On the file path,
where the adapter commits a batch at a time, and on the streamed one, where it commits once its input is whole
(all before its held edges) and then a batch at a time."""

import pytest
from tantivy_support import backend, gate

from memdock.engine.ledger import Ledger
from memdock.errors import MemdockError

pytestmark = gate

KINDS = ("thread", "entry", "entity", "chunk", "edge")


def counts(b) -> dict[str, int]:
    checks = b.healthcheck().checks
    return {k: checks[k] for k in KINDS}


@pytest.mark.parametrize("stream", ["0", "1"])
def test_kill_resume_then_reindex_is_idempotent(tmp_path, fixture_chunks, monkeypatch, stream):
    monkeypatch.setenv("MEMDOCK_INDEX_STREAM", stream)
    clean = backend(tmp_path / "clean")
    clean.index(fixture_chunks)
    expected = counts(clean)
    assert expected["chunk"] > 0 and expected["edge"] > 0

    b = backend(tmp_path / "store", {"batch_size": 20}, retries=0)  # the kill must end the call, not be retried
    seen: list[int] = []

    at = 3 if stream == "0" else 1  # a stream's first checkpoint: what came before its input was whole

    def kill_after(ids):
        seen.append(len(ids))
        if len(seen) == at:
            raise RuntimeError(f"test: killing the index run after checkpoint {at}")

    with pytest.raises(MemdockError):
        b.index(fixture_chunks, after_checkpoint=kill_after)
    ledger = Ledger(b.store.ledger_path)
    committed = ledger.count()
    ledger.close()
    assert committed >= sum(seen), "every checkpointed record is in the ledger"
    assert sum(counts(b).values()) >= committed, "what was checkpointed is in the index"

    resumed = b.index(fixture_chunks)
    assert ("input_stream" in resumed.details) == (stream == "1")
    assert resumed.skipped >= committed, "checkpointed records are not sent again"
    assert counts(b) == expected

    query = "thundering herd after cache expiry"
    before = [(h.id, round(h.score, 6)) for h in b.query(query, limit=10).hits]
    assert before == [(h.id, round(h.score, 6)) for h in clean.query(query, limit=10).hits]
    again = b.call("index", {"bundle": str(fixture_chunks)})  # straight to the adapter, bypassing the ledger
    assert again["indexed"]["chunk"] == expected["chunk"]
    assert counts(b) == expected, "re-indexing the same records adds nothing"
    assert [h.id for h in b.query(query, limit=10).hits] == [i for i, _ in before]
