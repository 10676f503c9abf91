"""memdock's query filters (thread ids, time range, authors, roles, entry types), parsed once and checked.

A backend that can filter pushes them down (mem0's metadata filters); one that cannot (OpenMemory's
REST search) checks each hit's entry against them with `passes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memdock.sdk.kit.filters import filter_object, thread_ids, time_bound

from .meta import author_keys, epoch

KNOWN = {"thread_ids", "time_from", "time_to", "authors", "roles", "entry_types"}


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
        f = filter_object(params, KNOWN)
        low = lambda key: tuple(str(v).lower() for v in f.get(key) or ())
        return cls(
            threads=tuple(thread_ids(f, params)),
            since=time_bound(f, "time_from"),
            until=time_bound(f, "time_to"),
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
