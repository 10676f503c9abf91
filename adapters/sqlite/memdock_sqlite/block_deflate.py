"""The deflate text blocks (text_blocks.py) are written with: ISA-L's (python-isal, in memdock's `fast` extra) where
it is importable, else the standard library's zlib. Both write the same format, a zlib stream, so a block is read
with zlib alone whichever wrote it: a store written where ISA-L is installed reads where it is not.

On bench/peers.py's synthetic chunk bodies (14.2 MB), packed into 2-page blocks, zlib's level 3 took 0.18 s CPU to
0.477 of the bodies' bytes and ISA-L's level 3 0.05 s to 0.461 (the notes' and the markdown's figures are in
docs/performance.md). ISA-L's compressor has no `copy`, so `_Whole` stands in for one: it keeps the pieces it is
given and deflates them whole at `flush` (a trimmed block is deflated again from its start, which at ISA-L's
speed still costs less than zlib's one pass).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from types import ModuleType
from typing import Protocol

from memdock.bundle import deflate

ISAL_LEVEL = 3  # ISA-L's highest: on the synthetic bodies smaller than its 1 (0.476) and 2 (0.470) at the same CPU
OFF = deflate.OFF  # set to 0 to deflate with zlib even where ISA-L is installed


class Deflate(Protocol):
    def compress(self, data: bytes, /) -> bytes: ...

    def flush(self) -> bytes: ...

    def copy(self) -> Deflate: ...


class _Whole:
    """A compressor for a deflate with no `copy`: the pieces given are kept, and deflated as one at `flush`."""

    def __init__(self, deflate: Callable[[bytes], bytes], parts: list[bytes] | None = None):
        self.deflate = deflate
        self.parts = parts if parts is not None else []

    def compress(self, data: bytes, /) -> bytes:
        self.parts.append(data)
        return b""

    def flush(self) -> bytes:
        return self.deflate(b"".join(self.parts))

    def copy(self) -> _Whole:
        return _Whole(self.deflate, list(self.parts))


def compress(data: bytes, level: int) -> bytes:
    """DATA as a zlib stream: by ISA-L at ISAL_LEVEL where it is in use, else by zlib at LEVEL."""
    fast = isal()
    return zlib.compress(data, level) if fast is None else fast.compress(data, ISAL_LEVEL)


def compressobj(level: int) -> Deflate:
    """A compressor of one zlib stream, as `compress` chooses its deflate."""
    if isal() is None:
        return zlib.compressobj(level)
    return _Whole(lambda data: compress(data, level))


def isal() -> ModuleType | None:
    """ISA-L's zlib module where it is installed and not turned off (memdock.bundle.deflate.OFF), else None: the
    journal's choice, made once a process."""
    return deflate.isal_module()
