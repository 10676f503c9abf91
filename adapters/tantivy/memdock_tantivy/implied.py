"""Structural edges derived from the entries that imply them (payload 1.2.0's `implied_edges`, `sdk/implied.py`).

The core sends an entry with `implied_edges` instead of its contains / follows / mentions edge records when this
adapter declares the `implied_edges` feature. The entry is stored without the field (it answers as an explicit
store's does), and the edge records it stands for are made here and stored by the same code, as the same
documents, in the same order as records would be: each thread's before the first edge record of that thread or of
a later one (the order `importers.base.structure` makes them in), the rest at the end of the edges. The documents
of a store built so are those of one built from edge records, so search_facts (the same BM25 statistics), get_edge,
graph walks and deletes answer alike.

An entry is reported committed only at the end of the run, once its edges are committed too, so a run killed
between the two sends the entry again. An entry sent again replaces the edges it implied before: its stored edges
of those types that it no longer implies are deleted in the run's commit. A `follows` that names no entry of the
entry's thread (in this run or stored), or a `mentions` that names no entity, is refused naming the entry and the
field, before the run's edges are written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from memdock.sdk.implied import KEY, check_ends, expand, explicit

from .docs import UNREAD

_NOT_GIVEN = ("kind", "source_kind", "fact")  # what a stored edge has beyond its record
_KEPT = ("id", "thread_id", "event_time", "ingestion_time", KEY)
Groups = Iterable[tuple[str, Iterable[dict[str, Any]]]]
Lookup = Callable[[str], "dict[str, Any] | None"]  # a node's kind and thread: this run's, else the index's
Stored = Callable[[str, list[str]], list[dict[str, Any]]]  # the stored edges whose FIELD is one of the ids


class Implied:
    """One index run's implied entries, held from the entry stage to the edge stage. ON_COMMIT is the run's."""

    def __init__(self, on_commit: Callable[[list[str]], None]):
        self.report = on_commit
        self.threads: dict[str, dict[str, dict[str, Any]]] = {}  # thread: its held entries by id, in order
        self.held: dict[str, None] = {}  # ids of the entries held, reported at `release`
        self.derived: set[str] = set()  # ids of the edges made here
        self.nodes: dict[str, tuple[str, str | None]] = {}  # this run's entries and entities: kind, thread
        self.lookup: Lookup = lambda _: None
        self.stale: list[str] = []  # ids of stored edges the entries sent again no longer imply
        self.closing = False  # every edge is made: the next commit is the run's last

    @property
    def any(self) -> bool:
        return bool(self.held)

    def on_commit(self, ids: list[str]) -> None:
        """Report IDS committed, but for the derived edges and the held entries (reported with the run's last
        commit, once `closing` is set, or at `release`)."""
        if self.held:
            ids = [i for i in ids if i not in self.held and i not in self.derived]
            if self.closing:
                ids += self.held
                self.held = {}
        self.report(ids)

    def release(self) -> None:
        """The run's last commit is done: report the held entries."""
        if self.held:
            self.report(list(self.held))
        self.held = {}

    def groups(self, groups: Groups, stored: Stored | None) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        """GROUPS with the entries' `implied_edges` taken off and their edges put among the edge records. STORED
        (None when the store was empty) finds the edges the entries implied when stored before."""
        for rtype, records in groups:
            if rtype == "entry":
                yield rtype, self._entries(records)
            elif rtype == "entity":
                yield rtype, self._note(records, "entity")
            elif rtype == "edge":
                yield rtype, self._edges(records, stored)
            else:
                yield rtype, records
        if self.threads:
            yield "edge", self._edges((), stored)

    def _note(self, records: Iterable[dict[str, Any]], kind: str) -> Iterator[dict[str, Any]]:
        for r in records:
            self.nodes[r["id"]] = (kind, r.get("thread_id"))
            yield r

    def _entries(self, records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for r in records:
            self.nodes[r["id"]] = ("entry", r.get("thread_id"))
            if KEY in r:
                held = self.threads.setdefault(r["thread_id"], {})
                held.pop(r["id"], None)
                held[r["id"]] = {k: r[k] for k in _KEPT if k in r}
                self.held[r["id"]] = None
                r = explicit(r)
            yield r

    def _edges(self, records: Iterable[dict[str, Any]], stored: Stored | None) -> Iterator[dict[str, Any]]:
        for r in records:
            thread = r.get("thread_id")
            if thread in self.threads:
                yield from self._release_upto(thread, stored)
            yield r
        yield from self._release_upto(None, stored)

    def _release_upto(self, thread: str | None, stored: Stored | None) -> Iterator[dict[str, Any]]:
        """The edges of the held threads up to THREAD (all when None), in the order they were held."""
        while self.threads:
            tid = next(iter(self.threads))
            entries = list(self.threads.pop(tid).values())
            for entry in entries:
                check_ends(entry, self._kind)
            edges = [list(expand(entry)) for entry in entries]
            if stored is not None:
                self._find_stale(entries, edges, stored)
            for made in edges:
                for edge in made:
                    self.derived.add(edge["id"])
                    yield Made(edge)
            if tid == thread:
                return

    def _kind(self, node_id: str) -> tuple[str, str | None] | None:
        if node_id in self.nodes:
            return self.nodes[node_id]
        rec = self.lookup(node_id)
        return None if rec is None else (rec["kind"], rec.get("thread_id"))

    def _find_stale(self, entries: list[dict[str, Any]], edges: list[list[dict[str, Any]]], stored: Stored) -> None:
        """Note the stored edges of ENTRIES' own structural types (contains into them, follows and mentions out of
        them) that they no longer imply, and take out of EDGES (one list per entry) those stored as they are: an
        explicit run does not send an unchanged edge record again, so neither its document nor the index's
        statistics change."""
        ids = [e["id"] for e in entries]
        now = {edge["id"]: edge for made in edges for edge in made}
        into = set(ids)
        kept = set()
        found = [r for r in stored("target_id", ids) if r.get("type") == "contains" and r["target_id"] in into]
        found += [r for r in stored("source_id", ids) if r.get("type") in ("follows", "mentions")]
        for rec in found:
            edge = now.get(rec["id"])
            if edge is None:
                self.stale.append(rec["id"])
            elif _same(rec, edge):
                kept.add(rec["id"])
        if kept:
            edges[:] = [[e for e in made if e["id"] not in kept] for made in edges]


class Made(dict):
    """An edge record `expand` made, so its id is `edge_id` of its type and ends: its document does not hash them
    again to check that (compact_edges.encode)."""

    __slots__ = ()


def _same(stored: dict[str, Any], edge: dict[str, Any]) -> bool:
    """Whether the edge record EDGE is stored as STORED (its fields but those the store does not keep)."""
    mine = {k: v for k, v in stored.items() if k not in _NOT_GIVEN}
    return mine == {k: v for k, v in edge.items() if k not in UNREAD}
