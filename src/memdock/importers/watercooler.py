"""Watercooler thread files: a markdown header, then entries separated by `---` lines.

A `---` line is a separator only outside fenced code and when the next
non-blank line starts an entry (`Entry: <author> <time>`); anywhere else it is
body text. Status, ball, topic, role, type, title and Entry-IDs are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..ids import digest
from .base import ImportContext, ParsedThread, parse_time
from .textio import is_fence, read_text

_TITLE = re.compile(r"^#\s+(.*?)\s+—\s+Thread\s*$")
_ENTRY = re.compile(r"^Entry:\s*(.*?)\s+(\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)\s*$")
_ENTRY_ID = re.compile(r"^\s*<!--\s*Entry-ID:\s*([A-Za-z0-9]+)\s*-->\s*$")
_HEADER_KEYS = ("Status", "Ball", "Topic", "Created", "Title")
_ENTRY_KEYS = {"Role": "role", "Type": "entry_type", "Title": "title"}


class WatercoolerImporter:
    name = "watercooler"

    def sources(self, path: Path) -> list[Path]:
        return sorted(path.rglob("*.md")) if path.is_dir() else [path]

    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        text = read_text(path, ctx)
        if text is None:
            return
        lines = text.splitlines()
        starts = _entry_starts(lines)
        header_end = starts[0] - 1 if starts else len(lines)
        meta = _parse_header(lines[: max(header_end, 0)])
        tid = ctx.thread_id(self.name, path)
        thread: dict[str, Any] = {
            "id": tid,
            "title": meta.get("title") or meta.get("topic") or path.stem,
            "source": ctx.relative(path),
            "format": self.name,
            "ingestion_time": ctx.ingestion_time,
        }
        for k in ("topic", "status", "ball"):
            if meta.get(k):
                thread[k] = meta[k]
        if meta.get("created"):
            t = parse_time(meta["created"], ctx, path, None)
            if t:
                thread["event_time"] = t
        if not starts and any(line.strip() for line in lines[header_end:]):
            ctx.warn(path, None, "no entries found (no `Entry: <author> <time>` line after a `---`)")
        entries = []
        bounds = starts + [len(lines)]
        for pos, (s, e) in enumerate(zip(bounds, bounds[1:])):
            block = lines[s:e]
            entries.append(self._entry(block, s + 1, pos, tid, path, ctx))
        yield ParsedThread(thread, entries)

    def _entry(
        self, block: list[str], line_no: int, pos: int, tid: str, path: Path, ctx: ImportContext
    ) -> dict[str, Any]:
        m = _ENTRY.match(block[0])
        author, when = (m.group(1), m.group(2)) if m else (block[0].removeprefix("Entry:").strip(), None)
        if not m:
            ctx.warn(
                path, line_no, f"malformed entry line {block[0][:80]!r}: expected `Entry: <author> <RFC 3339 time>`"
            )
        fields: dict[str, str] = {}
        i = 1
        while i < len(block) and block[i].strip():
            key, sep, value = block[i].partition(":")
            if sep and key in _ENTRY_KEYS:
                fields[_ENTRY_KEYS[key]] = value.strip()
                i += 1
            else:
                break
        entry_ulid, body = _without_entry_ids(block[i:])
        if body.endswith("\n---") or body == "---":
            body = body[:-3].rstrip("\n")
        wanted = f"entry:{entry_ulid}" if entry_ulid else f"entry:{digest(tid, str(pos), author, when or '')}"
        entry: dict[str, Any] = {
            "id": ctx.claim_entry_id(wanted, thread_id=tid, file=path, line=line_no),
            "thread_id": tid,
            "position": pos,
            "author": author,
            "body": body,
            "source": ctx.relative(path),
            "source_line": line_no,
            "ingestion_time": ctx.ingestion_time,
            **fields,
        }
        if entry_ulid:
            entry["metadata"] = {"entry_ulid": entry_ulid}
        if when:
            t = parse_time(when, ctx, path, line_no)
            if t:
                entry["event_time"] = t
        if not body.strip():
            ctx.warn(path, line_no, "entry has an empty body", kind="empty entry")
        return entry


def _without_entry_ids(lines: list[str]) -> tuple[str | None, str]:
    """The last `<!-- Entry-ID: X -->` X in LINES, and the body they make without those lines."""
    text = "\n".join(lines)
    if "Entry-ID" not in text:  # most entries have none: no line-by-line match
        return None, text.strip("\n")
    entry_ulid = None
    kept = []
    for line in lines:
        mm = _ENTRY_ID.match(line)
        if mm:
            entry_ulid = mm.group(1)
        else:
            kept.append(line)
    return entry_ulid, "\n".join(kept).strip("\n")


def _entry_starts(lines: list[str]) -> list[int]:
    """Indexes of `Entry:` lines that follow a separator outside fenced code."""
    starts = []
    fenced = False
    pending_sep = False
    for i, line in enumerate(lines):
        if is_fence(line):
            fenced = not fenced
            pending_sep = False
            continue
        if fenced:
            continue
        stripped = line.strip()
        if stripped == "---":
            pending_sep = True
            continue
        if pending_sep and line.startswith("Entry:"):
            starts.append(i)
        if stripped:
            pending_sep = False
    return starts


def _parse_header(lines: list[str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    for line in lines:
        m = _TITLE.match(line)
        if m:
            meta["title"] = m.group(1)
            continue
        key, sep, value = line.partition(":")
        if sep and key in _HEADER_KEYS:
            meta[key.lower()] = value.strip()
    return meta
