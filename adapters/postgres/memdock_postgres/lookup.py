"""Stored records by id, across the node tables (what facts name, and where a chunk finds its entry)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import psycopg

NODE_TABLES = ("threads", "entries", "entities", "chunks")
ALL_TABLES = (*NODE_TABLES, "edges")


def fetch(conn: psycopg.Connection, ids: Iterable[str], tables: tuple[str, ...] = NODE_TABLES) -> dict[str, dict]:
    """The stored records (each with its `kind`) of those IDS that are stored in TABLES."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    union = " UNION ALL ".join(f"SELECT rec FROM {t} WHERE id = ANY(%(ids)s)" for t in tables)
    return {rec["id"]: rec for (rec,) in conn.execute(union, {"ids": wanted})}


class Known:
    """What a fact needs to name a record, from this run's own writes, else from the database (cached)."""

    LIMIT = 200_000
    DESCRIBED = ("id", "kind", "title", "name", "entity_type", "author", "role", "entry_type", "event_time")

    def __init__(self) -> None:
        self.cache: dict[str, dict[str, Any] | None] = {}

    def remember(self, rec: dict[str, Any]) -> None:
        if len(self.cache) >= self.LIMIT:
            self.cache.clear()
        short = {k: rec.get(k) for k in self.DESCRIBED}
        short.update(body=(rec.get("body") or "")[:200], thread_id=rec.get("thread_id"), entry_id=rec.get("entry_id"))
        self.cache[rec["id"]] = short

    def load(self, conn: psycopg.Connection, ids: Iterable[str]) -> None:
        """Fetch IDS not known yet in one query per table; a chunk's entry is fetched too."""
        missing = [i for i in dict.fromkeys(ids) if i not in self.cache]
        found = fetch(conn, missing)
        for i in missing:
            if i in found:
                self.remember(found[i])
            else:
                self.cache[i] = None
        parents = [r["entry_id"] for r in found.values() if r["kind"] == "chunk"]
        if parents:
            self.load(conn, parents)

    def forget_missing(self) -> None:
        """Drop the 'not stored' answers: another writer may have stored them since."""
        self.cache = {k: v for k, v in self.cache.items() if v is not None}

    def get(self, record_id: str) -> dict[str, Any] | None:
        return self.cache.get(record_id)
