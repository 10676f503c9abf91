"""The store engine's bookkeeping over a MockTransport: no adapter process is started. The same behaviours are
checked through a real subprocess adapter in tests/runner (test_one_pass, test_incremental_index, test_kill_100k)
and tests/service (test_journal, test_reindex_origins)."""

import shutil
import threading
from pathlib import Path

import pytest
from support import records_factory

from memdock.bundle import BundleReader, BundleWriter
from memdock.engine.backend import StoreBackend
from memdock.engine.ledger import Ledger
from memdock.engine.mock import MemoryAdapter, MockRequest, MockTransport
from memdock.engine.parallel import ShardSpec
from memdock.errors import BackendError


def chunk(i: int, text: str | None = None) -> dict:
    """The Ith chunk, ten to a thread."""
    return records_factory.chunk(i, text or f"note {i:03d} about apples and pears", thread_id=f"thread:{i // 10}")


def write(path: Path, records: list[dict]) -> Path:
    """(Re)write PATH as a chunks bundle of RECORDS and their threads (a run prunes only the threads it names)."""
    shutil.rmtree(path, ignore_errors=True)
    with BundleWriter(path, "chunks") as w:
        for tid in sorted({rec["thread_id"] for rec in records}):
            w.write("thread", {"id": tid, "title": tid, "ingestion_time": "2025-12-09T02:35:37Z"})
        for rec in records:
            w.write("chunk", rec)
    return path


def mock_backend(tmp_path: Path, **adapter_kw) -> tuple[StoreBackend, MockTransport, MemoryAdapter]:
    adapter = MemoryAdapter(**adapter_kw)
    transport = MockTransport(adapter)
    return StoreBackend(transport, tmp_path / "store"), transport, adapter


def handed(transport: MockTransport) -> list[str]:
    return [r.params["bundle"] for r in transport.requests if r.operation == "index"]


def test_a_first_index_hands_over_the_input_and_a_rerun_only_the_changed_record(tmp_path):
    b, transport, adapter = mock_backend(tmp_path)
    first = write(tmp_path / "one", [chunk(i) for i in range(30)])
    assert b.index(first).details["sent"] == {"thread": 3, "chunk": 30}
    assert handed(transport) == [str(first.resolve())]
    assert b.counts() == {"thread": 3, "chunk": 30} and adapter.count("chunk") == 30

    second = write(tmp_path / "two", [chunk(i, "kiwis" if i == 7 else None) for i in range(30)])
    again = b.index(second)
    assert again.details["sent"] == {"chunk": 1} and again.skipped == 32 and again.deleted == 0
    assert handed(transport)[1] == str(tmp_path / "store" / "journal" / "00000002")
    assert adapter.records["chunk:7"][1]["text"] == "kiwis"
    assert [r.shared for r in transport.requests if r.operation == "index"] == [False, False]

    unchanged = b.index(second)
    assert unchanged.details["sent"] == {} and unchanged.skipped == 33
    assert len(handed(transport)) == 2, "nothing to send: the adapter is not called"
    assert sorted(p.name for p in (tmp_path / "store" / "journal").iterdir() if p.name[0] == "0") == [
        "00000001",
        "00000002",
    ]


def test_a_record_that_left_its_thread_is_deleted_and_the_ledger_forgets_it(tmp_path):
    b, transport, adapter = mock_backend(tmp_path)
    b.index(write(tmp_path / "in", [chunk(i) for i in range(20)]))
    result = b.index(write(tmp_path / "in", [chunk(i) for i in range(20) if i != 13]))
    assert result.deleted == 1 and result.details["sent"] == {}
    [delete] = [r for r in transport.requests if r.operation == "delete"]
    assert delete.params == {"ids": ["chunk:13"]} and not delete.shared
    assert b.counts() == {"thread": 2, "chunk": 19} and "chunk:13" not in adapter.records
    assert b.index(write(tmp_path / "in", [chunk(i) for i in range(10)]), prune=False).deleted == 0
    assert b.counts() == {"thread": 2, "chunk": 19}, "without prune nothing is deleted"
    other = b.index(write(tmp_path / "other", [chunk(i) for i in range(5)]))
    assert other.deleted == 0 and other.details["kept_for_other_sources"] == 5, "only a source prunes its own"


def test_a_backend_without_delete_keeps_what_vanished(tmp_path):
    b, transport, adapter = mock_backend(tmp_path, delete=False)
    b.index(write(tmp_path / "in", [chunk(i) for i in range(20)]))
    assert b.index(write(tmp_path / "in", [chunk(i) for i in range(19)])).deleted == 0
    assert "delete" not in transport.operations() and adapter.count("chunk") == 20


def test_a_run_stopped_midway_resumes_with_nothing_lost_or_doubled(tmp_path):
    b, transport, adapter = mock_backend(tmp_path, checkpoint_every=10)
    bundle = write(tmp_path / "one", [chunk(i) for i in range(55)])
    adapter.fail_after = 2
    with pytest.raises(BackendError, match="stopped midway"):
        b.index(bundle)
    assert sum(b.counts().values()) == 20, "the two checkpoints the adapter reached are committed"
    assert (tmp_path / "store" / "journal" / "00000001").exists(), "a segment that reached the backend stays"
    resumed = b.index(bundle)
    assert sum(resumed.details["sent"].values()) == 41 and resumed.skipped == 20
    assert b.counts() == {"thread": 6, "chunk": 55} and adapter.count("chunk") == 55
    assert adapter.sent == [41], "the stopped run returned nothing; the resumed one sent only what was pending"
    exported = b.export(tmp_path / "out")
    # each chunk once in the journal's live view (threads without entries are not exported, by design)
    assert exported.counts == {"chunk": 55}


def test_a_run_that_fails_before_any_checkpoint_leaves_no_segment_and_no_ledger_rows(tmp_path):
    b, _, adapter = mock_backend(tmp_path)
    adapter.fail_after = 0
    with pytest.raises(BackendError):
        b.index(write(tmp_path / "one", [chunk(i) for i in range(5)]))
    assert b.counts() == {}
    assert not list((tmp_path / "store" / "journal").glob("0*"))


def test_a_forget_killed_midway_is_finished_by_the_next_index(tmp_path):
    adapter = MemoryAdapter()
    failing = {"delete": True}

    def handler(request: MockRequest) -> dict:
        if request.operation == "delete" and failing["delete"]:
            raise BackendError("killed during delete")
        return adapter(request)

    transport = MockTransport(handler)
    b = StoreBackend(transport, tmp_path / "store")
    bundle = write(tmp_path / "one", [chunk(i) for i in range(10)])
    b.index(bundle)
    with pytest.raises(BackendError):
        b.delete(["chunk:4"])
    ledger = Ledger.reader(tmp_path / "store" / "ledger.sqlite")
    try:
        assert ledger.forgetting() == ["chunk:4"]
    finally:
        ledger.close()
    failing["delete"] = False
    rest = b.index(write(tmp_path / "rest", [chunk(i) for i in range(10) if i != 4]), prune=False)
    assert rest.details["sent"] == {} and transport.operations()[-1] == "delete", "the forget is finished first"
    assert transport.requests[-1].params == {"ids": ["chunk:4"]}
    assert "chunk:4" not in adapter.records and b.counts() == {"chunk": 9, "thread": 1}
    assert b.index(bundle).details["sent"] == {"chunk": 1}, "a forgotten record is new to the ledger"


def test_parallel_over_a_transport_without_shard_jobs_runs_one_writer_and_says_why(tmp_path):
    b, _, _ = mock_backend(tmp_path)
    result = b.index(write(tmp_path / "one", [chunk(i) for i in range(12)]), parallel=4)
    assert result.details["parallel"]["shards"] == 1 and result.details["parallel"]["requested"] == 4
    assert "mock" in result.details["parallel"]["why"]


def test_the_journal_segment_the_adapter_gets_is_inflated_for_one_that_cannot_read_gzip(tmp_path):
    seen: list[list[str]] = []
    adapter = MemoryAdapter()

    def handler(request: MockRequest) -> dict:
        if request.operation == "index":
            seen.append(sorted(p.name for p in Path(request.params["bundle"]).iterdir()))
            assert BundleReader(request.params["bundle"]).count("chunk") > 0
        return adapter(request)

    b = StoreBackend(MockTransport(handler, reads_gzip=False), tmp_path / "store")
    b.index(write(tmp_path / "one", [chunk(i) for i in range(10)]))
    b.index(write(tmp_path / "two", [chunk(i, "kiwis" if i == 3 else None) for i in range(10)]))
    assert seen[1] == ["chunk-00001.jsonl", "manifest.json"]
    assert not list((tmp_path / "store").rglob("delta-*")), "the inflated copy is removed after the run"


def test_shards_commit_as_they_finish_and_a_failed_shard_is_sent_again(tmp_path):
    adapter = MemoryAdapter(features={"concurrent_index": True})
    lock, failed = threading.Lock(), []

    def job(spec: ShardSpec) -> dict:
        with lock:
            fail = not failed
            failed.append(spec.shard)
        if fail:
            raise BackendError("a shard job died")
        return adapter(MockRequest(spec.operation, {"bundle": spec.shard}))

    b = StoreBackend(MockTransport(adapter, parallel_writers="shared", shard_job=job), tmp_path / "store")
    bundle = write(tmp_path / "in", [chunk(i) for i in range(40)])
    with pytest.raises(BackendError, match="shard job died") as err:
        b.index(bundle, parallel=4)
    assert err.value.details["failed_shards"] == 1
    committed = sum(b.counts().values())
    assert 0 < committed < 44, "the shards that finished are committed, the failed one is not"
    again = b.index(bundle, parallel=4)
    assert sum(again.details["sent"].values()) == 44 - committed and again.details["parallel"]["failed"] == 0
    assert b.counts() == {"thread": 4, "chunk": 40} and adapter.count("chunk") == 40


def test_a_first_index_that_looks_nothing_up_leaves_the_ledger_and_journal_a_lookup_would(tmp_path):
    """`build_delta(fresh=True)` (an empty ledger: no lookup, nothing noted as seen) against the same run with
    every record looked up: the same segment, the same committed rows, and a re-run of either skips everything."""
    from memdock.engine.delta import build_delta

    bundle = write(tmp_path / "in", [chunk(i) for i in range(25)])
    outcome = {}
    for fresh in (True, False):
        ledger = Ledger(tmp_path / f"ledger-{fresh}.sqlite")
        delta = build_delta(BundleReader(bundle, trust_seal=True), ledger, tmp_path / f"seg-{fresh}", fresh=fresh)
        ledger.commit_all_pending()
        ledger.finish_run()
        again = build_delta(BundleReader(bundle), ledger, tmp_path / f"again-{fresh}")
        files = [
            {k: f[k] for k in ("path", "count", "sha256")}
            for f in BundleReader(delta.path, sealed=True).manifest["files"]
        ]
        outcome[fresh] = (delta.sent, delta.skipped, ledger.counts_by_type(), ledger.threads(), files, again.skipped)
        ledger.close()
    assert outcome[True] == outcome[False]
    assert outcome[True][0] == {"thread": 3, "chunk": 25} and outcome[True][-1] == 28
