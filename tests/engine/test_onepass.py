"""`memdock add`'s one pass (`importers/onepass.ImportFeed`): records imported and chunked straight into the index
run are the records, hashes and journal segment the import -> chunk -> index bundles give, and the adapter reads
that segment (no corpus or chunks bundle is written and read back)."""

from itertools import chain
from pathlib import Path

import pytest

from memdock.bundle import BundleReader
from memdock.chunking import ChunkOptions, chunk_bundle
from memdock.engine.backend import StoreBackend
from memdock.engine.mock import MemoryAdapter, MockTransport
from memdock.errors import InvalidInputError
from memdock.importers.onepass import ImportFeed
from memdock.importers.pipeline import import_corpus

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"


def backend(path: Path) -> tuple[StoreBackend, MockTransport]:
    transport = MockTransport(MemoryAdapter())
    return StoreBackend(transport, path), transport


def bundles(tmp_path: Path) -> Path:
    import_corpus([FIXTURES], "watercooler", tmp_path / "corpus")
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks", ChunkOptions())
    return tmp_path / "chunks"


def segment_records(store: Path) -> dict[str, list[dict]]:
    """The first journal segment's records by type, without the volatile ingestion_time."""
    reader = BundleReader(store / "journal" / "00000001", sealed=True)
    return {
        t: [{k: v for k, v in r.items() if k != "ingestion_time"} for r in reader.records(t)]
        for t in reader.record_types()
    }


def test_the_one_pass_sends_what_the_bundles_send_and_the_adapter_reads_the_journal_segment(tmp_path):
    by_bundles, _ = backend(tmp_path / "bundles")
    sent = by_bundles.index(bundles(tmp_path)).details["sent"]
    one, transport = backend(tmp_path / "one")
    result = one.index(ImportFeed([FIXTURES], "watercooler", ChunkOptions()))
    assert result.details["sent"] == sent and list(sent) == ["thread", "entry", "entity", "edge", "chunk"]
    assert [r.params["bundle"] for r in transport.requests if r.operation == "index"] == [
        str(tmp_path / "one" / "journal" / "00000001")
    ]
    assert segment_records(tmp_path / "one") == segment_records(tmp_path / "bundles")
    assert one.counts() == by_bundles.counts()


def test_a_store_filled_from_bundles_finds_nothing_new_in_the_one_pass_and_the_reverse(tmp_path):
    """The one pass hashes each record as the bundle path does: a store either filled skips the other's run."""
    chunks = bundles(tmp_path)
    first, _ = backend(tmp_path / "a")
    total = sum(first.index(chunks).details["sent"].values())
    again = first.index(ImportFeed([FIXTURES], "watercooler", ChunkOptions()))
    assert again.details["sent"] == {} and again.skipped == total
    second, _ = backend(tmp_path / "b")
    second.index(ImportFeed([FIXTURES], "watercooler", ChunkOptions()))
    assert second.index(chunks).skipped == total


def test_sources_without_entries_are_refused_when_the_feed_starts(tmp_path):
    (tmp_path / "empty.jsonl").write_text("\n")
    feed = ImportFeed([tmp_path / "empty.jsonl"], "jsonl", ChunkOptions())
    with pytest.raises(InvalidInputError, match="no entries imported"):
        feed.start()
    with pytest.raises(InvalidInputError, match="nothing to import"):
        ImportFeed([tmp_path / "nope"], "jsonl", ChunkOptions()).start()


def test_chunks_that_fill_their_batch_before_their_entries_do_are_still_journalled_as_spans(tmp_path, monkeypatch):
    """Markdown entries have many chunks each: a chunk batch fills first, and its entries are written before it, or
    the journal keeps each chunk's text again instead of its span (journal format 2)."""
    import gzip

    import orjson

    from memdock.engine import delta

    monkeypatch.setattr(delta, "_BATCH", 3)
    store, _ = backend(tmp_path / "one")
    store.index(ImportFeed([FIXTURES], "watercooler", ChunkOptions(max_tokens=16, overlap=2)))
    segment = tmp_path / "one" / "journal" / "00000001"
    chunk_part = b"".join(gzip.decompress(p.read_bytes()) for p in sorted(segment.glob("chunk-*.jsonl.gz")))
    reader = BundleReader(segment, sealed=True)
    bodies = {e["id"]: e["body"] for e in reader.records("entry")}
    chunks = list(reader.records("chunk"))
    spans = [c for c in chunks if c["text"].endswith(bodies[c["entry_id"]][c["start"] : c["end"]])]
    assert len(chunks) > 2 * len(bodies) and len(spans) > 0.9 * len(chunks)
    assert [c["id"] for c in spans if orjson.dumps(c["text"]) in chunk_part] == []


@pytest.mark.parametrize(
    "record",
    [
        {"id": "edge:a", "type": "contains", "source_id": "t", "target_id": "e", "ingestion_time": "2026-01-01T00:00Z"},
        {"z": 1, "id": "entry:e", "body": "é ☃ \u2028", "metadata": {"b": [1, 2.5, None], "a": {"y": True}}},
    ],
)
def test_the_sinks_hash_is_the_ledgers_record_hash(record):
    """DeltaSink hashes records without going through record_hash (the same bytes, fewer steps); a change to
    either must change both."""
    from memdock.engine.delta import _hash
    from memdock.engine.ledger import record_hash

    assert _hash(dict(record)) == record_hash(record)


class RecordingSink:
    """A DeltaSink stand-in that keeps what the one pass adds, (type, record), in order."""

    fresh = True

    def __init__(self):
        self.added = []

    def add(self, rtype, rec, line, derived=False):
        self.added.append((rtype, rec))


def test_edges_derived_from_an_entry_skip_the_id_check_and_replies_keep_it(tmp_path):
    """contains / follows / mentions edges are unique by construction (their entry's id was checked unique): they
    are not held among the ids seen; a replies_to edge, read from the source, still is, and a repeat is refused."""
    from memdock.importers import onepass
    from memdock.jsonl import PayloadError

    out = onepass._Chunking(RecordingSink(), onepass.Chunker(ChunkOptions()))
    feed = ImportFeed([FIXTURES], "watercooler", ChunkOptions())
    feed.start()
    for rtype, rec in chain(feed._head, feed._records):
        out.write(rtype, rec)
    kinds = [rec.get("type") for rtype, rec in out.sink.added if rtype == "edge"]
    assert {"contains", "follows", "mentions"} <= set(kinds)
    assert len(out.own.streams["edge"].seen) == kinds.count("replies_to")
    reply = {"id": "edge:replies_to:x", "type": "replies_to", "source_id": "entry:a", "target_id": "entry:b"}
    out.write("edge", dict(reply))
    with pytest.raises(PayloadError, match="duplicate edge id"):
        out.write("edge", dict(reply))


def test_entries_skip_the_id_set_and_a_repeated_source_id_is_still_made_unique(tmp_path):
    """An entry's id is claimed unique by its importer (`ImportContext.claim_entry_id`): the one pass does not hold
    it among the ids seen, and a JSONL line that repeats an id still goes as its own entry, renamed and warned."""
    from memdock.importers import onepass

    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "n1", "text": "one"}\n{"id": "n1", "text": "two"}\n{"id": "n2", "text": "three"}\n')
    out = onepass._Chunking(RecordingSink(), onepass.Chunker(ChunkOptions()))
    feed = ImportFeed([notes], "jsonl", ChunkOptions())
    feed.start()
    for rtype, rec in chain(feed._head, feed._records):
        out.write(rtype, rec)
    entries = [rec["id"] for rtype, rec in out.sink.added if rtype == "entry"]
    assert len(entries) == len(set(entries)) == 3
    assert entries[0] == "entry:n1" and entries[1].startswith("entry:n1~")
    assert len(out.checked.streams["entry"].seen) == 0
    assert any("duplicate entry id entry:n1" in w for w in feed.summary.warnings)


def test_no_collection_walks_what_start_read(tmp_path: Path) -> None:
    """`start` may read a whole file (jsonl) whose records all live on into the pass: as its paced block ends they
    go to the oldest generation, not to a young collection at the restored thresholds that would walk them all."""
    import gc

    import orjson

    notes = tmp_path / "notes.jsonl"
    notes.write_bytes(
        b"".join(
            orjson.dumps({"id": f"{i:08x}", "thread": f"t{i % 7}", "author": "ana", "text": f"note {i}"}) + b"\n"
            for i in range(3000)
        )
    )
    walked: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "start":
            walked.append(sum(len(gc.get_objects(g)) for g in range(info["generation"] + 1)))

    gc.collect()
    before = gc.get_freeze_count()
    feed = ImportFeed([notes], "jsonl", ChunkOptions())
    gc.callbacks.append(seen)
    try:
        feed.start()
        junk = [[] for _ in range(5000)]  # past the restored young threshold: a collection comes now if any
    finally:
        gc.callbacks.remove(seen)
    assert junk and walked and max(walked) < 3000, walked  # the 3,000 entries (dicts) are walked by none
    assert gc.get_freeze_count() == before and gc.isenabled()
