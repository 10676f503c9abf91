"""The v1 records as dataclasses, for code that prefers types to dicts.

Bundles stream plain dicts (fast); these classes convert both ways. Fields a
newer MINOR adds that this version does not know are kept in `unknown` and
written back by `to_dict`, so a round trip loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, TypeVar

T = TypeVar("T", bound="Record")


@dataclass
class Record:
    record_type: ClassVar[str] = ""
    unknown: dict[str, Any] = field(default_factory=dict, kw_only=True, repr=False)

    @classmethod
    def from_dict(cls: type[T], data: dict[str, Any]) -> T:
        names = {f.name for f in fields(cls)} - {"unknown"}
        known = {k: v for k, v in data.items() if k in names}
        extra = {k: v for k, v in data.items() if k not in names}
        return cls(**known, unknown=extra)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name == "unknown":
                continue
            v = getattr(self, f.name)
            if v is not None:
                out[f.name] = v
        out.update(self.unknown)
        return out


@dataclass
class Thread(Record):
    record_type: ClassVar[str] = "thread"
    id: str
    title: str
    ingestion_time: str
    topic: str | None = None
    status: str | None = None
    ball: str | None = None
    source: str | None = None
    format: str | None = None
    event_time: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Entry(Record):
    record_type: ClassVar[str] = "entry"
    id: str
    thread_id: str
    position: int
    body: str
    ingestion_time: str
    author: str | None = None
    role: str | None = None
    entry_type: str | None = None
    title: str | None = None
    source: str | None = None
    source_line: int | None = None
    event_time: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Edge(Record):
    record_type: ClassVar[str] = "edge"
    id: str
    type: str
    source_id: str
    target_id: str
    thread_id: str | None = None
    weight: float | None = None
    event_time: str | None = None
    ingestion_time: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Chunk(Record):
    record_type: ClassVar[str] = "chunk"
    id: str
    entry_id: str
    thread_id: str
    position: int
    text: str
    start: int
    end: int
    token_count: int
    content_hash: str
    header: str | None = None
    author: str | None = None
    role: str | None = None
    entry_type: str | None = None
    event_time: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class EmbeddingRow(Record):
    record_type: ClassVar[str] = "embedding"
    chunk_id: str
    row: int
    model: str
    dim: int


@dataclass
class Entity(Record):
    record_type: ClassVar[str] = "entity"
    id: str
    entity_type: str
    name: str
    aliases: list[str] | None = None
    ingestion_time: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Query(Record):
    record_type: ClassVar[str] = "query"
    id: str
    text: str
    limit: int | None = None
    filters: dict[str, Any] | None = None
    mode: str | None = None
    metadata: dict[str, Any] | None = None


@dataclass
class Hit(Record):
    record_type: ClassVar[str] = "hit"
    id: str
    kind: str
    score: float
    text: str
    backend: str
    provenance: dict[str, str] = field(default_factory=dict)
    query_id: str | None = None
    rank: int | None = None
    name: str | None = None
    event_time: str | None = None
    extra: dict[str, Any] | None = None


RECORD_CLASSES: dict[str, type[Record]] = {
    c.record_type: c for c in (Thread, Entry, Edge, Chunk, EmbeddingRow, Entity, Query, Hit)
}
