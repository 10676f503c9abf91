"""Structural edges an entry stands for (payload 1.2.0's `implied_edges`), made into the edge records they replace.

An entry that carries `implied_edges` is sent without its contains, follows and mentions edge records: a store
whose adapter declares the `implied_edges` feature derives them from the entry, and whatever reads the records back
for another reader (`memdock export`, a backend without the feature) expands them here into the records
`importers.base.structure` makes, byte for byte (same ids, keys in the same order, same values): contains (the
entry's thread to it), follows (it to the entry before it) with its event_time, mentions (it to each entity, in
order) with its event_time, all with its thread_id and ingestion_time. A replies_to edge stays a record.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..errors import InvalidInputError
from ..ids import digest

KEY = "implied_edges"
KINDS = frozenset({"contains", "follows", "mentions"})
"""The edge types an implied entry stands for."""


def edge_record(
    kind: str, source: str, target: str, thread_id: str | None, when: str | None, now: str | None
) -> dict[str, Any]:
    """The structural edge record `importers.base.structure` makes (keys in this order)."""
    rec = {"id": edge_id(kind, source, target), "type": kind, "source_id": source, "target_id": target}
    if thread_id:
        rec["thread_id"] = thread_id
    if when is not None:
        rec["event_time"] = when
    if now is not None:
        rec["ingestion_time"] = now
    return rec


def edge_id(kind: str, source: str, target: str) -> str:
    return f"edge:{kind}:{digest(kind, source, target)}"


def implied(follows: str | None, mentions: list[str]) -> dict[str, Any]:
    """The `implied_edges` value of an entry after FOLLOWS (None: the first of its thread) naming MENTIONS."""
    out: dict[str, Any] = {}
    if follows is not None:
        out["follows"] = follows
    if mentions:
        out["mentions"] = mentions
    return out


def expand(entry: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The edge records ENTRY stands for (none when it carries no `implied_edges`), in `structure`'s order."""
    spec = entry.get(KEY)
    if spec is None:
        return
    eid, tid = entry["id"], entry["thread_id"]
    when, now = entry.get("event_time"), entry.get("ingestion_time")
    yield edge_record("contains", tid, eid, tid, None, now)
    follows = spec.get("follows")
    if follows is not None:
        yield edge_record("follows", eid, follows, tid, when, now)
    for entity in spec.get("mentions", ()):
        yield edge_record("mentions", eid, entity, tid, when, now)


def implied_count(entry: dict[str, Any]) -> int:
    """How many edge records ENTRY stands for."""
    spec = entry.get(KEY)
    if spec is None:
        return 0
    return 1 + ("follows" in spec) + len(spec.get("mentions", ()))


def edge_ids(entry: dict[str, Any]) -> list[str]:
    """The ids of the edges ENTRY stands for."""
    return [e["id"] for e in expand(entry)]


def explicit(entry: dict[str, Any]) -> dict[str, Any]:
    """ENTRY as a reader without the feature gets it: without `implied_edges` (a copy when it had them)."""
    if KEY not in entry:
        return entry
    return {k: v for k, v in entry.items() if k != KEY}


def check_ends(entry: dict[str, Any], node: Callable[[str], tuple[str, str | None] | None]) -> None:
    """Refuse ENTRY when its `follows` is not a stored entry of its thread or a `mentions` is not a stored entity.
    NODE gives a stored node's (kind, thread id), None when it is not stored."""
    spec, eid = entry[KEY], entry["id"]
    follows = spec.get("follows")
    if follows is not None:
        found = node(follows)
        if found is None or found[0] != "entry" or found[1] != entry["thread_id"]:
            where = "is not in the store" if found is None else f"is not an entry of thread {entry['thread_id']}"
            raise InvalidInputError(
                f"entry {eid}: implied_edges.follows names {follows}, which {where}",
                details={"record_id": eid, "field": f"{KEY}.follows"},
            )
    for i, entity in enumerate(spec.get("mentions", ())):
        found = node(entity)
        if found is None or found[0] != "entity":
            raise InvalidInputError(
                f"entry {eid}: implied_edges.mentions[{i}] names {entity}, which is not a stored entity",
                details={"record_id": eid, "field": f"{KEY}.mentions[{i}]"},
            )
