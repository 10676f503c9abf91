"""Typed records: a Hit, what every search returns.

Bundles stream plain dicts (fast); a record class converts both ways. Fields a
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
