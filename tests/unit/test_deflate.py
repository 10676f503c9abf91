"""A compressed part (a journal segment) deflated by ISA-L where it is installed holds the same lines as one deflated
by zlib, read back by any gzip reader; MEMDOCK_ISAL=0, or no isal, is zlib; levels ISA-L cannot match stay zlib's."""

from __future__ import annotations

import gzip
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import records_factory

from memdock.bundle import BundleReader, BundleWriter, deflate
from memdock.jsonl import PayloadError

ZLIB = type(zlib.compressobj())


@pytest.fixture(autouse=True)
def fresh_choice() -> Iterator[None]:
    deflate.isal_module.cache_clear()
    yield
    deflate.isal_module.cache_clear()


def segment(path: Path) -> Path:
    """Entries (a level 4 part), chunks that keep their own text (level 1) and edges (level 6)."""
    with BundleWriter(path, "chunks", validate=False, compress=True) as w:
        w.write("thread", records_factory.thread(0))
        for i in range(300):
            w.write("entry", records_factory.entry(i, body=f"note {i}: the ferry to pier {i % 7} runs late"))
            w.write("edge", records_factory.edge(i, thread_id="thread:0"))
            w.write("chunk", records_factory.chunk(i, f"chunk {i} of the harbour notes " * (1 + i % 5)))
    return path


def inflated(folder: Path) -> dict[str, bytes]:
    return {p.name: gzip.decompress(p.read_bytes()) for p in sorted(folder.glob("*.jsonl.gz"))}


def test_isal_parts_hold_the_lines_zlib_parts_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("isal")
    assert deflate.accelerated()
    fast = segment(tmp_path / "isal")
    monkeypatch.setenv(deflate.OFF, "0")
    deflate.isal_module.cache_clear()
    assert not deflate.accelerated()
    slow = segment(tmp_path / "zlib")
    fast_parts, slow_parts = inflated(fast), inflated(slow)
    assert fast_parts == slow_parts and len(fast_parts) == 4
    text_part = next(p for p in fast.glob("chunk-*.jsonl.gz"))  # chunks that keep their text: level 1
    assert text_part.read_bytes() != next(slow.glob("chunk-*.jsonl.gz")).read_bytes()  # ISA-L made it
    for folder in (fast, slow):
        reader = BundleReader(folder, validate=False, sealed=True)
        assert [r["text"] for r in reader.records("chunk")][-1] == "chunk 299 of the harbour notes " * 5
        assert len(list(reader.records("edge"))) == 300


def test_level_one_is_isal_and_level_six_is_zlib() -> None:
    isal_zlib = pytest.importorskip("isal.isal_zlib")
    assert not isinstance(deflate.compressor(1), ZLIB)
    assert type(deflate.compressor(1)) is type(isal_zlib.compressobj())
    assert isinstance(deflate.compressor(6), ZLIB)


def test_a_fast_level_asked_for_is_isal_at_that_level_and_zlib_without_isal(monkeypatch: pytest.MonkeyPatch) -> None:
    isal_zlib = pytest.importorskip("isal.isal_zlib")
    assert type(deflate.compressor(6, 3)) is type(isal_zlib.compressobj())
    monkeypatch.setenv(deflate.OFF, "0")
    deflate.isal_module.cache_clear()
    assert isinstance(deflate.compressor(6, 3), ZLIB)


def test_turned_off_or_not_installed_is_zlib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(deflate.OFF, "0")
    assert isinstance(deflate.compressor(1), ZLIB)
    monkeypatch.delenv(deflate.OFF)
    deflate.isal_module.cache_clear()
    monkeypatch.setitem(sys.modules, "isal", None)  # `import isal` raises ImportError
    assert isinstance(deflate.compressor(1), ZLIB)
    assert not deflate.accelerated()


def test_a_part_deflated_by_isal_that_is_damaged_is_refused_naming_it(tmp_path: Path) -> None:
    pytest.importorskip("isal")
    folder = segment(tmp_path / "isal")
    part = next(folder.glob("chunk-*.jsonl.gz"))
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(PayloadError, match=part.name.removesuffix(".gz")):
        list(BundleReader(folder, validate=False, sealed=True).records("chunk"))
