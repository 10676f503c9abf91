"""Upsert a bundle's records in batches, each one transaction, checkpointed only once Postgres has committed it.

Order matters: threads, entities and entries before chunks (a chunk takes author, role, type and time from its
entry when it lacks them), and edges last so their facts can name both ends. Within a transaction rows are
written in one global order (table, then id), so writers indexing shards into the same memory at once never wait
on each other in a cycle; a deadlock or serialization failure the server reports anyway is retried."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

import psycopg

from memdock.sdk import facts

from . import rows
from .lookup import Known

ORDER = ("thread", "entity", "entry", "chunk", "edge")
BATCH = 1000
RETRIES = 5
RETRY_STATES = ("40P01", "40001")


class Ingest:
    """Adds records, commits every BATCH_SIZE of them, then calls ON_COMMIT with the committed ids.

    Call `flush()` after the last `run()`: it commits what is still pending."""

    def __init__(self, conn: psycopg.Connection, *, on_commit: Callable[[list[str]], None], batch_size: int = BATCH):
        self.conn, self.on_commit, self.batch_size = conn, on_commit, batch_size
        self.counts: dict[str, int] = {}
        self.known = Known()
        self._pending: list[tuple[str, str, tuple[Any, ...]]] = []

    def run(self, rtype: str, records: Iterable[dict[str, Any]]) -> None:
        it = iter(records)
        while batch := list(islice(it, self.batch_size - len(self._pending))):
            self._pending += [(rtype, r["id"], row) for r, row in zip(batch, self._rows(rtype, batch))]
            if rtype in ("thread", "entity", "entry"):
                for r in batch:
                    self.known.remember({"kind": rtype, **r})
            if len(self._pending) >= self.batch_size:
                self.flush()

    def _rows(self, rtype: str, batch: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        if rtype == "chunk":
            self.known.load(self.conn, [r["entry_id"] for r in batch if any(r.get(k) is None for k in rows.INHERITED)])
            return [rows.chunk(r, self.known.get(r["entry_id"])) for r in batch]
        if rtype == "edge":
            self.known.load(self.conn, [i for r in batch for i in (r["source_id"], r["target_id"])])
            return [self._edge(r) for r in batch]
        return [getattr(rows, rtype)(r) for r in batch]

    def _edge(self, r: dict[str, Any]) -> tuple[Any, ...]:
        text, resolved = facts.render(self.known.get, r)
        source = self.known.get(r["source_id"])
        return rows.edge(r, text, resolved, source["kind"] if source else None)

    def flush(self) -> None:
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        pending.sort(key=lambda p: (ORDER.index(p[0]), p[1]))
        self.commit(pending)
        for rtype, _, _ in pending:
            self.counts[rtype] = self.counts.get(rtype, 0) + 1
        self.on_commit([i for _, i, _ in pending])

    def commit(self, pending: list[tuple[str, str, tuple[Any, ...]]]) -> None:
        for attempt in range(RETRIES):
            try:
                with self.conn.transaction(), self.conn.cursor() as cur:
                    for kind in ORDER:
                        batch = [row for k, _, row in pending if k == kind]
                        if batch:
                            cur.executemany(rows.upsert(kind), batch)
                return
            except psycopg.errors.OperationalError as exc:
                if exc.sqlstate not in RETRY_STATES or attempt == RETRIES - 1:
                    raise

    def refresh_unresolved(self) -> int:
        """Render again the facts whose endpoints were missing; returns how many are now resolved."""
        self.flush()
        self.known.forget_missing()
        pending = [rec for (rec,) in self.conn.execute("SELECT rec FROM edges WHERE NOT resolved ORDER BY id")]
        self.known.load(self.conn, [i for e in pending for i in (e["source_id"], e["target_id"])])
        fixed = []
        for rec in pending:
            edge = {k: v for k, v in rec.items() if k not in ("kind", "fact", "source_kind")}
            row = self._edge(edge)
            if row[6]:  # resolved
                fixed.append(("edge", edge["id"], row))
        if fixed:
            self.commit(fixed)
        return len(fixed)
