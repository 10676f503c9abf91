"""A folder of .md/.txt files: one thread per file, one entry per heading section."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..ids import digest
from .base import ImportContext, ParsedThread
from .textio import is_fence, read_text

_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")


class TextImporter:
    name = "text"

    def sources(self, path: Path) -> list[Path]:
        if path.is_dir():
            return sorted(
                # not only regular files: a FIFO or a device link is then named by the reader, not passed over
                p
                for p in path.rglob("*")
                if p.suffix.lower() in (".md", ".txt", ".markdown") and not p.is_dir()
            )
        return [path]

    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        text = read_text(path, ctx)
        if text is None:
            return
        tid = ctx.thread_id(self.name, path)
        sections = _sections(text.splitlines())
        title = next((t for t, _, _ in sections if t), path.stem)
        thread = {
            "id": tid,
            "title": title,
            "source": ctx.relative(path),
            "format": self.name,
            "ingestion_time": ctx.ingestion_time,
        }
        entries: list[dict[str, Any]] = []
        for heading, line_no, body in sections:
            if not body.strip() and not heading:
                continue
            e: dict[str, Any] = {
                "id": ctx.claim_entry_id(
                    f"entry:{digest(tid, str(len(entries)), heading or '')}", thread_id=tid, file=path, line=line_no
                ),
                "thread_id": tid,
                "position": len(entries),
                "body": body.strip("\n"),
                "source": ctx.relative(path),
                "source_line": line_no,
                "ingestion_time": ctx.ingestion_time,
            }
            if heading:
                e["title"] = heading
            entries.append(e)
        yield ParsedThread(thread, entries)


def _sections(lines: list[str]) -> list[tuple[str | None, int, str]]:
    out: list[tuple[str | None, int, str]] = []
    heading: str | None = None
    start = 1
    buf: list[str] = []
    fenced = False
    for i, line in enumerate(lines, 1):
        if is_fence(line):
            fenced = not fenced
        m = None if fenced or line[:1] != "#" else _HEADING.match(line)
        if m:
            out.append((heading, start, "\n".join(buf)))
            heading, start, buf = m.group(2), i, []
        else:
            buf.append(line)
    out.append((heading, start, "\n".join(buf)))
    return out
