"""An index run's first pass: bundle records to staged episodes, before anything touches the graph.

Threads and entries go into the catalog (their titles, authors and times describe episodes);
each entry (or each chunk, with `episode_source: chunks`) becomes one staged episode. Every check
happens here, in one catalog transaction: a body over `max_episode_chars` fails the run naming its
file, line and field, and leaves the catalog and the graph as they were.
"""

from __future__ import annotations

import json
from typing import Any

from memdock.bundle import BundleReader
from memdock.ids import content_hash
from memdock.sdk.kit.staging import Staged, check_size, finish, located

from .catalog import Catalog, episode_uuid
from .groups import group_id_for
from .settings import Settings

BY_CHUNKS = "Index by chunks (episode_source: chunks) or raise the limit"


def stage(reader: BundleReader, catalog: Catalog, settings: Settings) -> Staged:
    out = Staged()
    by_chunks = settings.episode_source == "chunks"
    with catalog.transaction() as conn:
        catalog.clear_staged()
        for rec, _, _ in located(reader, "thread"):
            catalog.put_thread(rec["id"], group_id_for(rec["id"]), rec.get("title"))
            out.ready.append(rec["id"])
        for rec, path, line in located(reader, "entry"):
            catalog.put_entry(rec)
            if by_chunks:
                out.ready.append(rec["id"])
                continue
            _stage(catalog, settings, _entry_episode(catalog, rec), path, line, "body")
        for rec, path, line in located(reader, "chunk"):
            if by_chunks:
                _stage(catalog, settings, _chunk_episode(catalog, rec), path, line, "text")
            else:
                conn.execute(
                    "INSERT OR IGNORE INTO staged_members VALUES (?, ?)", (rec["id"], episode_uuid(rec["entry_id"]))
                )
                catalog.add_members(episode_uuid(rec["entry_id"]), [rec["id"]])
        out.counts = finish(reader, out.ready, out.ignored)
        out.ready.extend(
            r[0]
            for r in conn.execute("SELECT record_id FROM staged_members WHERE uuid NOT IN (SELECT uuid FROM staged)")
        )
    return out


def _stage(catalog: Catalog, settings: Settings, ep: dict[str, Any], path: str, line: int, field_name: str) -> None:
    limit = (settings.max_episode_chars, "max_episode_chars")
    check_size(ep["body"], limit, (path, line, field_name, ep["source_id"]), "an episode may have", BY_CHUNKS)
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
