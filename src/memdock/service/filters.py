"""Filters: what a recall may return, in the words every front door uses (thread, since, until, author,
role, type), checked once and translated once to the protocol's `filters` object."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..threads import thread_id_for
from . import arguments

WIRE_NAMES = {
    "thread": "thread_ids",
    "since": "time_from",
    "until": "time_to",
    "author": "authors",
    "role": "roles",
    "type": "entry_types",
}


@dataclass(frozen=True)
class Filters:
    """Only entries in these threads (names or ids), at or after `since`, at or before `until`, by these
    authors, with these roles, of these types. An empty field does not filter; several values are OR-ed
    within a field and fields are AND-ed."""

    thread: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    author: tuple[str, ...] = ()
    role: tuple[str, ...] = ()
    type: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        *,
        thread: Any = None,
        since: Any = None,
        until: Any = None,
        author: Any = None,
        role: Any = None,
        type: Any = None,
        names: Mapping[str, str] | None = None,
    ) -> Filters:
        """Checked filters from a caller's arguments; an error names the argument as the caller wrote it
        (NAMES maps `thread`, `since`, ... to the caller's spelling, e.g. `--thread`)."""
        label = {key: (names or {}).get(key, key) for key in WIRE_NAMES}
        return cls(
            thread=tuple(arguments.threads(thread, name=label["thread"])) if thread else (),
            since=arguments.when(since or None, name=label["since"]),
            until=arguments.when(until or None, name=label["until"]),
            author=_values(author, label["author"]),
            role=_values(role, label["role"]),
            type=_values(type, label["type"]),
        )

    @property
    def thread_ids(self) -> list[str]:
        return [thread_id_for(t) for t in self.thread]

    def __bool__(self) -> bool:
        return any(getattr(self, key) for key in WIRE_NAMES)

    def to_wire(self) -> dict[str, Any] | None:
        """The protocol's `filters` object (thread_ids, time_from, time_to, authors, roles, entry_types)."""
        out: dict[str, Any] = {}
        if self.thread:
            out["thread_ids"] = self.thread_ids
        if self.since:
            out["time_from"] = arguments.rfc3339(self.since)
        if self.until:
            out["time_to"] = arguments.rfc3339(self.until)
        for key in ("author", "role", "type"):
            if getattr(self, key):
                out[WIRE_NAMES[key]] = list(getattr(self, key))
        return out or None


def _values(value: Any, name: str) -> tuple[str, ...]:
    if value is None or value == "" or value == []:
        return ()
    return tuple(arguments.strings(value, name=name))
