"""Payload records as table rows: the record kept whole (`rec`, with its kind), the columns filters read, and the
two texts each tsvector is made of (weight A: a chunk's header or a node's title or name; weight B: the body)."""

from __future__ import annotations

from typing import Any

from memdock_entries.meta import author_keys, epoch
from psycopg.types.json import Jsonb

INHERITED = ("author", "role", "entry_type", "event_time")
TSV = "setweight(to_tsvector('english', %s), 'A') || setweight(to_tsvector('english', %s), 'B')"


def _lower(value: Any) -> str | None:
    return str(value).lower() if value else None


def _filtered(r: dict[str, Any]) -> tuple[Any, ...]:
    return (
        author_keys(r.get("author")),
        _lower(r.get("role")),
        _lower(r.get("entry_type")),
        epoch(r.get("event_time")),
    )


def thread(r: dict[str, Any]) -> tuple[Any, ...]:
    text = " ".join(x for x in (r.get("topic"), r.get("status"), r.get("ball")) if x)
    rec = {"kind": "thread", **r, "thread_id": r["id"]}
    return (r["id"], epoch(r.get("event_time")), Jsonb(rec), r.get("title") or "", text)


def entity(r: dict[str, Any]) -> tuple[Any, ...]:
    text = " ".join([r["entity_type"], r["name"], *(r.get("aliases") or [])])
    return (r["id"], Jsonb({"kind": "entity", **r}), r["name"], text)


def entry(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["id"], r["thread_id"], *_filtered(r), Jsonb({"kind": "entry", **r}), r.get("title") or "", r["body"])


def chunk(r: dict[str, Any], parent: dict[str, Any] | None) -> tuple[Any, ...]:
    """PARENT (the stored entry) supplies author, role, type and time where the chunk lacks them."""
    if parent is not None and any(r.get(k) is None for k in INHERITED):
        r = {**r, **{k: parent.get(k) for k in INHERITED if r.get(k) is None and parent.get(k) is not None}}
    return (
        r["id"],
        r["entry_id"],
        r["thread_id"],
        *_filtered(r),
        Jsonb({"kind": "chunk", **r}),
        r.get("header") or "",
        body_of(r),
    )


def body_of(r: dict[str, Any]) -> str:
    """A chunk's text without its header (the header is the text's first line when it has one)."""
    header, text = r.get("header") or "", r["text"]
    return text[len(header) + 1 :] if header and text.startswith(header + "\n") else text


def edge(r: dict[str, Any], fact: str, resolved: bool, source_kind: str | None) -> tuple[Any, ...]:
    rec = {"kind": "edge", **r, "fact": fact, "source_kind": source_kind}
    return (
        r["id"],
        r["type"],
        r["source_id"],
        r["target_id"],
        r.get("thread_id"),
        source_kind,
        resolved,
        epoch(r.get("event_time")),
        Jsonb(rec),
        "",
        fact,
    )


_COLUMNS = {
    "thread": ("id", "ts", "rec"),
    "entity": ("id", "rec"),
    "entry": ("id", "thread_id", "author_keys", "role", "entry_type", "ts", "rec"),
    "chunk": ("id", "entry_id", "thread_id", "author_keys", "role", "entry_type", "ts", "rec"),
    "edge": ("id", "type", "source_id", "target_id", "thread_id", "source_kind", "resolved", "ts", "rec"),
}
TABLE = {"thread": "threads", "entity": "entities", "entry": "entries", "chunk": "chunks", "edge": "edges"}


def upsert(kind: str) -> str:
    """INSERT ... ON CONFLICT (id) DO UPDATE for KIND's rows: an upsert, so a re-run leaves one copy."""
    cols = _COLUMNS[kind]
    names = ", ".join((*cols, "tsv"))
    values = ", ".join(["%s"] * len(cols) + [TSV])
    updates = ", ".join(f"{c} = excluded.{c}" for c in (*cols[1:], "tsv"))
    return f"INSERT INTO {TABLE[kind]} ({names}) VALUES ({values}) ON CONFLICT (id) DO UPDATE SET {updates}"
