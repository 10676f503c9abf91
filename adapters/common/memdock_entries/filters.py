"""memdock's query filters (thread ids, time range, authors, roles, entry types), parsed once and checked.

A backend that can filter pushes them down (mem0's metadata filters); one that cannot (OpenMemory's
REST search) checks each hit's entry against them with `passes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memdock import times
from memdock.errors import InvalidInputError

from .meta import author_keys, epoch

KNOWN = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}


def _epoch(filters: dict[str, Any], key: str) -> float:
    try:
        return times.parse(str(filters[key])).timestamp()
    except ValueError:
        raise InvalidInputError(f"filters.{key}: not an RFC 3339 date-time: {filters[key]!r}") from None


@dataclass(frozen=True)
class Filters:
    threads: tuple[str, ...] = ()
    since: float | None = None
    until: float | None = None
    authors: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    types: tuple[str, ...] = ()

    @classmethod
    def parse(cls, params: dict[str, Any]) -> Filters:
        f = params.get("filters") or {}
        if not isinstance(f, dict):
            raise InvalidInputError("filters must be an object")
        unknown = sorted(set(f) - KNOWN)
        if unknown:
            raise InvalidInputError(f"unknown filters {unknown}; known: {sorted(KNOWN)}")
        low = lambda key: tuple(str(v).lower() for v in f.get(key) or ())
        return cls(
            threads=tuple(dict.fromkeys(list(f.get("thread_ids") or []) + list(params.get("group_ids") or []))),
            since=_epoch(f, "time_from") if f.get("time_from") else None,
            until=_epoch(f, "time_to") if f.get("time_to") else None,
            authors=low("authors"),
            roles=low("roles"),
            types=low("entry_types"),
        )

    @property
    def any(self) -> bool:
        return bool(self.threads or self.since or self.until or self.authors or self.roles or self.types)

    def passes(self, entry: dict[str, Any] | None) -> bool:
        """Whether ENTRY (a catalog row) meets every filter; an unknown entry meets none."""
        if not self.any:
            return True
        if entry is None:
            return False
        when = epoch(entry.get("event_time"))
        if (self.since is not None and (when is None or when < self.since)) or (
            self.until is not None and (when is None or when > self.until)
        ):
            return False
        if self.threads and entry["thread_id"] not in self.threads:
            return False
        if self.authors and not set(author_keys(entry.get("author"))) & set(self.authors):
            return False
        if self.roles and (entry.get("role") or "").lower() not in self.roles:
            return False
        return not self.types or (entry.get("entry_type") or "").lower() in self.types
