"""Structural edges derived from the entries that imply them (payload 1.2.0's `implied_edges`, `sdk/implied.py`).

The core sends an entry with `implied_edges` instead of its contains / follows / mentions edge records when this
adapter declares the `implied_edges` feature. The entry is stored without the field (its node answers as an explicit
store's does), and the links its edge records would have made are written straight from it (implied_links.py), in the
same order and with the same rowids as the records would get: held until the edge stage, each thread's before the
first edge record of that thread or a later one (the order `importers.base.structure` makes them in), the rest at the
end. An entry is reported committed only once its edges are, so a run killed between the two sends the entry again. An
entry sent again replaces the edges it implied before: its links of those types that it no longer implies are removed
(a link's fact is ranked from its ends, link_facts.py: no fact is stored to remove). A `follows` that names no stored
entry of the entry's thread, or a `mentions` that names no stored entity, is refused naming the entry and the field.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from memdock.sdk.implied import KEY, check_ends

from . import implied_links, links
from .implied_links import Derived

_KEPT = ("id", "thread_id", "event_time", "ingestion_time", KEY)
Groups = Iterable[tuple[str, Iterable[dict[str, Any]]]]
_TYPE = {t: links.TYPES.index(t) for t in ("contains", "follows", "mentions")}


class Implied:
    """One index run's implied entries: held from the entry stage to the edge stage. ON_COMMIT is the run's."""

    def __init__(self, on_commit: Callable[[list[str]], None]):
        self.report = on_commit
        self.threads: dict[str, dict[str, dict[str, Any]]] = {}  # thread: its held entries by id, in order
        self.withheld: list[str] = []
        self.held: set[str] = set()  # the ids of the entries held or withheld
        self.nodes = implied_links.Nodes()
        self.full: bool | None = None  # whether a structural edge is stored in full (None: not asked yet)
        # whether no link of an entry held may be stored: none was at the start, no record made one, and no entry
        # was held twice in the run (None: not asked yet)
        self.fresh: bool | None = None

    def on_commit(self, ids: list[str]) -> None:
        """Report IDS committed, but for the held entries (reported once their edges are)."""
        if self.held:
            ids = [i for i in ids if i not in self.held]
        self.report(ids)

    def groups(self, groups: Groups) -> Iterator[tuple[str, Iterable[Any]]]:
        """GROUPS with the entries' `implied_edges` taken off and their edges (implied_links.Derived) put among the
        edge records."""
        for rtype, records in groups:
            if rtype == "entry":
                self.nodes.clear()
                yield rtype, self._entries(records)
            elif rtype == "edge":
                yield rtype, self._edges(records)
            else:
                self.nodes.clear()
                yield rtype, records
        if self.threads:
            yield "edge", self._edges(())

    def _entries(self, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for r in records:
            if KEY in r:
                if r["id"] in self.held:
                    self.fresh = False
                held = self.threads.setdefault(r["thread_id"], {})
                held.pop(r["id"], None)
                held[r["id"]] = {k: r[k] for k in _KEPT if k in r}
                self.held.add(r["id"])
            yield r  # as it came: its node's attrs leave KEY out (ingest.entry_row), as if it had none

    def _edges(self, records: Iterable[dict[str, Any]]) -> Iterator[Any]:
        for r in records:
            thread = r.get("thread_id")
            if thread in self.threads:
                yield from self._release_upto(thread)
            yield r
        yield from self._release_upto(None)

    def _release_upto(self, thread: str | None) -> Iterator[Derived]:
        """The edges of the held threads up to THREAD (all when None), in the order they were held."""
        while self.threads:
            tid = next(iter(self.threads))
            entries = self.threads.pop(tid)
            for entry in entries.values():
                self.withheld.append(entry["id"])
                yield from implied_links.derived(entry)
            if tid == thread:
                return

    def write(
        self, conn: sqlite3.Connection, items: list[Derived], rowids: dict[str, int] | None = None
    ) -> list[dict[str, Any]]:
        """Write ITEMS' links and facts (implied_links.py) after checking their ends and removing the links of
        their entries that those entries no longer imply; returns the edge records to write instead when the
        links cannot all be made straight (none when they were). ROWIDS, when given, are those of every node
        stored (a first load's, first_load.FirstLoad.rowids)."""
        entries = {it[0]["id"]: it[0] for it in items}
        others = implied_links.named(entries.values()) - entries.keys()
        ends = self.nodes.read(conn, entries, others, rowids)
        kind = _kind(ends)
        for entry in entries.values():
            check_ends(entry, kind)
        if self.fresh is None:
            self.fresh = conn.execute("SELECT 1 FROM links LIMIT 1").fetchone() is None
        if not self.fresh:
            _drop_stale(conn, entries, ends)
        mine = implied_links.keys(items)
        if self.full is None:
            self.full = conn.execute(_FULL).fetchone() is not None
        if self.full or len(set(mine)) < len(mine) or (not self.fresh and implied_links.taken(conn, mine)):
            return [implied_links.record(it) for it in items]
        made = implied_links.rows(conn, items, mine, ends)
        if made is None:
            return [implied_links.record(it) for it in items]
        conn.executemany(links.INSERT, made)
        return []

    def release(self) -> None:
        """The edge stage is committed: report the held entries and their edges."""
        if self.withheld:
            self.report(self.withheld)
        self.withheld = []
        self.held.clear()


_FULL = "SELECT 1 FROM edges WHERE type IN ('contains', 'follows', 'mentions') LIMIT 1"


Nodes = dict[str, implied_links.Node]


def _kind(nodes: Nodes) -> Callable[[str], tuple[str, str | None] | None]:
    """A stored node's (kind, thread id) as `check_ends` asks for it."""

    def kind(node_id: str) -> tuple[str, str | None] | None:
        node = nodes.get(node_id)
        return None if node is None else (node[1], node[2])

    return kind


_OWN = (
    "SELECT rowid, key, code, source, target FROM links WHERE "
    f"(target IN (SELECT value FROM json_each(?)) AND code >> 1 = {_TYPE['contains']}) OR "
    f"(source IN (SELECT value FROM json_each(?)) AND code >> 1 IN ({_TYPE['follows']}, {_TYPE['mentions']}))"
)


def _drop_stale(conn: sqlite3.Connection, entries: dict[str, dict[str, Any]], ends: Nodes) -> None:
    """The links of ENTRIES' own structural types that their `implied_edges` no longer make (one query for the
    batch)."""
    rowids = {ends[eid][0]: e for eid, e in entries.items() if eid in ends}
    if not rowids:
        return
    nodes = json.dumps(list(rowids))
    own = list(conn.execute(_OWN, (nodes, nodes)))
    if not own:
        return
    now = {rowid: set(implied_links.keys(implied_links.derived(e))) for rowid, e in rowids.items()}
    stale = [
        rowid
        for rowid, key, code, source, target in own
        if (key, code >> 1) not in now[target if code >> 1 == _TYPE["contains"] else source]
    ]
    if stale:
        gone = json.dumps(stale)
        conn.execute("DELETE FROM links WHERE rowid IN (SELECT value FROM json_each(?))", (gone,))
