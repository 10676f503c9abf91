"""One entry as a bundle: the records `memdock import` would make for it (thread, entry, structural edges,
entities), chunked with the defaults, ready for `index`."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..bundle import BundleWriter, source
from ..chunking import chunk_bundle
from ..errors import InvalidInputError
from ..ids import digest, slug
from ..importers.base import edge
from ..importers.entities import extract_entities

DEFAULT_THREAD = "memory"
MAX_CONTENT = 5_000_000


def _time(value: str | datetime | None) -> datetime:
    if value is None:
        return datetime.now(timezone.utc)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInputError(f"time {value!r} is not an ISO 8601 date-time") from None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _rfc3339(dt: datetime) -> str:
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def thread_id_for(thread: str) -> str:
    """An existing thread id is used as is; a name becomes a stable id of its own."""
    if thread.startswith("thread:"):
        return thread
    return f"thread:{slug(thread, 60) or 'thread'}:{digest('memory', thread, length=8)}"


def build(out: Path, content: str, *, thread: str | None = None, author: str | None = None, role: str | None = None,
          type: str | None = None, title: str | None = None, time: str | datetime | None = None) -> tuple[Path, str]:
    """Write a corpus and a chunks bundle for one entry under OUT; returns (chunks bundle, entry id)."""
    if not isinstance(content, str) or not content.strip():
        raise InvalidInputError("content is empty: there is nothing to remember")
    if len(content) > MAX_CONTENT:
        raise InvalidInputError(f"content is {len(content)} characters; remember takes at most {MAX_CONTENT}")
    name = thread or DEFAULT_THREAD
    tid = thread_id_for(name)
    when = _time(time)
    stamp = _rfc3339(when)
    now = _rfc3339(datetime.now(timezone.utc))
    entry: dict[str, Any] = {
        "id": f"entry:{digest(tid, stamp, author or '', content)}", "thread_id": tid,
        "position": int(when.timestamp() * 1000), "body": content, "event_time": stamp, "ingestion_time": now,
        "source": "memdock remember",
    }
    for key, value in (("author", author), ("role", role), ("entry_type", type), ("title", title)):
        if value:
            entry[key] = value
    with BundleWriter(out / "corpus", "corpus", metadata={"format": "remember", source.KEY: source.REMEMBER}) as w:
        if not name.startswith("thread:"):
            w.write("thread", {"id": tid, "title": name, "format": "remember", "ingestion_time": now})
        w.write("entry", entry)
        w.write("edge", edge("contains", tid, entry["id"], tid, ingestion_time=now))
        for entity in extract_entities(entry):
            w.write("entity", entity)
            w.write("edge", edge("mentions", entry["id"], entity["id"], tid, event_time=stamp, ingestion_time=now))
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks", entry["id"]
