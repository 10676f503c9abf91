"""The journal keeps each text once (format 2, `bundle/spans.py`): a chunk whose text is its entry's body, or a
span of it after its header line, is stored as that span. Whatever reads the journal (`read`, export, inflate for
an adapter, forget's rewrite) gets back the records as they were sent, record by record; journals written before
(format 1) read as before; a part from a newer memdock is refused naming both formats."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import records_factory

from memdock.bundle import BundleReader, BundleWriter, spans
from memdock.bundle.spans import FORMAT, HEADER, Bodies, decode
from memdock.chunking import ChunkOptions, chunk_bundle
from memdock.chunking.chunker import Chunker
from memdock.engine.delta import build_delta
from memdock.engine.journal import Journal, inflate, read
from memdock.engine.ledger import Ledger
from memdock.ids import content_hash
from memdock.importers.pipeline import import_corpus
from memdock.jsonl import PayloadError

CORPORA = {
    "watercooler": ("watercooler_threads", "watercooler"),
    "locomo": ("locomo/locomo_dev.json", "chat"),
    "markdown-folder": ("watercooler_threads", "text"),
}
OPTIONS = {
    "default": ChunkOptions(),
    "overlapping-headed": ChunkOptions(max_tokens=48, overlap=12, header="on"),
    "header-off": ChunkOptions(max_tokens=200, overlap=0, header="off"),
}
TYPES = ("thread", "entry", "entity", "edge", "chunk")


def records(reader: BundleReader) -> dict[str, list[dict[str, Any]]]:
    return {t: list(reader.records(t)) for t in reader.record_types()}


def spans_expected(recs: dict[str, list[dict[str, Any]]]) -> int:
    """How many chunks hold their entry's body[start:end] as their text, after their header line or not."""
    bodies = {e["id"]: e.get("body") for e in recs["entry"]}
    n = 0
    for c in recs["chunk"]:
        body = bodies.get(c["entry_id"])
        span = body[c["start"] : c["end"]] if isinstance(body, str) else None
        n += span is not None and c["text"] in (span, f"{c.get('header')}\n{span}")
    return n


def stored(segment: Path, rtype: str) -> bytes:
    return b"".join(gzip.decompress(p.read_bytes()) for p in sorted(segment.glob(f"{rtype}-*.jsonl.gz")))


def journalled(tmp: Path, bundle: Path) -> tuple[Journal, Ledger, Path]:
    """BUNDLE indexed as a first run writes its journal (the delta), every record committed."""
    journal = Journal(tmp / "journal")
    ledger = Ledger(tmp / "ledger.sqlite")
    segment = journal.next_segment()
    build_delta(BundleReader(bundle, trust_seal=True), ledger, segment, fresh=True)
    ledger.commit_all_pending()
    ledger.finish_run()
    return journal, ledger, segment


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_the_shared_corpora_round_trip_through_the_journal_record_by_record(
    shared_data: Path, tmp_path: Path, corpus: str, options: str
) -> None:
    rel, fmt = CORPORA[corpus]
    import_corpus([shared_data / rel], fmt, tmp_path / "corpus", overwrite=True)
    chunk_bundle(tmp_path / "corpus", tmp_path / "chunks", OPTIONS[options], overwrite=True)
    sent = records(BundleReader(tmp_path / "chunks"))
    journal, ledger, segment = journalled(tmp_path, tmp_path / "chunks")

    assert records(read(segment)) == sent
    chunk_part = stored(segment, "chunk")
    spans = chunk_part.count(b"\n@")
    assert spans == spans_expected(sent) > 0.9 * len(sent["chunk"]), "each span chunk is stored as its span"
    for c in sent["chunk"][:200]:
        assert orjson.dumps(c["text"]) not in chunk_part and c["content_hash"].encode() not in chunk_part

    plain = inflate(segment, tmp_path / "inflated")  # what an adapter that reads no gzip is handed
    assert BundleReader(plain).verify() == [] and records(BundleReader(plain)) == sent

    out = journal.export(ledger, tmp_path / "export").path
    by_id = {r["id"]: r for rs in records(BundleReader(out)).values() for r in rs}
    assert by_id == {r["id"]: r for rs in sent.values() for r in rs}

    gone = {e["id"] for e in sent["entry"][::3]}  # their chunks stay: written in full by the rewrite
    gone |= {c["id"] for c in sent["chunk"][1::4]}
    assert journal.forget(gone) == 1
    assert records(read(segment)) == {t: [r for r in rs if r["id"] not in gone] for t, rs in sent.items()}
    ledger.close()


def small_bundle(path: Path) -> Path:
    """Two entries and chunks that are, and are not, spans of them."""
    body = ["The kite festival moves to pier 4. Bring string.", "Ferries run late on Sundays; the café shuts at 6."]
    with BundleWriter(path, "chunks", chunker={"name": "t", "version": "1", "params": {}}) as w:
        w.write("thread", records_factory.thread(0))
        for i, b in enumerate(body):
            w.write("entry", records_factory.entry(i, body=b))

        def chunk(n: int, entry: int, text: str, start: int, **more: Any) -> None:
            rec = records_factory.chunk(n, text, entry_id=f"entry:{entry}", position=n, start=start, **more)
            w.write("chunk", {**rec, "end": start + len(text) - len(more.get("header", ""))})

        chunk(0, 0, body[0][:34], 0)  # a span
        chunk(1, 1, "[t] · Ann\n" + body[1][8:], 8, header="[t] · Ann")  # a span after its header
        chunk(2, 1, body[1] + " (edited)", 0)  # not a span: keeps its text
        chunk(3, 0, body[0][5:20], 5)  # a span, but of an entry before the last one referred to
        chunk(4, 1, body[1][-9:], 0)  # a span elsewhere than its start says
    return path


def test_a_chunk_that_is_not_a_span_keeps_its_text_and_every_chunk_reads_back(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "in")
    sent = records(BundleReader(bundle))
    journal, ledger, segment = journalled(tmp_path, bundle)
    part = stored(segment, "chunk")
    assert part.startswith(HEADER)
    kept = [line for line in part.splitlines()[1:] if line.startswith(b"{")]
    assert [orjson.loads(line)["id"] for line in kept] == ["chunk:2", "chunk:3"]
    assert part.count(b"\n@") == 3
    assert records(read(segment)) == sent
    ledger.close()


def test_a_journal_written_before_each_text_was_kept_once_still_reads(tmp_path: Path) -> None:
    """A format 1 segment (its parts gzip-compressed as they were sent, no header) beside a format 2 one."""
    bundle = small_bundle(tmp_path / "in")
    sent = records(BundleReader(bundle))
    journal, ledger, segment = journalled(tmp_path, bundle)
    old = tmp_path / "journal" / "00000000"
    with BundleWriter(old, "chunks", validate=False) as w:
        for rtype in TYPES:
            for rec in sent.get(rtype, []):
                w.write(rtype, rec)
    for part in old.glob("*.jsonl"):
        part.with_name(part.name + ".gz").write_bytes(gzip.compress(part.read_bytes()))
        part.unlink()
    assert not gzip.decompress(next(old.glob("chunk-*")).read_bytes()).startswith(b"#")
    assert records(read(old)) == sent == records(read(segment))
    exported = records(BundleReader(journal.export(ledger, tmp_path / "out").path))
    assert {t: sorted(r["id"] for r in rs) for t, rs in exported.items()} == {
        t: sorted(r["id"] for r in rs) for t, rs in sent.items()
    }
    ledger.close()


def test_a_journal_part_from_a_newer_memdock_is_refused_naming_both_formats(tmp_path: Path) -> None:
    journal, ledger, segment = journalled(tmp_path, small_bundle(tmp_path / "in"))
    part = next(segment.glob("chunk-*.jsonl.gz"))
    newer = gzip.decompress(part.read_bytes()).replace(HEADER, b"#memdock-journal %d\n" % (FORMAT + 1), 1)
    part.write_bytes(gzip.compress(newer))
    with pytest.raises(PayloadError) as err:
        list(read(segment).records("chunk"))
    said = str(err.value)
    assert f"journal format {FORMAT + 1}" in said and f"up to {FORMAT}" in said and part.name in said
    ledger.close()


def test_a_damaged_span_line_is_an_error_naming_the_file_and_line(tmp_path: Path) -> None:
    journal, ledger, segment = journalled(tmp_path, small_bundle(tmp_path / "in"))
    part = next(segment.glob("chunk-*.jsonl.gz"))
    lines = gzip.decompress(part.read_bytes()).split(b"\n")
    lines[2] = b"@9" + lines[2][2:]  # the header-prefixed span now points past the segment's two entries
    part.write_bytes(gzip.compress(b"\n".join(lines)))
    with pytest.raises(PayloadError) as err:
        list(read(segment).records("chunk"))
    assert part.name in str(err.value) and err.value.line == 2 and "entry #10" in str(err.value)
    ledger.close()


@settings(max_examples=300, deadline=None)
@given(body=st.text(), cut=st.tuples(st.integers(0, 60), st.integers(0, 60)), header=st.none() | st.text())
def test_any_span_of_any_text_is_put_back_byte_for_byte(body: str, cut: tuple[int, int], header: str | None) -> None:
    start, end = min(cut), max(cut)
    span = body[start:end]
    text = span if header is None else f"{header}\n{span}"
    rec: dict[str, Any] = {"id": "chunk:0", "entry_id": "entry:0", "text": text, "start": start, "end": end}
    if header is not None:
        rec["header"] = header
    rec["content_hash"] = content_hash(text)
    line = orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE)
    bodies = Bodies()
    bodies.note([orjson.dumps({"id": "entry:0", "body": body}) + b"\n"])
    [kept] = bodies.encode([line])
    assert kept.startswith(b"@") and decode(kept, body) == line


@settings(max_examples=300, deadline=None)
@given(body=st.text(), header=st.sampled_from(["", "[t] · ana · 2024-01-01", 'say "hi" \\', 'ünï\\"x']))
def test_chunks_the_chunker_made_are_stored_as_the_checked_path_stores_them(body: str, header: str) -> None:
    """`memdock add` tells the journal its chunks are the chunker's (MADE): their text and hash are found in the
    line without being checked again. Every chunk the chunker makes of any text is stored as the checked path
    stores it (and decodes to its line)."""
    entry = {"id": "entry:0", "thread_id": "thread:t", "body": body, "title": header or None}
    chunker = Chunker(ChunkOptions(max_tokens=8, overlap=2, header="on" if header else "off"))
    try:
        chunks = list(chunker.iter_chunks(entry, {"title": None}))
        lines = [orjson.dumps(c, option=orjson.OPT_APPEND_NEWLINE) for c in chunks]
    except (orjson.JSONEncodeError, UnicodeEncodeError):  # a lone surrogate: no chunk line is ever made of it
        return
    stored = {}
    for made in (False, True):
        bodies = Bodies()
        bodies.note([orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)], [entry])
        stored[made] = list(bodies.encode(lines, chunks, made=made))
    assert stored[True] == stored[False]
    assert [decode(s, body) if s[:1] == b"@" else s for s in stored[True]] == lines


def test_a_made_chunk_line_without_its_text_string_is_kept_as_it_is() -> None:
    """A line said to be made of its record but holding no text string (or one that never ends) keeps its text."""
    body = "the ferry runs late"
    entry = {"id": "entry:0", "thread_id": "thread:t", "body": body}
    chunk = {"id": "chunk:0", "entry_id": "entry:0", "text": body, "start": 0, "end": len(body)}
    chunk["content_hash"] = content_hash(body)
    for line in (b'{"id":"chunk:0","entry_id":"entry:0"}\n', b'{"id":"chunk:0","text":"the ferry runs late\\"}\n'):
        bodies = Bodies()
        bodies.note([orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)], [entry])
        assert list(bodies.encode([line], [chunk], made=True)) == [line]


def test_chunks_of_entries_past_the_bodies_a_writer_holds_keep_their_text(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(spans, "MAX_HELD_BYTES", sys.getsizeof("x" * 60))  # room for the first entry's body only
    bundle = small_bundle(tmp_path / "in")
    sent = records(BundleReader(bundle))
    journal, ledger, segment = journalled(tmp_path, bundle)
    kept = [orjson.loads(x)["id"] for x in stored(segment, "chunk").splitlines()[1:] if x.startswith(b"{")]
    assert kept == ["chunk:1", "chunk:2", "chunk:4"]  # the second entry's chunks
    assert records(read(segment)) == sent
    ledger.close()


def test_spans_found_from_the_records_handed_in_match_those_found_by_decoding_each_line() -> None:
    """The one pass hands the writer its entry and chunk dicts with their lines (no line is decoded again); a
    record that does not match its line costs only its span: the line is kept as it is, never stored wrong."""
    body = "alpha beta gamma delta epsilon"
    entry = {"id": "entry:1", "thread_id": "thread:t", "body": body}
    chunks = [
        {"id": f"chunk:{i}", "entry_id": "entry:1", "text": f"H\n{body[s:e]}", "header": "H", "start": s, "end": e}
        for i, (s, e) in enumerate([(0, 10), (6, 22), (17, len(body))])
    ]
    for c in chunks:
        c["content_hash"] = content_hash(c["text"])
    lines = [orjson.dumps(c, option=orjson.OPT_APPEND_NEWLINE) for c in chunks]

    def stored_with(records: list[dict[str, Any]] | None) -> list[bytes]:
        bodies = Bodies()
        bodies.note([orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)], None if records is None else [entry])
        return list(bodies.encode(lines, records))

    by_lines = stored_with(None)
    assert [s[:1] for s in by_lines] == [b"@"] * 3 and stored_with(chunks) == by_lines
    assert [decode(s, body) for s in by_lines] == lines
    wrong = [chunks[0], {**chunks[1], "start": 0, "end": 9, "text": "H\n" + body[:9]}, chunks[2]]
    assert stored_with(wrong) == [by_lines[0], lines[1], by_lines[2]]


def test_a_body_is_let_go_once_a_later_entry_has_a_span_so_entries_in_turn_all_fit(monkeypatch) -> None:
    """`memdock add` writes each entry's chunks after it: the bodies a writer holds are those not yet passed, so
    a corpus far larger than MAX_HELD_BYTES keeps every chunk a span (before, the chunks of every entry past the
    first MAX_HELD_BYTES of bodies kept their text)."""
    monkeypatch.setattr(spans, "MAX_HELD_BYTES", 2 * sys.getsizeof("x" * 60))  # room for two bodies
    bodies = Bodies()
    for i in range(20):
        body = f"entry {i:02d} says the ferry runs late on tuesdays"
        entry = {"id": f"entry:{i}", "thread_id": "thread:t", "body": body}
        chunk = {"id": f"chunk:{i}", "entry_id": entry["id"], "text": body, "start": 0, "end": len(body)}
        chunk["content_hash"] = content_hash(body)
        line = orjson.dumps(chunk, option=orjson.OPT_APPEND_NEWLINE)
        bodies.note([orjson.dumps(entry, option=orjson.OPT_APPEND_NEWLINE)], [entry])
        [stored_line] = bodies.encode([line], [chunk])
        assert stored_line.startswith(b"@") and decode(stored_line, body) == line, i
    assert len(bodies.by_id) == 1 and bodies.held == sys.getsizeof(body)
