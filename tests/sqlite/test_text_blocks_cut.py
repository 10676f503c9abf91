"""text_blocks._Packer.cut re-compresses a trimmed block only from its mark on: the blocks, their ends and their
bytes are those of a packer that compresses every try from scratch (the store is the same), whatever bodies come."""

from __future__ import annotations

import random
import sqlite3
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import block_deflate, text_blocks


@pytest.fixture(autouse=True)
def _zlib(monkeypatch):
    """These tests are of zlib's compressor copied at the mark (ISA-L's has no copy: test_block_deflate.py)."""
    monkeypatch.setattr(block_deflate, "isal", lambda: None)


class _FromScratch(text_blocks._Packer):
    """The packer as first written: each try compressed whole."""

    def cut(self, raw: Sequence[bytes], start: int) -> tuple[int, bytes]:
        end = self._upto(raw, start, self.fill / self.ratio)
        data = zlib.compress(b"".join(raw[start:end]), text_blocks.LEVEL)
        while len(data) > self.fill and end - start > 1:
            size = sum(map(len, raw[start:end]))
            end = min(end - 1, self._upto(raw, start, size * self.fill / len(data) * 0.97))
            data = zlib.compress(b"".join(raw[start:end]), text_blocks.LEVEL)
        self.ratio = max(0.05, len(data) / max(1, sum(map(len, raw[start:end]))))
        return end, data


def _bodies(seed: int, n: int) -> list[str]:
    """Bodies whose compressibility drifts from one stretch to the next (words of a vocabulary that grows and
    shrinks a little at a time, now and then noise), so the ratio the block before gave is often a little wrong
    (a trim from the mark) and now and then far (a trim from the start)."""
    rnd = random.Random(seed)
    pool = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(2, 9))) for _ in range(3000)]
    out: list[str] = []
    vocabulary = 300
    while len(out) < n:
        stretch = rnd.randint(5, 60)
        if rnd.random() < 0.03:
            out += ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(rnd.randint(1, 900)))
                    for _ in range(stretch)]  # fmt: skip
            continue
        vocabulary = min(3000, max(20, int(vocabulary * rnd.uniform(0.85, 1.2))))
        words = rnd.sample(pool, vocabulary)
        out += [" ".join(rnd.choice(words) for _ in range(rnd.randint(40, 120))) for _ in range(stretch)]
    return out[:n]


def _blocks(packer: type[text_blocks._Packer], bodies: list[str], page_size: int) -> list[tuple[int, bytes]]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("CREATE TABLE text_blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB)")
    raw = [b.encode() for b in bodies]
    cutter, start, out = packer(conn), 0, []
    while start < len(raw):
        end, data = cutter.cut(raw, start)
        out.append((end, data))
        start = end
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("page_size", [1024, 4096, 8192])
def test_blocks_are_those_compressed_from_scratch(seed, page_size, monkeypatch):
    bodies = _bodies(seed, 3000)
    fill = text_blocks.fill_bytes(page_size, text_blocks.PAGES)
    got = _blocks(text_blocks._Packer, bodies, page_size)
    assert got == _blocks(_FromScratch, bodies, page_size)
    starts = [0] + [end for end, _ in got[:-1]]
    raw = [b.encode() for b in bodies]
    for start, (end, data) in zip(starts, got):
        assert data == zlib.compress(b"".join(raw[start:end]), text_blocks.LEVEL)
        assert len(data) <= fill or end - start == 1


def test_the_bodies_make_trims_that_reach_their_mark_and_some_that_do_not(monkeypatch):
    """The test above is worth something only if both ways of a trim happen in it: a block's compressor is copied
    once at its mark, and once more for each trim from there; a trim past the mark compresses whole."""
    seen = {"copies": 0, "whole": 0}
    real, whole = zlib.compressobj, zlib.compress

    class Counting:
        def __init__(self, level: int = 0, z=None):
            self.z = real(level) if z is None else z

        def compress(self, data: bytes) -> bytes:
            return self.z.compress(data)

        def flush(self) -> bytes:
            return self.z.flush()

        def copy(self) -> Counting:
            seen["copies"] += 1
            return Counting(z=self.z.copy())

    def counted(data: bytes, level: int) -> bytes:
        seen["whole"] += 1
        return whole(data, level)

    monkeypatch.setattr(text_blocks.zlib, "compressobj", Counting)
    monkeypatch.setattr(text_blocks.zlib, "compress", counted)
    cuts = len(_blocks(text_blocks._Packer, _bodies(0, 3000), 4096))
    assert seen["copies"] - cuts > 0 and seen["whole"] > 0, (seen, cuts)
