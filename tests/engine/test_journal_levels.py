"""A journal segment compresses its parts of short JSON lines (edges, chunks) harder than its entries' text: each
part is gzip, and gzip's header says which way its deflate stream leaned (XFL: 4 fastest, 2 best, 0 between)."""

from __future__ import annotations

import gzip
from pathlib import Path

from support import records_factory

from memdock.bundle import BundleReader, BundleWriter

FASTEST, BETWEEN = 4, 0  # gzip's XFL byte: level 1, levels 2-8


def xfl(part: Path) -> int:
    return part.read_bytes()[8]


def test_edge_and_chunk_parts_are_compressed_harder_than_entries_and_read_back(tmp_path: Path) -> None:
    segment = tmp_path / "00000001"
    with BundleWriter(segment, "chunks", validate=False, compress=True) as w:
        w.write("thread", records_factory.thread(0))
        for i in range(50):
            w.write("entry", records_factory.entry(i, body=f"note {i}: the ferry to pier {i % 7} runs late"))
            w.write("edge", records_factory.edge(i, thread_id="thread:0"))
            w.write("chunk", records_factory.chunk(i, f"chunk {i} of the harbour notes", entry_id=f"entry:{i}"))
    parts = {p.name.split("-")[0]: p for p in segment.glob("*.jsonl.gz")}
    assert xfl(parts["entry"]) == FASTEST
    assert xfl(parts["edge"]) == xfl(parts["chunk"]) == BETWEEN
    assert all(gzip.decompress(p.read_bytes()) for p in parts.values())
    reader = BundleReader(segment, validate=False, sealed=True)
    assert [r["id"] for r in reader.records("edge")] == [f"edge:{i}" for i in range(50)]
    assert len(list(reader.records("chunk"))) == 50
