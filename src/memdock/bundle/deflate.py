"""The deflate a compressed part (a journal segment) is written with: the standard library's zlib, or ISA-L's
(python-isal, in the `fast` extra) where it is installed, for the levels it deflates as small.

Either writes the same format (gzip members any gzip reader inflates); only the speed and the exact bytes differ.
On bench/peers.py's 100k synthetic chunks (97 MB of chunk lines that keep their text, the part `memdock index` of a
chunks bundle writes at level 1) zlib's level 1 took 0.83 CPU s to 0.428 of the bytes and ISA-L's level 1 0.24 s
to 0.426: the largest piece of the parent's CPU in that index. zlib's level 6 (short JSON lines: edges and chunk
spans) has no ISA-L level as small on edges (its highest, 3, is about zlib's 2: 21 % more bytes on bench/peers.py's
notes' edge part), so those parts stay on zlib; a part of chunks stored as spans of their entries (`spans`), lines
that are mostly keys and numbers, deflates as small at ISA-L's 3 (784,327 bytes against zlib 6's 782,288 on the
notes' 5.8 MB part) in a quarter of the CPU (0.012 s against 0.051), so it asks for that level (FAST). Both let go
of the GIL while they compress (the part's deflating thread runs beside the pass).
"""

from __future__ import annotations

import functools
import os
import zlib
from types import ModuleType
from typing import Protocol

GZIP_WBITS = 31
FAST_LEVELS = {1: 1}
"""zlib level -> the ISA-L level that deflates as small (the levels ISA-L takes over)."""
OFF = "MEMDOCK_ISAL"
"""Set to 0 to deflate with zlib even where ISA-L is installed."""


class Compressor(Protocol):
    def compress(self, data: bytes, /) -> bytes: ...

    def flush(self) -> bytes: ...


def compressor(level: int, fast_level: int | None = None) -> Compressor:
    """A gzip compressor at zlib's LEVEL, or where ISA-L is installed at its FAST_LEVEL (a level the caller measured
    to deflate its data as small), else at ISA-L's level that deflates as small as LEVEL (FAST_LEVELS)."""
    if fast_level is None:
        fast_level = FAST_LEVELS.get(level)
    fast = isal_module() if fast_level is not None else None
    if fast is not None:
        made: Compressor = fast.compressobj(fast_level, fast.DEFLATED, GZIP_WBITS)
        return made
    return zlib.compressobj(level, zlib.DEFLATED, GZIP_WBITS)


def accelerated() -> bool:
    """Whether level 1 parts are deflated by ISA-L in this process."""
    return isal_module() is not None


@functools.cache
def isal_module() -> ModuleType | None:
    """ISA-L's zlib module where it is installed and not turned off (OFF), else None; chosen once a process."""
    if os.environ.get(OFF, "1") == "0":
        return None
    try:
        from isal import isal_zlib
    except ImportError:
        return None
    return isal_zlib
