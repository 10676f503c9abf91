"""Reading a source file as text: a missing or unreadable file is an error for that file; bad UTF-8 is decoded with
replacement and warned. Only regular files are read: a FIFO, a socket or a device (a link to /dev/zero, say)
in a source folder is an error for that entry, never a read that blocks or never ends."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .base import ImportContext

FENCE = re.compile(r"^\s*(```|~~~)")
"""A line that opens or closes a fenced code block in markdown."""


def is_fence(line: str) -> bool:
    """Whether LINE matches FENCE (the substring tests first: most lines hold neither, and cost no regex call)."""
    return ("```" in line or "~~~" in line) and FENCE.match(line) is not None


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or folder: memdock reads only regular files."""


def read_regular(path: Path) -> bytes:
    """PATH's bytes, when it is a regular file: opened without blocking (a FIFO with no writer would block
    open()) and checked on the open descriptor, then read up to the size fstat reported."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) else "not a file"
            raise NotRegularFile(0, f"{kind}, not a regular file; not read")
        chunks, left = [], st.st_size
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 24))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: Path, ctx: ImportContext) -> str | None:
    try:
        raw = read_regular(path)
    except OSError as exc:
        ctx.error(path, f"cannot read: {exc.strerror or exc}")
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        ctx.warn(
            path,
            raw.count(b"\n", 0, exc.start) + 1,
            f"not valid UTF-8 (byte {exc.start}); decoded with replacement characters",
        )
        return raw.decode("utf-8", "replace")
