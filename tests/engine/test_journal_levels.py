"""A journal segment compresses its parts of short JSON lines (edges, chunks stored as spans of their entries)
hardest, entries' text less hard, and chunks that keep their text (a chunks bundle's) fastest: each part is gzip,
and gzip's header says which way its deflate stream leaned (XFL: 4 fastest, 2 best, 0 between). zlib's header,
that is: these run with ISA-L's deflate turned off (tests/unit/test_deflate.py checks the parts ISA-L writes)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import records_factory

from memdock.bundle import BundleReader, BundleWriter, deflate, writer

FASTEST, BETWEEN = 4, 0  # gzip's XFL byte: level 1, levels 2-8


@pytest.fixture(autouse=True)
def zlib_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(deflate.OFF, "0")
    deflate.isal_module.cache_clear()
    yield
    deflate.isal_module.cache_clear()


def xfl(part: Path) -> int:
    return part.read_bytes()[8]


def segment_of(tmp_path: Path, spans: bool) -> Path:
    """A segment of 50 entries with an edge and a chunk each; the chunk's text is its entry's body when SPANS."""
    segment = tmp_path / "00000001"
    with BundleWriter(segment, "chunks", validate=False, compress=True) as w:
        w.write("thread", records_factory.thread(0))
        for i in range(50):
            body = f"note {i}: the ferry to pier {i % 7} runs late"
            w.write("entry", records_factory.entry(i, body=body))
            w.write("edge", records_factory.edge(i, thread_id="thread:0"))
            text = body if spans else f"chunk {i} of the harbour notes"
            w.write("chunk", records_factory.chunk(i, text, entry_id=f"entry:{i}"))
    return segment


def test_edge_chunk_and_entry_parts_are_compressed_harder_than_threads_and_read_back(tmp_path: Path) -> None:
    segment = segment_of(tmp_path, spans=True)
    parts = {p.name.split("-")[0]: p for p in segment.glob("*.jsonl.gz")}
    assert xfl(parts["thread"]) == FASTEST
    assert xfl(parts["edge"]) == xfl(parts["chunk"]) == xfl(parts["entry"]) == BETWEEN
    assert all(gzip.decompress(p.read_bytes()) for p in parts.values())
    reader = BundleReader(segment, validate=False, sealed=True)
    assert [r["id"] for r in reader.records("edge")] == [f"edge:{i}" for i in range(50)]
    assert len(list(reader.records("chunk"))) == 50


def test_a_chunk_part_whose_chunks_keep_their_text_is_text_and_reads_back(tmp_path: Path) -> None:
    segment = segment_of(tmp_path, spans=False)
    parts = {p.name.split("-")[0]: p for p in segment.glob("*.jsonl.gz")}
    assert xfl(parts["chunk"]) == xfl(parts["thread"]) == FASTEST
    assert xfl(parts["edge"]) == xfl(parts["entry"]) == BETWEEN
    texts = [r["text"] for r in BundleReader(segment, validate=False, sealed=True).records("chunk")]
    assert texts == [f"chunk {i} of the harbour notes" for i in range(50)]


def test_a_chunk_part_of_spans_asks_for_isal_s_level_and_other_parts_do_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where ISA-L is installed a chunk part of spans and an entry part deflate at ISA-L's level 3 (as small as zlib's
    6 for the spans, see `bundle.deflate`); the other parts (thread, edge) ask for none."""
    asked: list[tuple[int, int | None]] = []
    real = writer.compressor

    def spy(level: int, fast_level: int | None = None) -> deflate.Compressor:
        asked.append((level, fast_level))
        return real(level, fast_level)

    monkeypatch.setattr(writer, "compressor", spy)
    segment = segment_of(tmp_path, spans=True)
    assert sorted(asked, key=str) == sorted([(1, None), (4, 3), (6, None), (6, 3)], key=str)
    texts = [r["text"] for r in BundleReader(segment, validate=False, sealed=True).records("chunk")]
    assert texts == [f"note {i}: the ferry to pier {i % 7} runs late" for i in range(50)]
