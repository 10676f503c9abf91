"""What the service's own operations return (searches return the contract's SearchResult/GetResult)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..contract import Capabilities, HealthStatus


@dataclass
class Remembered:
    """One remembered entry: its id and the id of the thread it was filed under (a thread name given to
    `remember` becomes that id; pass either back as `thread=` to recall from it)."""

    id: str
    thread_id: str
    indexed: dict[str, int] = field(default_factory=dict)
    degraded: bool = False
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "thread_id": self.thread_id,
            "indexed": self.indexed,
            "degraded": self.degraded,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class Entry:
    """One entry of a thread, as it was stored: what `Memory.list` pages through."""

    id: str
    thread_id: str
    text: str
    time: str | None = None
    author: str | None = None
    role: str | None = None
    type: str | None = None
    title: str | None = None
    metadata: dict[str, Any] | None = None

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Entry:
        return cls(
            id=record["id"],
            thread_id=record["thread_id"],
            text=record.get("body") or "",
            time=record.get("event_time"),
            author=record.get("author"),
            role=record.get("role"),
            metadata=record.get("metadata"),
            type=record.get("entry_type"),
            title=record.get("title"),
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class Status:
    """Which backend holds the memory, where, what it can do, what it holds, and whether it is healthy."""

    backend: str
    store: str = ""
    capabilities: Capabilities | None = None
    counts: dict[str, int] = field(default_factory=dict)
    health: HealthStatus | None = None
    degraded: bool = False
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "backend": self.backend,
            "store": self.store,
            "capabilities": self.capabilities.to_dict() if self.capabilities else None,
            "counts": self.counts,
            "health": self.health.to_dict() if self.health else None,
            "degraded": self.degraded,
        }
        if self.reason:
            out["reason"] = self.reason
        return out
