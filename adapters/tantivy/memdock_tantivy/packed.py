"""Chunks' stored records compressed with a zstd dictionary (layout 4).

tantivy compresses its doc store in 16 KB lz4 blocks; the wheel has no zstd. A chunk's stored record (its text and
ids as JSON) is therefore compressed here, one record at a time, with a dictionary trained on the store's first
chunks: on the 20k short notes of bench/peers.py the chunks' doc store went from 0.75x to about 0.5x the text.
The graph's records (mostly edges, alike from one to the next) stay in tantivy's lz4 blocks, which hold them in
less space than a dictionary does one by one.

The dictionary is `<data dir>/chunks.zdict`, written (and synced) before the first commit of a record packed
with it, then named in the store's marker file, and never replaced: a store whose marker names it but has lost
the file stores new chunks as JSON and names the file when a packed one is read. A run with fewer than
MIN_SAMPLES chunks before the store has a dictionary stores its chunks as plain JSON, as layouts 1-3 do; a record
is read by its first byte (`{` is JSON, 0x03 binrec's form of layout 8, anything else a zstd frame), so a
store can hold both. Layout 8 packs binrec's records; its dictionary is trained on them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import zstandard

from memdock.diskfull import disk_full_as_error
from memdock.errors import BackendError

DICT = "chunks.zdict"
MIN_SAMPLES = 256  # chunks a dictionary is trained on, at the least
SAMPLES = 4000  # and at the most (training takes time in proportion: about 0.05 s for these)
DICT_BYTES = 112_640  # zstd's default dictionary size
LEVEL = 3
UNPACKED = (b"{", b"\x03")  # the first byte of a record stored as it is: JSON, binrec's form (layout 8)


class Packer:
    """Packs and unpacks stored records with the store's dictionary; ENABLED: the store's layout packs. MARKER is
    the store's marker file (JSON), which names the dictionary once there is one."""

    def __init__(self, data_dir: Path, enabled: bool, marker: Path):
        self.path, self.enabled, self.marker = data_dir / DICT, enabled, marker
        self._pack: zstandard.ZstdCompressor | None = None
        self._unpack: zstandard.ZstdDecompressor | None = None
        if self.path.exists():
            try:
                self._load(self.path.read_bytes())
            except (OSError, zstandard.ZstdError):
                pass  # unpack names the file; train never replaces it

    def _load(self, raw: bytes) -> None:
        zdict = zstandard.ZstdCompressionDict(raw)
        self._pack = zstandard.ZstdCompressor(level=LEVEL, dict_data=zdict, write_checksum=False)
        self._unpack = zstandard.ZstdDecompressor(dict_data=zdict)

    @property
    def ready(self) -> bool:
        return self._pack is not None

    @property
    def untrained(self) -> bool:
        """The layout packs and the store has no dictionary yet (nor had one)."""
        return self.enabled and not self.path.exists() and not self._named()

    def _named(self) -> bool:
        try:
            return json.loads(self.marker.read_text()).get("dictionary") == DICT
        except (OSError, ValueError, AttributeError):
            return False

    def train(self, samples: list[bytes]) -> None:
        """Train the store's dictionary on SAMPLES (stored records) when the layout packs and there is none yet;
        too few samples, or a training that fails, leave the records unpacked."""
        if not self.untrained or len(samples) < MIN_SAMPLES:
            return
        picked: list[Any] = samples[:SAMPLES]  # the stubs want list[bytes | bytearray | memoryview]
        size = min(DICT_BYTES, sum(map(len, picked)) // 8)
        try:
            # k and d given: zstd's search for them took three times as long for a dictionary no better
            raw = zstandard.train_dictionary(size, picked, k=1024, d=8, level=LEVEL).as_bytes()
        except zstandard.ZstdError:
            return
        self._write(raw)
        self._load(raw)

    def _write(self, raw: bytes) -> None:
        """The dictionary RAW in its file, then named in the marker, each written whole or not at all: a full disk
        is disk_full naming the file, its temporary copy gone (a dictionary in place that the marker does not name
        yet is still loaded, and the next run packs with it)."""
        tmp = self.path.with_name(f".{DICT}.tmp")
        with disk_full_as_error(self.path, "writing the chunks' compression dictionary"):
            try:
                with open(tmp, "wb") as f:
                    f.write(raw)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            finally:
                tmp.unlink(missing_ok=True)
        meta = {**json.loads(self.marker.read_text()), "dictionary": DICT}
        tmp = self.marker.with_name(f".{self.marker.name}.tmp")
        with disk_full_as_error(self.marker, "naming the compression dictionary in the marker"):
            try:
                tmp.write_text(json.dumps(meta))
                os.replace(tmp, self.marker)
            finally:
                tmp.unlink(missing_ok=True)

    def pack(self, record: bytes) -> bytes:
        return self._pack.compress(record) if self._pack is not None else record

    def unpack(self, stored: bytes) -> bytes:
        if stored[:1] in UNPACKED:
            return stored
        if self._unpack is None:
            raise BackendError(
                f"{self.path}: missing or unreadable; the chunks' stored records were compressed with it, so they "
                "cannot be read (search still ranks them). Restore the file from a backup of the store.",
                details={"dictionary": str(self.path)},
            )
        try:
            return self._unpack.decompress(stored)
        except zstandard.ZstdError as exc:
            raise BackendError(
                f"{self.path}: a chunk's stored record does not decompress with it ({exc})",
                details={"dictionary": str(self.path)},
            ) from None
