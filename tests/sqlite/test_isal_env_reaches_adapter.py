"""MEMDOCK_ISAL=0 (docs/configuration.md) reaches the sqlite adapter's process: its text blocks are then zlib's.
The adapter's environment is an allowlist plus what adapter.json declares, so an undeclared variable never
crosses; this failed before MEMDOCK_ISAL was declared (the blocks stayed ISA-L's)."""

import sqlite3
import zlib
from pathlib import Path

import pytest

from memdock.bundle import BundleWriter
from memdock.ids import content_hash
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

isal_zlib = pytest.importorskip("isal.isal_zlib")


def _bundle(path: Path) -> Path:
    with BundleWriter(path, "chunks") as w:
        for i in range(300):
            text = f"note {i} " + " ".join(f"w{(i * j) % 997}" for j in range(60))
            w.write("chunk", {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": f"thread:{i // 10}",
                              "position": 0, "text": text, "start": 0, "end": len(text), "token_count": 61,
                              "content_hash": content_hash(text)})  # fmt: skip
    return path


def _blocks(store: Path) -> list[bytes]:
    conn = sqlite3.connect(next(store.rglob("memory.sqlite")))
    try:
        return [d for (d,) in conn.execute("SELECT data FROM text_blocks ORDER BY id")]
    finally:
        conn.close()


@pytest.mark.parametrize("off", [True, False])
def test_memdock_isal_reaches_the_adapter(tmp_path, monkeypatch, off):
    if off:
        monkeypatch.setenv("MEMDOCK_ISAL", "0")
    else:
        monkeypatch.delenv("MEMDOCK_ISAL", raising=False)
    store = tmp_path / "store"
    SubprocessBackend(Registry().get("sqlite"), store).index(_bundle(tmp_path / "b"))
    blocks = _blocks(store)
    assert blocks
    make = (lambda raw: zlib.compress(raw, 3)) if off else (lambda raw: isal_zlib.compress(raw, 3))
    assert all(make(zlib.decompress(d)) == d for d in blocks)
