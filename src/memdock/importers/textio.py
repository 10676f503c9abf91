"""Reading a source file as text: a missing or unreadable file is an error for that file; bad UTF-8 is decoded with
replacement and warned."""

from __future__ import annotations

import re
from pathlib import Path

from .base import ImportContext

FENCE = re.compile(r"^\s*(```|~~~)")
"""A line that opens or closes a fenced code block in markdown."""


def read_text(path: Path, ctx: ImportContext) -> str | None:
    try:
        raw = path.read_bytes()
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
