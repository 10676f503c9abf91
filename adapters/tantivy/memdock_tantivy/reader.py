"""Searchers over the last commits, with the lookups every operation needs: by id, by key, by kind.

Chunks are read from the chunks' index, every other kind from the graph's (store.Indexes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tantivy

from memdock.sdk import facts

from . import queries, text_once
from .docs import record
from .store import Indexes

PAGE = 1000


class Reader:
    def __init__(self, indexes: Indexes):
        self.indexes, self.schema, self.keys = indexes, indexes.schema, indexes.keys
        self.unpack = indexes.packer.unpack
        self._searchers()

    def _searchers(self) -> None:
        self.graph = self.indexes.graph.searcher()
        self.chunks = self.graph if self.indexes.chunks is self.indexes.graph else self.indexes.chunks.searcher()
        self.all = [self.graph] if self.chunks is self.graph else [self.graph, self.chunks]

    def refresh(self) -> None:
        self.indexes.reload()
        self._searchers()

    @property
    def num_docs(self) -> int:
        return sum(s.num_docs for s in self.all)

    @property
    def num_segments(self) -> int:
        return sum(s.num_segments for s in self.all)

    def search(self, query: tantivy.Query, limit: int, *, chunks: bool = False) -> list[tuple[float, dict[str, Any]]]:
        searcher = self.chunks if chunks else self.graph
        hits = searcher.search(query, limit, count=False).hits
        recs = self.complete([record(searcher.doc(addr), self.unpack) for _, addr in hits])
        return [(s, rec) for (s, _), rec in zip(hits, recs)]

    def complete(self, recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """RECS as they were indexed: entry bodies held by their chunks and edge facts, not stored, put back."""
        return self.facts(self.bodies(recs))

    def bodies(self, recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        text_once.fill(recs, self._chunks_of)
        return recs

    def _chunks_of(self, entry_ids: list[str]) -> list[dict[str, Any]]:
        return self.every(queries.key(self.keys, "entry_id", entry_ids), "chunk", bare=True)

    def facts(self, recs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each edge's fact sentence rendered from its ends as they are stored (an edge of a version 1 store
        kept its own)."""
        todo = [r for r in recs if r["kind"] == "edge" and "fact" not in r]
        if not todo:
            return recs
        ends = {r["source_id"] for r in todo} | {r["target_id"] for r in todo}
        known = {r["id"]: r for r in self.every(queries.key(self.keys, "id", sorted(ends)), bare=True)}
        entries = {r["entry_id"] for r in known.values() if r["kind"] == "chunk"} - set(known)
        if entries:
            known.update((r["id"], r) for r in self.every(queries.key(self.keys, "id", sorted(entries)), "entry"))
        for r in todo:
            r["fact"] = facts.render(known.get, r)[0]
        return recs

    def every(self, query: tantivy.Query, kind: str | None = None, *, bare: bool = False) -> list[dict[str, Any]]:
        """Every stored record matching QUERY (for cascades and refreshes, not for ranking), of KIND's index or
        of both when KIND is None; BARE: no edge fact put back (entry bodies are)."""
        out = self.stored(query, kind)
        return self.bodies(out) if bare or kind in ("entry", "thread", "entity") else self.complete(out)

    def stored(self, query: tantivy.Query, kind: str | None = None) -> list[dict[str, Any]]:
        """Every record matching QUERY as stored: entry bodies held by their chunks and edge facts left out."""
        out = []
        for searcher in self.all if kind is None else [self.chunks if kind == "chunk" else self.graph]:
            first: Any = searcher.search(query, PAGE, count=True)  # the bindings' stubs lack SearchResult.count
            hits = first.hits if first.count <= PAGE else searcher.search(query, first.count, count=False).hits
            out += [record(searcher.doc(addr), self.unpack) for _, addr in hits]
        return out

    def get(self, record_id: str) -> dict[str, Any] | None:
        q = queries.key(self.keys, "id", [record_id])
        for searcher in self.all:
            hits = searcher.search(q, 1, count=False).hits
            if hits:
                return self.complete([record(searcher.doc(hits[0][1]), self.unpack)])[0]
        return None

    def where(self, field: str, values: Iterable[str], kind: str | None = None) -> list[dict[str, Any]]:
        """The records whose FIELD is one of VALUES, as stored (for cascades and lookups: no fact)."""
        values = list(values)
        if not values:
            return []
        q = queries.key(self.keys, field, values)
        return self.every(queries.combine(q, [queries.key(self.keys, "kind", [kind])]) if kind else q, kind, bare=True)

    def count(self, kind: str) -> int:
        searcher = self.chunks if kind == "chunk" else self.graph
        found: Any = searcher.search(queries.key(self.keys, "kind", [kind]), 1, count=True)
        return int(found.count)
