"""Embedding vectors as a little-endian float32 matrix: any language can read it, no float parsing.

Rows are read through mmap, so looking at one row does not load the matrix.
"""

from __future__ import annotations

import mmap
import sys
from array import array
from pathlib import Path

from ..jsonl import PayloadError


class EmbeddingMatrix:
    def __init__(self, path: Path, rows: int, dim: int):
        self.path, self.rows, self.dim = path, rows, dim
        size = path.stat().st_size
        if size != rows * dim * 4:
            raise PayloadError(
                f"float32 matrix has {size} bytes but its index describes {rows} rows of dim {dim} ({rows * dim * 4} "
                "bytes)",
                file=path.name,
            )
        self._file = open(path, "rb")  # noqa: SIM115  (held for the mmap; closed by close())
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else None

    def row_bytes(self, i: int) -> bytes:
        if not 0 <= i < self.rows:
            raise IndexError(f"row {i} outside 0..{self.rows - 1}")
        stride = self.dim * 4
        assert self._map is not None
        return self._map[i * stride : (i + 1) * stride]

    def row(self, i: int) -> array[float]:
        a = array("f")
        a.frombytes(self.row_bytes(i))
        if sys.byteorder != "little":
            a.byteswap()
        return a

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
        self._file.close()

    def __enter__(self) -> EmbeddingMatrix:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
