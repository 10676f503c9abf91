"""An index run's first pass: bundle records to staged entries, before anything reaches the framework.

Threads go into the catalog (their titles describe entries); each entry becomes one staged item
with the text the framework will see and its content hash; chunks are recorded as members of their entry
(frameworks are given whole entries: their extraction works on messages, not on windows of them). Every
check happens here, in one catalog transaction: an entry over `max_entry_chars` fails the run
naming its file, line and field, and leaves the catalog and the framework as they were.
"""

from __future__ import annotations

from typing import Any

from memdock.bundle import BundleReader
from memdock.ids import content_hash
from memdock.sdk.kit.staging import Staged, check_size, finish, located

from .catalog import Catalog

SPLIT = "Split the entry or raise the limit"


def entry_text(rec: dict[str, Any]) -> str:
    """What the framework is given: the speaker, then the title and the body."""
    text = f"{rec['title']}\n\n{rec['body']}" if rec.get("title") else rec["body"]
    return f"{rec['author']}: {text}" if rec.get("author") else text


def stage(reader: BundleReader, catalog: Catalog, max_chars: int, variant: str = "") -> Staged:
    """Stage READER's entries; VARIANT (e.g. the extraction mode) is part of each content hash, so changing it
    re-adds."""
    out = Staged()
    with catalog.transaction():
        catalog.clear_staged()
        for rec, _, _ in located(reader, "thread"):
            catalog.put_thread(rec["id"], rec.get("title"))
            out.ready.append(rec["id"])
        for rec, path, line in located(reader, "entry"):
            text = entry_text(rec)
            what = "with its author and title, the backend is given"
            check_size(text, (max_chars, "max_entry_chars"), (path, line, "body", rec["id"]), what, SPLIT)
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
        for rec, _, _ in located(reader, "chunk"):
            catalog.stage_member(rec["id"], rec["entry_id"])
        out.counts = finish(reader, out.ready, out.ignored)
        out.ready.extend(catalog.members_without_staged_entry())
    return out
