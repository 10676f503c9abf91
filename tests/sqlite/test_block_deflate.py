"""Text blocks deflated by ISA-L where it is installed (block_deflate.py), compressed on a worker thread
(block_worker.py): a store's blocks read back with the standard library's zlib alone, the blocks cut as zlib's
packer cuts them (each within its pages), and the worker's placement the same as text_blocks.place's."""

from __future__ import annotations

import random
import sqlite3
import sys
import zlib
from pathlib import Path

import pytest
from test_text_blocks_cut import _bodies

from memdock.bundle import deflate

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import block_deflate, block_worker, text_blocks

isal_zlib = pytest.importorskip("isal.isal_zlib")  # the dev extra installs it


def _conn(page_size: int = 4096) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("CREATE TABLE text_blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL)")
    return conn


def _blocks(conn: sqlite3.Connection) -> list[tuple[int, bytes]]:
    return conn.execute("SELECT id, data FROM text_blocks ORDER BY id").fetchall()


@pytest.mark.parametrize("page_size", [1024, 8192])
def test_blocks_deflated_by_isal_read_with_zlib_alone(page_size, monkeypatch):
    assert block_deflate.isal() is isal_zlib
    bodies = _bodies(1, 2000)
    conn = _conn(page_size)
    placed = text_blocks.place(conn, [""] * len(bodies), bodies)
    blocks = _blocks(conn)
    fill = text_blocks.fill_bytes(page_size, text_blocks.PAGES)
    raw = [b.encode() for b in bodies]
    start = 0
    for _, data in blocks:  # each block is ISA-L's deflate of its bodies, within its pages
        text = zlib.decompress(data)
        end = start + next(k for k in range(len(raw) - start + 1) if sum(map(len, raw[start : start + k])) == len(text))
        assert data == isal_zlib.compress(b"".join(raw[start:end]), block_deflate.ISAL_LEVEL)
        assert len(data) <= fill or end - start == 1
        start = end
    assert start == len(raw)
    assert any(data != zlib.compress(zlib.decompress(data), text_blocks.LEVEL) for _, data in blocks)
    monkeypatch.setitem(sys.modules, "isal", None)  # the reader needs no ISA-L
    monkeypatch.setitem(sys.modules, "isal.isal_zlib", None)
    read = text_blocks.Reader(conn)
    assert [read(b, s) for b, s, *_ in placed] == bodies


def test_a_trimmed_block_is_deflated_again_from_its_start():
    """ISA-L's compressor has no copy: the stand-in's copy deflates the pieces it holds and those given after."""
    z = block_deflate.compressobj(text_blocks.LEVEL)
    assert z.compress(b"head ") == b""
    kept = z.copy()
    assert zlib.decompress(z.compress(b"one tail") + z.flush()) == b"head one tail"
    other = kept.copy()
    assert zlib.decompress(other.compress(b"two") + other.flush()) == b"head two"


def test_isal_turned_off_deflates_with_zlib(monkeypatch):
    monkeypatch.setenv(block_deflate.OFF, "0")
    deflate.isal_module.cache_clear()
    try:
        assert block_deflate.isal() is None
        assert block_deflate.compress(b"words " * 100, 3) == zlib.compress(b"words " * 100, 3)
        conn = _conn()
        text_blocks.place(conn, [""] * 300, _bodies(2, 300))
        assert all(data == zlib.compress(zlib.decompress(data), text_blocks.LEVEL) for _, data in _blocks(conn))
    finally:
        monkeypatch.delenv(block_deflate.OFF)
        deflate.isal_module.cache_clear()


@pytest.mark.parametrize("isal_on", [True, False])
def test_the_worker_places_bodies_as_place_does(isal_on, monkeypatch):
    if not isal_on:
        monkeypatch.setattr(block_deflate, "isal", lambda: None)
    bodies = _bodies(3, 1500)
    bodies[7] = "a lone \ud800 surrogate"  # left in its row for SQLite to refuse, as place leaves it
    headers = ["" if k % 3 else f"[thread {k}] · Zoë" for k in range(len(bodies))]  # kept before their bodies
    by_place, by_worker = _conn(), _conn()
    by_place.execute("INSERT INTO text_blocks(data) VALUES (x'00')")  # ids go on from the ones there
    by_worker.execute("INSERT INTO text_blocks(data) VALUES (x'00')")
    expected = text_blocks.place(by_place, headers, bodies)
    packing = block_worker.Packing(by_worker, headers, bodies)
    assert _blocks(by_worker) == _blocks(by_place)[:1]  # nothing stored before placed()
    assert packing.placed() == expected
    assert packing.placed() == expected  # stored once
    assert _blocks(by_worker) == _blocks(by_place)
    assert expected[7] == (None, None, bodies[7], None)
    read = text_blocks.Reader(by_worker)
    assert [read(b, s) for b, s, _, _ in expected if b] == [b for k, b in enumerate(bodies) if k != 7]
    heads = [(read(b, ((s >> 32) - h) << 32 | h), k) for k, (b, s, _, h) in enumerate(expected) if h]
    assert heads == [(headers[k], k) for k in range(0, len(bodies), 3)]


def test_an_error_on_the_worker_is_raised_by_placed(monkeypatch):
    def broken(data: bytes, level: int) -> bytes:
        raise MemoryError("deflate failed")

    monkeypatch.setattr(block_deflate, "compress", broken)
    monkeypatch.setattr(block_deflate, "compressobj", lambda level: block_deflate._Whole(lambda d: broken(d, level)))
    conn = _conn()
    packing = block_worker.Packing(conn, [""] * 50, _bodies(4, 50))
    with pytest.raises(MemoryError, match="deflate failed"):
        packing.placed()
    assert _blocks(conn) == []


def test_isal_blocks_fill_their_pages():
    """As test_layout8's test of zlib's blocks: each block but the last fills its pages to within a few per cent,
    none past them, and takes no more pages than its share."""
    conn = sqlite3.connect(":memory:")
    conn.execute("PRAGMA page_size = 8192")
    conn.execute("CREATE TABLE text_blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL)")
    pick = random.Random(0)  # test_layout8's notes of words drawn at random
    words = [f"{pick.choice('bcdfghklmnprstvz')}{pick.choice('aeiou')}{pick.randrange(10**6)}" for _ in range(5000)]
    text_blocks.place(conn, [""] * 1500, [" ".join(pick.choice(words) for _ in range(30)) for _ in range(1500)])
    fill = text_blocks.fill_bytes(8192, text_blocks.PAGES)
    sizes = [len(data) for _, data in _blocks(conn)]
    assert len(sizes) > 4 and max(sizes) <= fill, (sizes, fill)
    assert min(sizes[:-1]) > 0.85 * fill, (sizes, fill)
    pages = conn.execute("SELECT count(*) FROM dbstat WHERE name = 'text_blocks' AND pagetype = 'overflow'").fetchone()
    assert pages[0] <= (text_blocks.PAGES - 1) * len(sizes), (pages, len(sizes))
