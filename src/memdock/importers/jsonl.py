"""Threads and entries as JSON lines.

Each line is an object. Field mapping (after `--map old=new` renames):
  entry:  id, thread_id (or thread), author, role, type (or entry_type), title,
          body (or text, content), time (or timestamp, event_time), replies_to
  thread: a line with "kind": "thread" and id, title, topic, status, time
A line without "kind" is an entry. Entries without an id get a stable one from
their thread, position and content. A line that is not an object is a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ..ids import digest, slug
from .base import ImportContext, ParsedThread, parse_time
from .textio import read_text

_ALIASES = {
    "thread": "thread_id",
    "type": "entry_type",
    "text": "body",
    "content": "body",
    "timestamp": "time",
    "event_time": "time",
    "created": "time",
}

_ENTRY_FIELDS = frozenset(("id", "thread_id", "body", "time", "author", "role", "entry_type", "title"))
"""The fields an entry takes from its line; the line's others go into its metadata."""


class JsonlImporter:
    name = "jsonl"

    def __init__(self, mapping: dict[str, str] | None = None):
        self.mapping = dict(mapping or {})

    def sources(self, path: Path) -> list[Path]:
        return sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]

    def _rename(self, obj: dict[str, Any]) -> dict[str, Any]:
        mapping, alias = self.mapping, _ALIASES.get
        if not mapping:
            return {alias(k, k): v for k, v in obj.items()}
        out = {}
        for k, v in obj.items():
            k = mapping.get(k, k)
            out[alias(k, k)] = v
        return out

    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]:
        text = read_text(path, ctx)
        if text is None:
            return
        threads: dict[str, ParsedThread] = {}
        replying: set[str] = set()  # threads with an entry that names the entry it replies to
        source = ctx.relative(path)
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                ctx.warn(path, n, f"invalid JSON ({exc}); line skipped")
                continue
            if not isinstance(obj, dict):
                ctx.warn(path, n, f"line is a JSON {type(obj).__name__}, not an object; skipped")
                continue
            obj = self._rename(obj)
            if obj.get("kind") == "thread":
                key = str(obj.get("id") or "")
                if not key:
                    ctx.warn(path, n, "thread line without an id; skipped")
                    continue
                self._thread(threads, key, path, ctx).thread.update(self._thread_fields(obj, path, n, ctx))
                continue
            key = str(obj.get("thread_id") or path.stem)
            pt = self._thread(threads, key, path, ctx)
            entry = self._entry(obj, pt, path, n, ctx, source)
            pt.entries.append(entry)
            if entry.get("metadata", {}).get("replies_to") is not None:
                replying.add(key)
        del text  # the file's text, and each thread once yielded, are not held while the run goes on with them
        for key in list(threads):
            pt = threads.pop(key)
            if key in replying:
                self._replies(pt, path, ctx)
            yield pt

    def _replies(self, pt: ParsedThread, path: Path, ctx: ImportContext) -> None:
        """PT's replies_to pairs, each entry that names an entry not in the thread warned."""
        ids = {e["metadata"]["source_id"]: e["id"] for e in pt.entries if e.get("metadata", {}).get("source_id")}
        for e in pt.entries:
            parent = e.get("metadata", {}).get("replies_to")
            if parent is not None:
                if str(parent) in ids:
                    pt.replies.append((e["id"], ids[str(parent)]))
                else:
                    ctx.warn(
                        path,
                        e.get("source_line"),
                        f"replies_to {parent!r} names no entry of this thread",
                        kind="unknown replies_to",
                    )

    def _thread(self, threads: dict[str, ParsedThread], key: str, path: Path, ctx: ImportContext) -> ParsedThread:
        if key not in threads:
            tid = f"thread:{slug(key, 60) or 'thread'}:{digest(self.name, ctx.relative(path), key, length=8)}"
            threads[key] = ParsedThread(
                {
                    "id": tid,
                    "title": key,
                    "source": ctx.relative(path),
                    "format": self.name,
                    "ingestion_time": ctx.ingestion_time,
                    "metadata": {"source_id": key},
                },
                [],
            )
        return threads[key]

    def _thread_fields(self, obj: dict[str, Any], path: Path, n: int, ctx: ImportContext) -> dict[str, Any]:
        out = {k: str(obj[k]) for k in ("title", "topic", "status", "ball") if obj.get(k) is not None}
        if obj.get("time"):
            t = parse_time(str(obj["time"]), ctx, path, n)
            if t:
                out["event_time"] = t
        return out

    def _entry(
        self, obj: dict[str, Any], pt: ParsedThread, path: Path, n: int, ctx: ImportContext, source: str
    ) -> dict[str, Any]:
        tid = pt.thread["id"]
        pos = len(pt.entries)
        body = obj.get("body")
        if not isinstance(body, str):
            ctx.warn(path, n, "entry without a text body (body, text or content)", kind="entry without body")
            body = "" if body is None else str(body)
        source_id = obj.get("id")
        wanted = f"entry:{slug(str(source_id), 80)}" if source_id else f"entry:{digest(tid, str(pos), body)}"
        entry: dict[str, Any] = {
            "id": ctx.claim_entry_id(wanted, thread_id=tid, file=path, line=n),
            "thread_id": tid,
            "position": pos,
            "body": body,
            "source": source,
            "source_line": n,
            "ingestion_time": ctx.ingestion_time,
        }
        for k in ("author", "role", "entry_type", "title"):
            if obj.get(k) is not None:
                entry[k] = str(obj[k])
        if obj.get("time"):
            t = parse_time(str(obj["time"]), ctx, path, n)
            if t:
                entry["event_time"] = t
        meta = {k: v for k, v in obj.items() if k not in _ENTRY_FIELDS}
        if source_id is not None:
            meta["source_id"] = str(source_id)
        if meta:
            entry["metadata"] = meta
        return entry
