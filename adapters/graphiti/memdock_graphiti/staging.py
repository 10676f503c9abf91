"""An index run's first pass: bundle records to staged episodes, before anything touches the graph.

Threads and entries go into the catalog (their titles, authors and times describe episodes);
each entry (or each chunk, with `episode_source: chunks`) becomes one staged episode. Every check
happens here, in one catalog transaction: a body over `max_episode_chars` fails the run naming its
file, line and field, and leaves the catalog and the graph as they were.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from memdock.bundle import BundleReader
from memdock.errors import InvalidInputError
from memdock.ids import content_hash

from .catalog import Catalog, episode_uuid
from .groups import group_id_for
from .settings import Settings

USED = ("thread", "entry", "chunk")


@dataclass
class Staged:
    counts: dict[str, int] = field(default_factory=dict)
    ready: list[str] = field(default_factory=list)  # record ids with nothing left to do once staging commits
    ignored: dict[str, int] = field(default_factory=dict)


def _located(reader: BundleReader, rtype: str) -> Iterator[tuple[dict[str, Any], str, int]]:
    """Records with the file and line they came from (one record per line; a bad line raises)."""
    for part in reader.entries(rtype):
        for line, rec in enumerate(reader.read_part(part), 1):
            yield rec, part.path, line


def stage(reader: BundleReader, catalog: Catalog, settings: Settings) -> Staged:
    out = Staged()
    by_chunks = settings.episode_source == "chunks"
    types = reader.record_types()
    with catalog.transaction() as conn:
        catalog.clear_staged()
        for rec, _, _ in _located(reader, "thread") if "thread" in types else ():
            catalog.put_thread(rec["id"], group_id_for(rec["id"]), rec.get("title"))
            out.ready.append(rec["id"])
        for rec, path, line in _located(reader, "entry") if "entry" in types else ():
            catalog.put_entry(rec)
            if by_chunks:
                out.ready.append(rec["id"])
                continue
            _stage(catalog, settings, _entry_episode(catalog, rec), path, line, "body")
        for rec, path, line in _located(reader, "chunk") if "chunk" in types else ():
            if by_chunks:
                _stage(catalog, settings, _chunk_episode(catalog, rec), path, line, "text")
            else:
                conn.execute(
                    "INSERT OR IGNORE INTO staged_members VALUES (?, ?)", (rec["id"], episode_uuid(rec["entry_id"]))
                )
                catalog.add_members(episode_uuid(rec["entry_id"]), [rec["id"]])
        for rtype in types:
            if rtype not in USED:
                out.ignored[rtype] = reader.count(rtype)
                out.ready.extend(rec["id"] for rec in reader.records(rtype) if "id" in rec)
        out.ready.extend(
            r[0]
            for r in conn.execute("SELECT record_id FROM staged_members WHERE uuid NOT IN (SELECT uuid FROM staged)")
        )
        out.counts = {t: reader.count(t) for t in USED if t in types}
    return out


def _stage(catalog: Catalog, settings: Settings, ep: dict[str, Any], path: str, line: int, field_name: str) -> None:
    size = len(ep["body"])
    if size > settings.max_episode_chars:
        raise InvalidInputError(
            f"{path}:{line}: {field_name} of {ep['source_id']} is {size:,} characters; an episode may have at most "
            f"{settings.max_episode_chars:,} (max_episode_chars). Index by chunks (episode_source: chunks) or raise "
            "the limit",
            details={"file": path, "line": line, "field": field_name, "id": ep["source_id"], "chars": size},
        )
    catalog.conn.execute(
        "INSERT INTO staged (uuid, event_time, episode) VALUES (?, ?, ?)",
        (ep["uuid"], ep["event_time"], json.dumps(ep, ensure_ascii=False)),
    )
    catalog.conn.execute("INSERT OR IGNORE INTO staged_members VALUES (?, ?)", (ep["source_id"], ep["uuid"]))
    catalog.add_members(ep["uuid"], [ep["source_id"]])


def _thread(catalog: Catalog, thread_id: str) -> tuple[str, str | None]:
    known = catalog.thread(thread_id)
    return known if known else (group_id_for(thread_id), None)


def _description(thread_id: str, title: str | None, meta: dict[str, Any]) -> str:
    parts = [f"thread {title!r} ({thread_id})" if title else f"thread {thread_id}"]
    parts += [f"{k} {meta[k]}" for k in ("author", "role", "entry_type") if meta.get(k)]
    return "; ".join(parts).replace("entry_type", "type")


def _episode(
    source_id: str, entry_id: str, thread_id: str, text: str, meta: dict[str, Any], catalog: Catalog
) -> dict[str, Any]:
    group, title = _thread(catalog, thread_id)
    author = meta.get("author")
    body = f"{author}: {text}" if author else text
    description = _description(thread_id, title, meta)
    when = meta.get("event_time") or meta.get("ingestion_time")
    return {
        "uuid": episode_uuid(source_id),
        "source_id": source_id,
        "entry_id": entry_id,
        "thread_id": thread_id,
        "group_id": group,
        "name": source_id,
        "body": body,
        "source": "message" if author else "text",
        "source_description": description,
        "event_time": when,
        "content_hash": content_hash("\x1f".join([body, description, when or "", group])),
    }


def _entry_episode(catalog: Catalog, rec: dict[str, Any]) -> dict[str, Any]:
    text = f"{rec['title']}\n\n{rec['body']}" if rec.get("title") else rec["body"]
    return _episode(rec["id"], rec["id"], rec["thread_id"], text, rec, catalog)


def _chunk_episode(catalog: Catalog, rec: dict[str, Any]) -> dict[str, Any]:
    meta = {**(catalog.entry(rec["entry_id"]) or {}), **{k: v for k, v in rec.items() if v is not None}}
    return _episode(rec["id"], rec["entry_id"], rec["thread_id"], rec["text"], meta, catalog)
