"""IRC day logs: `[HH:MM] <nick> text` lines, the date from the file name (YYYY-MM-DD_NN.ascii.txt).

With an annotation file beside it (same stem, .annotation.txt: `parent child -`,
0-based line numbers) each annotated reply becomes a replies_to edge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import ImportContext, ParsedThread
from .textio import read_text

_LINE = re.compile(r"^\[(\d{2}):(\d{2})\]\s+<([^>]+)>\s?(.*)$")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


class IrcImporter:
    name = "irc"

    def sources(self, path: Path) -> list[Path]:
        if path.is_dir():
            return sorted(p for p in path.rglob("*.txt") if not p.name.endswith((".annotation.txt", ".raw.txt")))
        return [path]

    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        text = read_text(path, ctx)
        if text is None:
            return
        m = _DATE.search(path.name)
        if not m:
            ctx.warn(path, None, "no YYYY-MM-DD date in the file name; entries have no event time")
        date = f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None
        stem = path.name.split(".")[0]
        tid = ctx.thread_id(self.name, path)
        thread = {
            "id": tid,
            "title": stem,
            "source": ctx.relative(path),
            "format": self.name,
            "ingestion_time": ctx.ingestion_time,
        }
        if date:
            thread["event_time"] = f"{date}T00:00:00Z"
        entries: list[dict[str, Any]] = []
        by_line: dict[int, str] = {}
        for i, line in enumerate(text.splitlines()):
            mm = _LINE.match(line)
            if not mm:
                continue
            hh, mi, nick, body = mm.groups()
            eid = ctx.claim_entry_id(f"entry:irc:{stem}:{i}", thread_id=tid, file=path, line=i + 1)
            e: dict[str, Any] = {
                "id": eid,
                "thread_id": tid,
                "position": len(entries),
                "author": nick,
                "body": body,
                "source": ctx.relative(path),
                "source_line": i,
                "ingestion_time": ctx.ingestion_time,
            }
            if date:
                e["event_time"] = f"{date}T{hh}:{mi}:00Z"
            entries.append(e)
            by_line[i] = eid
        replies = self._replies(path, stem, by_line, ctx)
        yield ParsedThread(thread, entries, replies)

    def _replies(self, path: Path, stem: str, by_line: dict[int, str], ctx: ImportContext) -> list[tuple[str, str]]:
        ann = path.with_name(f"{stem}.annotation.txt")
        if not ann.exists():
            return []
        out = []
        for n, line in enumerate((read_text(ann, ctx) or "").splitlines(), 1):
            parts = line.split()
            if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
                if line.strip():
                    ctx.warn(ann, n, f"not `parent child -`: {line[:60]!r}", kind="malformed annotation")
                continue
            parent, child = int(parts[0]), int(parts[1])
            if parent == child:
                continue
            if parent in by_line and child in by_line:
                out.append((by_line[child], by_line[parent]))
        return out
