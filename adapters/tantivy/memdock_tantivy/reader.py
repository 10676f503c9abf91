"""A searcher over the last commit, with the lookups every operation needs: by id, by key, by kind."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import tantivy

from . import queries
from .docs import record

PAGE = 1000


class Reader:
    def __init__(self, index: tantivy.Index):
        self.index, self.schema = index, index.schema
        self.searcher = index.searcher()

    def refresh(self) -> None:
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, query: tantivy.Query, limit: int) -> list[tuple[float, dict[str, Any]]]:
        hits = self.searcher.search(query, limit, count=False).hits
        return [(s, record(self.searcher.doc(addr))) for s, addr in hits]

    def every(self, query: tantivy.Query) -> list[dict[str, Any]]:
        """Every stored record matching QUERY (for cascades and refreshes, not for ranking)."""
        first: Any = self.searcher.search(query, PAGE, count=True)  # the bindings' stubs lack SearchResult.count
        hits = first.hits if first.count <= PAGE else self.searcher.search(query, first.count, count=False).hits
        return [record(self.searcher.doc(addr)) for _, addr in hits]

    def get(self, record_id: str) -> dict[str, Any] | None:
        found = self.search(queries.key(self.schema, "id", [record_id]), 1)
        return found[0][1] if found else None

    def where(self, field: str, values: Iterable[str], kind: str | None = None) -> list[dict[str, Any]]:
        values = list(values)
        if not values:
            return []
        q = queries.key(self.schema, field, values)
        return self.every(queries.combine(q, [queries.key(self.schema, "kind", [kind])]) if kind else q)

    def count(self, kind: str) -> int:
        found: Any = self.searcher.search(queries.key(self.schema, "kind", [kind]), 1, count=True)
        return int(found.count)
