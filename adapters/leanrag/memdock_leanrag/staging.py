"""An index run's first pass: bundle records into the catalog, in one transaction, before any model is called.

Each chunk becomes the text LeanRAG extracts from (`author: text`, so the speaker is an entity too),
with a content hash; a chunk over `max_chunk_chars` fails the run naming its file, line and field, and
the catalog is left as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memdock.bundle import BundleReader
from memdock.errors import InvalidInputError
from memdock.ids import content_hash

from .catalog import Catalog, chunk_key
from .settings import Settings

USED = ("thread", "entry", "chunk")


@dataclass
class Staged:
    counts: dict[str, int] = field(default_factory=dict)
    chunk_ids: list[str] = field(default_factory=list)
    after_build: list[str] = field(
        default_factory=list
    )  # thread, entry and other ids: checkpointed once the graph is rebuilt
    ignored: dict[str, int] = field(default_factory=dict)


def _located(reader: BundleReader, rtype: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    for part in reader.entries(rtype):
        for line, rec in enumerate(reader.read_part(part), 1):
            yield rec, part.path, line


def chunk_text(rec: dict[str, Any], entry: dict[str, Any] | None) -> str:
    author = rec.get("author") or (entry or {}).get("author")
    return f"{author}: {rec['text']}" if author else rec["text"]


def stage(reader: BundleReader, catalog: Catalog, settings: Settings) -> Staged:
    out = Staged()
    types = reader.record_types()
    with catalog.transaction():
        for rec, _, _ in _located(reader, "thread") if "thread" in types else ():
            catalog.put_thread(rec)
            out.after_build.append(rec["id"])
        for rec, _, _ in _located(reader, "entry") if "entry" in types else ():
            catalog.put_entry(rec)
            out.after_build.append(rec["id"])
        for rec, path, line in _located(reader, "chunk") if "chunk" in types else ():
            entry = catalog.entry(rec["entry_id"]) if rec.get("entry_id") else None
            text = chunk_text(rec, entry)
            if len(text) > settings.max_chunk_chars:
                raise InvalidInputError(
                    f"{path}:{line}: text of {rec['id']} is {len(text):,} characters; LeanRAG extracts from one chunk "
                    "per "
                    f"prompt, at most {settings.max_chunk_chars:,} (max_chunk_chars). Chunk smaller "
                    "(memdock chunk --max-tokens) or raise the limit",
                    details={"file": path, "line": line, "field": "text", "id": rec["id"], "chars": len(text)},
                )
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
        for rtype in types:
            if rtype not in USED:
                out.ignored[rtype] = reader.count(rtype)
                out.after_build.extend(rec["id"] for rec in reader.records(rtype) if "id" in rec)
        out.counts = {t: reader.count(t) for t in USED if t in types}
    return out
