"""The links an entry's `implied_edges` stand for, written straight from the entry (implied.py holds the entries).

No edge record is made on the common path: a link's key is the first 8 bytes of the sha256 the edge id's digest
is cut from (what links.key_of reads back out of the id), and its ends are the rowids of the entry, its thread and
the nodes it names, read once per edge stage (a link's fact is not written: link_facts.py ranks it from its ends).
The links get the next shared rowids in the order the records would have had, so the store is the one the
records make. Where the records would not all have become new links (one of the keys is stored already, a
structural edge is stored in full, an end is missing, an edge is named twice), the records are made after all and
take the path any edge record takes (Ingest._write_edges), rowids, moves and unresolved facts included.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from typing import Any

from memdock.sdk.implied import KEY, edge_record

from . import links

_TYPE = {t: links.TYPES.index(t) for t in ("contains", "follows", "mentions")}


Derived = tuple[dict[str, Any], str, str, str]
"""One edge an implied entry stands for, in the edge stage's record stream (no id made): the held entry
(implied._KEPT and its `fact`), the edge's type, source and target."""


def record(item: Derived) -> dict[str, Any]:
    """The edge record ITEM stands for (sdk.implied.expand's)."""
    e, kind, source, target = item
    when = None if kind == "contains" else e.get("event_time")
    return edge_record(kind, source, target, e["thread_id"], when, e.get("ingestion_time"))


def derived(entry: dict[str, Any]) -> Iterator[Derived]:
    """The edges ENTRY (held, with its `implied_edges`) stands for, in sdk.implied.expand's order."""
    spec, eid, tid = entry[KEY], entry["id"], entry["thread_id"]
    yield entry, "contains", tid, eid
    if "follows" in spec:
        yield entry, "follows", eid, spec["follows"]
    for entity in spec.get("mentions", ()):
        yield entry, "mentions", eid, entity


def keys(items: Iterable[Derived]) -> list[tuple[int, int]]:
    """links.key_of(edge_id(kind, source, target)) of each of ITEMS, without the ids."""
    sha256, number, whole = hashlib.sha256, _TYPE, int.from_bytes
    return [
        (whole(sha256(f"{kind}\x1f{source}\x1f{target}".encode()).digest()[:8], "big", signed=True), number[kind])
        for _, kind, source, target in items
    ]


def named(entries: Iterable[dict[str, Any]]) -> set[str]:
    """The ids ENTRIES' edges (`derived`) name besides the entries themselves: their threads, the entries they
    follow, the entities they mention (and any of ENTRIES these name)."""
    out: set[str] = set()
    for entry in entries:
        spec = entry[KEY]
        out.add(entry["thread_id"])
        if "follows" in spec:
            out.add(spec["follows"])
        out.update(spec.get("mentions", ()))
    return out


Node = tuple[int, str, "str | None"]  # rowid, kind, thread_id


class Nodes:
    """The stored nodes an edge stage's links join: threads and entities kept while no node is written (`clear`),
    entries for one batch."""

    def __init__(self) -> None:
        self.kept: dict[str, Node] = {}

    def clear(self) -> None:
        self.kept.clear()

    def read(
        self,
        conn: sqlite3.Connection,
        entries: dict[str, dict[str, Any]],
        others: set[str],
        rowids: dict[str, int] | None = None,
    ) -> dict[str, Node]:
        """The stored nodes among ENTRIES (held) and OTHERS, by id; ENTRIES' rowids from ROWIDS (every stored node's)
        when given."""
        if rowids is None:
            rows: Iterable[tuple[str, int]] = conn.execute(  # the id index alone: a held entry is stored as an
                # entry of its thread
                "SELECT id, rowid FROM node_rows WHERE id IN (SELECT value FROM json_each(?))",
                (json.dumps(list(entries)),),
            )
        else:
            rows = ((i, rowids[i]) for i in entries if i in rowids)
        out = {i: (rowid, "entry", entries[i]["thread_id"]) for i, rowid in rows}
        missing = [i for i in others if i not in self.kept and i not in out]
        if missing:
            ends, known = links.endpoints(conn, missing)
            for i, (rowid, thread, _) in ends.items():
                node = (rowid, known[i]["kind"], thread)
                if node[1] == "entry":
                    out[i] = node
                else:
                    self.kept[i] = node
        out.update((i, self.kept[i]) for i in others if i in self.kept)
        return out


def taken(conn: sqlite3.Connection, keys: list[tuple[int, int]]) -> bool:
    """Whether a link is stored under one of KEYS ((key, type number))."""
    rows = conn.execute(f"SELECT key, code FROM links WHERE {links.KEYS_SQL}", links.keys_args(keys))
    wanted = set(keys)
    return any((k, code >> 1) in wanted for k, code in rows)


def rows(
    conn: sqlite3.Connection, items: list[Derived], keys: list[tuple[int, int]], nodes: dict[str, Node]
) -> list[tuple[int, ...]] | None:
    """The links rows of ITEMS (KEYS theirs), or None when one of their ends is not stored."""
    nxt = links.next_rowid(conn)
    get = nodes.get
    out: list[tuple[int, ...]] = []
    for row, (entry, kind, source, target), (k, t) in zip(itertools.count(nxt), items, keys):
        src, dst = get(source), get(target)
        if src is None or dst is None:
            return None
        timed = kind != "contains" and entry.get("event_time") is not None
        out.append((row, k, t * 2 + timed, src[0], dst[0]))
    return out
