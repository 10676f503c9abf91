"""An index run's first pass: bundle records into the catalog, in one transaction, before any model is called.

Each chunk becomes the text LeanRAG extracts from (`author: text`, so the speaker is an entity too),
with a content hash; a chunk over `max_chunk_chars` fails the run naming its file, line and field, and
the catalog is left as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memdock.bundle import BundleReader
from memdock.ids import content_hash
from memdock.sdk.kit.staging import check_size, finish, located

from .catalog import Catalog, chunk_key
from .settings import Settings

SMALLER = "Chunk smaller (memdock chunk --max-tokens) or raise the limit"


@dataclass
class Staged:
    counts: dict[str, int] = field(default_factory=dict)
    chunk_ids: list[str] = field(default_factory=list)
    after_build: list[str] = field(
        default_factory=list
    )  # thread, entry and other ids: checkpointed once the graph is rebuilt
    ignored: dict[str, int] = field(default_factory=dict)


def chunk_text(rec: dict[str, Any], entry: dict[str, Any] | None) -> str:
    author = rec.get("author") or (entry or {}).get("author")
    return f"{author}: {rec['text']}" if author else rec["text"]


def stage(reader: BundleReader, catalog: Catalog, settings: Settings) -> Staged:
    out = Staged()
    with catalog.transaction():
        for rec, _, _ in located(reader, "thread"):
            catalog.put_thread(rec)
            out.after_build.append(rec["id"])
        for rec, _, _ in located(reader, "entry"):
            catalog.put_entry(rec)
            out.after_build.append(rec["id"])
        for rec, path, line in located(reader, "chunk"):
            entry = catalog.entry(rec["entry_id"]) if rec.get("entry_id") else None
            text = chunk_text(rec, entry)
            limit = (settings.max_chunk_chars, "max_chunk_chars")
            what = "LeanRAG extracts from one chunk per prompt,"
            check_size(text, limit, (path, line, "text", rec["id"]), what, SMALLER)
            catalog.put_chunk(
                {
                    "id": rec["id"],
                    "key": chunk_key(rec["id"]),
                    "entry_id": rec.get("entry_id"),
                    "thread_id": rec["thread_id"],
                    "text": text,
                    "content_hash": content_hash(text),
                    "event_time": rec.get("event_time") or (entry or {}).get("event_time"),
                }
            )
            out.chunk_ids.append(rec["id"])
        out.counts = finish(reader, out.after_build, out.ignored)
    return out
