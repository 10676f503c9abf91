"""One entry as a bundle: the records `memdock import` would make for it (thread, entry, structural edges,
entities), chunked with the defaults, ready for `index`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..bundle import BundleWriter
from ..chunking import chunk_bundle
from ..ids import digest, slug
from ..importers.base import edge
from ..importers.entities import extract_entities
from . import arguments

DEFAULT_THREAD = "memory"


def thread_id_for(thread: str) -> str:
    """An existing thread id is used as is; a name becomes a stable id of its own."""
    if thread.startswith("thread:"):
        return thread
    return f"thread:{slug(thread, 60) or 'thread'}:{digest('memory', thread, length=8)}"


def build(
    out: Path,
    content: str,
    *,
    thread: str | None = None,
    author: str | None = None,
    role: str | None = None,
    type: str | None = None,
    title: str | None = None,
    time: str | datetime | None = None,
) -> tuple[Path, str]:
    """Write a corpus and a chunks bundle for one entry under OUT; returns (chunks bundle, entry id)."""
    content = arguments.content(content)
    thread = arguments.thread(thread)
    author, role, type, title = (
        arguments.optional(v, name=n) for v, n in ((author, "author"), (role, "role"), (type, "type"), (title, "title"))
    )
    name = thread or DEFAULT_THREAD
    tid = thread_id_for(name)
    when = arguments.when(time) or datetime.now(UTC)
    stamp = arguments.rfc3339(when)
    now = arguments.rfc3339(datetime.now(UTC))
    entry: dict[str, Any] = {
        "id": f"entry:{digest(tid, stamp, author or '', content)}",
        "thread_id": tid,
        "position": max(0, int(when.timestamp() * 1000)),
        "body": content,
        "event_time": stamp,
        "ingestion_time": now,
        "source": "memdock remember",
    }
    for key, value in (("author", author), ("role", role), ("entry_type", type), ("title", title)):
        if value:
            entry[key] = value
    with BundleWriter(out / "corpus", "corpus", metadata={"format": "remember"}) as w:
        if not name.startswith("thread:"):
            w.write("thread", {"id": tid, "title": name, "format": "remember", "ingestion_time": now})
        w.write("entry", entry)
        w.write("edge", edge("contains", tid, entry["id"], tid, ingestion_time=now))
        for entity in extract_entities(entry):
            w.write("entity", entity)
            w.write("edge", edge("mentions", entry["id"], entity["id"], tid, event_time=stamp, ingestion_time=now))
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks", entry["id"]
