"""Entries as a bundle: the records `memdock import` would make for each (thread, entry, structural edges,
entities), chunked with the defaults, ready for `index`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..bundle import BundleWriter
from ..chunking import chunk_bundle
from ..ids import digest
from ..importers.base import edge
from ..importers.entities import extract_entities
from ..threads import DEFAULT_THREAD, ID_PREFIX, thread_id_for
from . import arguments
from .metadata import check as check_metadata


@dataclass(frozen=True)
class Note:
    """One entry to remember, checked: CONTENT, its thread (a name or an id) and optional fields."""

    content: str
    thread: str
    author: str | None = None
    role: str | None = None
    type: str | None = None
    title: str | None = None
    time: datetime | None = None
    metadata: dict[str, Any] | None = None
    entry_id: str | None = None  # set by update: the entry keeps its id

    @classmethod
    def of(
        cls,
        content: Any,
        *,
        thread: Any = None,
        author: Any = None,
        role: Any = None,
        type: Any = None,
        title: Any = None,
        time: Any = None,
        metadata: Any = None,
    ) -> Note:
        return cls(
            content=arguments.content(content),
            thread=arguments.thread(thread) or DEFAULT_THREAD,
            author=arguments.optional(author, name="author"),
            role=arguments.optional(role, name="role"),
            type=arguments.optional(type, name="type"),
            title=arguments.optional(title, name="title"),
            time=arguments.when(time),
            metadata=check_metadata(metadata),
        )

    @property
    def thread_id(self) -> str:
        return thread_id_for(self.thread)


def build(out: Path, notes: Sequence[Note]) -> tuple[Path, list[str]]:
    """Write a corpus and a chunks bundle for NOTES under OUT; returns (chunks bundle, entry ids in order)."""
    now = arguments.rfc3339(datetime.now(UTC))
    ids: list[str] = []
    written: set[str] = set()
    with BundleWriter(out / "corpus", "corpus", metadata={"format": "remember"}) as w:
        for note in notes:
            tid = note.thread_id
            when = note.time or datetime.now(UTC)
            stamp = arguments.rfc3339(when)
            entry: dict[str, Any] = {
                "id": note.entry_id or f"entry:{digest(tid, stamp, note.author or '', note.content)}",
                "thread_id": tid,
                "position": max(0, int(when.timestamp() * 1000)),
                "body": note.content,
                "event_time": stamp,
                "ingestion_time": now,
                "source": "memdock remember",
            }
            for key in ("author", "role", "title"):
                if getattr(note, key):
                    entry[key] = getattr(note, key)
            if note.type:
                entry["entry_type"] = note.type
            if note.metadata:
                entry["metadata"] = note.metadata
            ids.append(entry["id"])
            if entry["id"] in written:
                continue  # the same note twice in one batch is one entry
            written.add(entry["id"])
            if not note.thread.startswith(ID_PREFIX) and tid not in written:
                written.add(tid)
                w.write("thread", {"id": tid, "title": note.thread, "format": "remember", "ingestion_time": now})
            w.write("entry", entry)
            w.write("edge", edge("contains", tid, entry["id"], tid, ingestion_time=now))
            for entity in extract_entities(entry):
                if entity["id"] not in written:
                    written.add(entity["id"])
                    w.write("entity", entity)
                w.write("edge", edge("mentions", entry["id"], entity["id"], tid, event_time=stamp, ingestion_time=now))
    chunk_bundle(out / "corpus", out / "chunks")
    return out / "chunks", ids
