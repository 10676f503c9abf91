"""An index run's first pass: bundle records to staged entries, before anything reaches the framework.

Threads go into the catalog (their titles describe entries); each entry becomes one staged item
with the text the framework will see and its content hash; chunks are recorded as members of their entry
(frameworks are given whole entries: their extraction works on messages, not on windows of them). Every
check happens here, in one catalog transaction: an entry over `max_entry_chars` fails the run
naming its file, line and field, and leaves the catalog and the framework as they were.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memdock.bundle import BundleReader
from memdock.errors import InvalidInputError
from memdock.ids import content_hash

from .catalog import Catalog

USED = ("thread", "entry", "chunk")


@dataclass
class Staged:
    counts: dict[str, int] = field(default_factory=dict)
    ready: list[str] = field(default_factory=list)  # record ids with nothing left to do once staging commits
    ignored: dict[str, int] = field(default_factory=dict)


def _located(reader: BundleReader, rtype: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    for part in reader.entries(rtype):
        for line, rec in enumerate(reader.read_part(part), 1):
            yield rec, part.path, line


def entry_text(rec: dict[str, Any]) -> str:
    """What the framework is given: the speaker, then the title and the body."""
    text = f"{rec['title']}\n\n{rec['body']}" if rec.get("title") else rec["body"]
    return f"{rec['author']}: {text}" if rec.get("author") else text


def stage(reader: BundleReader, catalog: Catalog, max_chars: int, variant: str = "") -> Staged:
    """Stage READER's entries; VARIANT (e.g. the extraction mode) is part of each content hash, so changing it
    re-adds."""
    out = Staged()
    types = reader.record_types()
    with catalog.transaction():
        catalog.clear_staged()
        for rec, _, _ in _located(reader, "thread") if "thread" in types else ():
            catalog.put_thread(rec["id"], rec.get("title"))
            out.ready.append(rec["id"])
        for rec, path, line in _located(reader, "entry") if "entry" in types else ():
            text = entry_text(rec)
            if len(text) > max_chars:
                raise InvalidInputError(
                    f"{path}:{line}: body of {rec['id']} is {len(text):,} characters with its author and title; the "
                    "backend is given "
                    f"at most {max_chars:,} (max_entry_chars). Split the entry or raise the limit",
                    details={"file": path, "line": line, "field": "body", "id": rec["id"], "chars": len(text)},
                )
            when = rec.get("event_time") or rec.get("ingestion_time")
            catalog.stage(
                {
                    "id": rec["id"],
                    "thread_id": rec["thread_id"],
                    "author": rec.get("author"),
                    "role": rec.get("role"),
                    "entry_type": rec.get("entry_type"),
                    "title": rec.get("title"),
                    "event_time": when,
                    "body": text,
                    "content_hash": content_hash(
                        "\x1f".join(
                            [
                                text,
                                rec["thread_id"],
                                when or "",
                                rec.get("role") or "",
                                rec.get("entry_type") or "",
                                variant,
                            ]
                        )
                    ),
                }
            )
        for rec, _, _ in _located(reader, "chunk") if "chunk" in types else ():
            catalog.stage_member(rec["id"], rec["entry_id"])
        for rtype in types:
            if rtype not in USED:
                out.ignored[rtype] = reader.count(rtype)
                out.ready.extend(rec["id"] for rec in reader.records(rtype) if "id" in rec)
        out.ready.extend(catalog.members_without_staged_entry())
        out.counts = {t: reader.count(t) for t in USED if t in types}
    return out
