"""Structural edges derived from the entries that imply them (payload 1.2.0's `implied_edges`, `sdk/implied.py`).

The core sends an entry with `implied_edges` instead of its contains / follows / mentions edge records when this
adapter declares the `implied_edges` feature. The entry is stored without the field (its node answers as an
explicit store's does), and the edge records it stands for are made here and written by the same code, in the
same order and with the same rowids, as records would be: held until the edge stage, each thread's before the
first edge record of that thread or a later one (the order `importers.base.structure` makes them in), the rest
at the end. An entry is reported committed only once its edges are, so a run killed between the two sends the
entry again. An entry sent again replaces the edges it implied before: its links of those types that it no
longer implies are removed, facts and all. A `follows` that names no stored entry of the entry's thread, or a
`mentions` that names no stored entity, is refused naming the entry and the field.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from memdock.errors import InvalidInputError
from memdock.sdk.implied import KEY, expand, explicit

from . import links

_KEPT = ("id", "thread_id", "event_time", "ingestion_time", KEY)
Groups = Iterable[tuple[str, Iterable[dict[str, Any]]]]
Key = tuple[int, int] | None  # links.key_of: (key, type number) of an edge id


class Implied:
    """One index run's implied entries: held from the entry stage to the edge stage. ON_COMMIT is the run's."""

    def __init__(self, on_commit: Callable[[list[str]], None]):
        self.report = on_commit
        self.threads: dict[str, dict[str, dict[str, Any]]] = {}  # thread: its held entries by id, in order
        self.withheld: list[str] = []
        self.held: set[str] = set()  # the ids of the entries held or withheld
        self.derived: dict[str, dict[str, Any]] = {}  # edge id: the held entry it comes from
        self.keys: dict[str, set[Key]] = {}  # entry id: the link keys of the edges it implies

    def on_commit(self, ids: list[str]) -> None:
        """Report IDS committed, but for the held entries (reported once their edges are) and derived edges."""
        if self.held:
            ids = [i for i in ids if i not in self.held and i not in self.derived]
        self.report(ids)

    def groups(self, groups: Groups) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        """GROUPS with the entries' `implied_edges` taken off and their edges put among the edge records."""
        for rtype, records in groups:
            if rtype == "entry":
                yield rtype, self._entries(records)
            elif rtype == "edge":
                yield rtype, self._edges(records)
            else:
                yield rtype, records
        if self.threads:
            yield "edge", self._edges(())

    def _entries(self, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for r in records:
            if KEY in r:
                held = self.threads.setdefault(r["thread_id"], {})
                held.pop(r["id"], None)
                held[r["id"]] = {k: r[k] for k in _KEPT if k in r}
                self.held.add(r["id"])
                r = explicit(r)
            yield r

    def _edges(self, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for r in records:
            thread = r.get("thread_id")
            if thread in self.threads:
                yield from self._release_upto(thread)
            yield r
        yield from self._release_upto(None)

    def _release_upto(self, thread: str | None) -> Iterator[dict[str, Any]]:
        """The edges of the held threads up to THREAD (all when None), in the order they were held."""
        while self.threads:
            tid = next(iter(self.threads))
            entries = self.threads.pop(tid)
            for entry in entries.values():
                self.withheld.append(entry["id"])
                edges = list(expand(entry))
                self.keys[entry["id"]] = {links.key_of(edge["id"]) for edge in edges}
                for edge in edges:
                    self.derived[edge["id"]] = entry
                    yield edge
            if tid == thread:
                return

    def prepare(self, conn: sqlite3.Connection, batch: list[dict[str, Any]]) -> None:
        """Before BATCH's edges are written: check the derived ones' ends, and remove the links of their entries
        that those entries no longer imply."""
        entries = {e["id"]: e for e in (self.derived.get(r["id"]) for r in batch) if e is not None}
        if not entries:
            return
        ends = _nodes(conn, [*entries, *_targets(entries.values())])
        for entry in entries.values():
            _check(entry, ends)
        _drop_stale(conn, {eid: self.keys[eid] for eid in entries}, ends)

    def release(self) -> None:
        """The edge stage is committed: report the held entries and their edges."""
        if self.withheld:
            self.report(self.withheld)
        self.withheld = []
        self.held.clear()


def _targets(entries: Iterable[dict[str, Any]]) -> Iterator[str]:
    for e in entries:
        spec = e[KEY]
        if "follows" in spec:
            yield spec["follows"]
        yield from spec.get("mentions", ())


Nodes = dict[str, tuple[int, str, "str | None"]]


def _nodes(conn: sqlite3.Connection, ids: list[str]) -> Nodes:
    """rowid, kind and thread of the stored nodes among IDS (what the checks need: no text read)."""
    rows = conn.execute(
        "SELECT id, rowid, kind, thread_id FROM node_rows WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(set(ids))),),
    )
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def _check(entry: dict[str, Any], nodes: Nodes) -> None:
    spec, eid = entry[KEY], entry["id"]
    follows = spec.get("follows")
    if follows is not None:
        node = nodes.get(follows)
        if node is None or node[1] != "entry" or node[2] != entry["thread_id"]:
            where = "is not in the store" if node is None else f"is not an entry of thread {entry['thread_id']}"
            raise InvalidInputError(
                f"entry {eid}: implied_edges.follows names {follows}, which {where}",
                details={"record_id": eid, "field": f"{KEY}.follows"},
            )
    for i, entity in enumerate(spec.get("mentions", ())):
        node = nodes.get(entity)
        if node is None or node[1] != "entity":
            raise InvalidInputError(
                f"entry {eid}: implied_edges.mentions[{i}] names {entity}, which is not a stored entity",
                details={"record_id": eid, "field": f"{KEY}.mentions[{i}]"},
            )


_TYPE = {t: links.TYPES.index(t) for t in ("contains", "follows", "mentions")}
_OWN = (
    "SELECT rowid, key, code, source, target FROM links WHERE "
    f"(target IN (SELECT value FROM json_each(?)) AND code >> 1 = {_TYPE['contains']}) OR "
    f"(source IN (SELECT value FROM json_each(?)) AND code >> 1 IN ({_TYPE['follows']}, {_TYPE['mentions']}))"
)


def _drop_stale(conn: sqlite3.Connection, keys: dict[str, set[Key]], ends: Nodes) -> None:
    """The links of the entries' own structural types whose keys are not in KEYS (entry id: the link keys its
    `implied_edges` make), facts and all (one query for the batch: on a first index there are none)."""
    now = {ends[eid][0]: own for eid, own in keys.items() if eid in ends}
    if not now:
        return
    nodes = json.dumps(list(now))
    stale = [
        rowid
        for rowid, key, code, source, target in conn.execute(_OWN, (nodes, nodes))
        if (key, code >> 1) not in now[target if code >> 1 == _TYPE["contains"] else source]
    ]
    if stale:
        gone = json.dumps(stale)
        links.unindex(conn, "l.rowid IN (SELECT value FROM json_each(?))", (gone,))
        conn.execute("DELETE FROM links WHERE rowid IN (SELECT value FROM json_each(?))", (gone,))
