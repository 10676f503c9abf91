"""`memdock index` of a bundle into an adapter that reads a stream (`engine/index.py`, `streamable`): the delta's
lines go to the adapter while the pass reads the bundle and writes the journal, so the two run at once. The
stream's guarantees hold for a bundle as for `memdock add`: a record refused mid-pass leaves the store, the
ledger and the journal as they were, and the fixed bundle's re-run indexes every record once."""

from pathlib import Path

import pytest
from support import records_factory as factory

from memdock.bundle import BundleWriter
from memdock.engine.journal import Journal
from memdock.engine.ledger import Ledger
from memdock.errors import InvalidInputError
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

N = 120


def chunk(i: int) -> dict:
    return factory.chunk(i, f"chunk {i} tells of harbour number {i} and its lighthouse", thread_id=f"thread:{i // 40}")


def bundle(path: Path, *, bad_at: int | None = None, embeddings: bool = False) -> Path:
    """N chunks; BAD_AT: that one without its text (the writer does not check, so the bundle is not sealed)."""
    with BundleWriter(path, kind="chunks", validate=bad_at is None) as w:
        for i in range(N):
            rec = chunk(i)
            if i == bad_at:
                del rec["text"]
            w.write("chunk", rec)
            if embeddings:
                w.write_embedding(rec["id"], bytes(4 * 4), "test-model")
    return path


def test_a_bundle_streams_to_an_adapter_that_reads_a_stream(tmp_path):
    with SubprocessBackend(Registry().get("sqlite"), tmp_path / "store") as b:
        first = b.index(bundle(tmp_path / "chunks"))
        got = b.get_node("chunk:7").item
        again = b.index(tmp_path / "chunks")
    assert first.details["input_stream"] == N == first.indexed["chunk"]
    assert got is not None and got.text == chunk(7)["text"]
    assert again.skipped == N and "input_stream" not in again.details  # nothing to send starts no adapter
    ledger = Ledger(tmp_path / "store" / "ledger.sqlite")
    try:
        assert ledger.count() == N
        assert sum(1 for _ in Journal(tmp_path / "store" / "journal").live(ledger)) == N
    finally:
        ledger.close()


def test_a_bundle_refused_mid_stream_leaves_the_store_as_it_was_and_the_fixed_one_goes_whole(tmp_path):
    store = tmp_path / "store"
    with SubprocessBackend(Registry().get("sqlite"), store) as b:
        with pytest.raises(InvalidInputError) as err:
            b.index(bundle(tmp_path / "bad", bad_at=N - 5))
        assert "chunk-00001.jsonl" in str(err.value) and ":116" in str(err.value)
        assert b.get_node("chunk:7").item is None
        assert not Journal(store / "journal").segments()
        ledger = Ledger(store / "ledger.sqlite")
        try:
            assert ledger.count() == 0
        finally:
            ledger.close()
        fixed = b.index(bundle(tmp_path / "good"))
        assert fixed.indexed["chunk"] == N and fixed.details["input_stream"] == N
        assert b.get_node("chunk:7").item is not None


def test_a_bundle_with_embeddings_goes_as_files(tmp_path):
    """The stream's lines carry no embedding matrix: such a bundle is read by the adapter from its files."""
    with SubprocessBackend(Registry().get("sqlite"), tmp_path / "store") as b:
        result = b.index(bundle(tmp_path / "chunks", embeddings=True))
    assert result.indexed["chunk"] == N and "input_stream" not in result.details
