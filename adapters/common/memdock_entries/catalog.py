"""An adapter's own record of what it gave the framework: catalog.sqlite in the data dir.

mem0 and OpenMemory know memories by random uuids; memdock knows threads, entries and chunks by id. The catalog
keeps, per entry, its metadata, its body (episodes are the source entries), its content hash and
state (`pending` before the framework is called, `committed` after), and the ids of the memories the framework made
from it; chunks are recorded as members of their entry. An index run's entries are staged first,
so every check happens before anything reaches the framework.

Staging lives in TEMP tables: each connection (each adapter process) sees only its own run's entries, so shard
processes indexing into one store at once (`parallel_writers: shared`) never clear or write each other's entries.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from memdock.sdk.kit.catalog import CatalogFile

ENTRY_FIELDS = (
    "id",
    "thread_id",
    "author",
    "role",
    "entry_type",
    "title",
    "event_time",
    "body",
    "content_hash",
    "state",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, title TEXT);
CREATE TABLE IF NOT EXISTS entries (id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, author TEXT, role TEXT,
  entry_type TEXT,
    title TEXT, event_time TEXT, body TEXT NOT NULL, content_hash TEXT NOT NULL, state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS entries_thread ON entries (thread_id);
CREATE TABLE IF NOT EXISTS memories (memory_id TEXT PRIMARY KEY, entry_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS memories_entry ON memories (entry_id);
CREATE TABLE IF NOT EXISTS members (record_id TEXT NOT NULL, entry_id TEXT NOT NULL, PRIMARY KEY (record_id, entry_id));
CREATE INDEX IF NOT EXISTS members_entry ON members (entry_id);
DROP TABLE IF EXISTS main.staged;
DROP TABLE IF EXISTS main.staged_members;
CREATE TEMP TABLE IF NOT EXISTS staged (seq INTEGER PRIMARY KEY, event_time TEXT, entry TEXT NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS staged_members (record_id TEXT NOT NULL, entry_id TEXT NOT NULL,
  PRIMARY KEY (record_id, entry_id));
"""


class Catalog(CatalogFile):
    SCHEMA = SCHEMA

    # -- staging ---------------------------------------------------------------------------------

    def put_thread(self, thread_id: str, title: str | None) -> None:
        self.conn.execute(
            "INSERT INTO threads VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title", (thread_id, title)
        )

    def thread_title(self, thread_id: str) -> str | None:
        row = self.conn.execute("SELECT title FROM threads WHERE id = ?", (thread_id,)).fetchone()
        return row[0] if row else None

    def stage(self, entry: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO staged (event_time, entry) VALUES (?, ?)",
            (entry.get("event_time"), json.dumps(entry, ensure_ascii=False)),
        )
        self.conn.execute("INSERT OR IGNORE INTO staged_members VALUES (?, ?)", (entry["id"], entry["id"]))

    def stage_member(self, record_id: str, entry_id: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO staged_members VALUES (?, ?)", (record_id, entry_id))
        self.conn.execute("INSERT OR IGNORE INTO members VALUES (?, ?)", (record_id, entry_id))

    def staged(self) -> Iterator[dict[str, Any]]:
        """Staged entries in event-time order (bundle order among equals)."""
        return self.staged_items("entry")

    def staged_members(self, entry_id: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT record_id FROM staged_members WHERE entry_id = ?", (entry_id,))]

    def members_without_staged_entry(self) -> list[str]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT record_id FROM staged_members WHERE entry_id NOT IN (SELECT json_extract(entry, '$.id') FROM "
                "staged)"
            )
        ]

    # -- entries and their memories --------------------------------------------------------------

    def entry(self, entry_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(ENTRY_FIELDS)} FROM entries WHERE id = ?", (entry_id,)).fetchone()
        return dict(zip(ENTRY_FIELDS, row)) if row else None

    def entries(self, entry_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        ids = list(dict.fromkeys(entry_ids))
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            for row in self.conn.execute(
                f"SELECT {', '.join(ENTRY_FIELDS)} FROM entries WHERE id IN ({','.join('?' * len(part))})", part
            ):
                out[row[0]] = dict(zip(ENTRY_FIELDS, row))
        return out

    def state(self, entry_id: str) -> tuple[str, str] | None:
        """(state, content_hash) of an entry we know."""
        return self.conn.execute("SELECT state, content_hash FROM entries WHERE id = ?", (entry_id,)).fetchone()

    def mark(self, entry: dict[str, Any], state: str) -> None:
        self.conn.execute(
            f"INSERT OR REPLACE INTO entries ({', '.join(ENTRY_FIELDS)}) VALUES ({', '.join('?' * len(ENTRY_FIELDS))})",
            tuple(entry.get(k) if k != "state" else state for k in ENTRY_FIELDS),
        )
        self.conn.execute("INSERT OR IGNORE INTO members VALUES (?, ?)", (entry["id"], entry["id"]))

    def set_memories(self, entry_id: str, memory_ids: Iterable[str]) -> None:
        self.conn.execute("DELETE FROM memories WHERE entry_id = ?", (entry_id,))
        self.conn.executemany("INSERT OR REPLACE INTO memories VALUES (?, ?)", [(m, entry_id) for m in memory_ids])

    def memories(self, entry_id: str) -> list[str]:
        return [
            r[0]
            for r in self.conn.execute("SELECT memory_id FROM memories WHERE entry_id = ? ORDER BY rowid", (entry_id,))
        ]

    def entry_of_memory(self, memory_id: str) -> str | None:
        row = self.conn.execute("SELECT entry_id FROM memories WHERE memory_id = ?", (memory_id,)).fetchone()
        return row[0] if row else None

    def resolve(self, record_id: str) -> list[str]:
        """Entry ids standing for RECORD_ID: a thread, an entry, a chunk, or a memory id."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM entries WHERE thread_id = ?1 OR id = ?1 "
                "OR id IN (SELECT entry_id FROM members WHERE record_id = ?1) "
                "OR id IN (SELECT entry_id FROM memories WHERE memory_id = ?1)",
                (record_id,),
            )
        ]

    def members(self, entry_id: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT record_id FROM members WHERE entry_id = ?", (entry_id,))]

    def forget(self, entry_id: str) -> None:
        self.conn.execute("DELETE FROM memories WHERE entry_id = ?", (entry_id,))
        self.conn.execute("DELETE FROM members WHERE entry_id = ?", (entry_id,))
        self.conn.execute("DELETE FROM entries WHERE id = ?", (entry_id,))

    def forget_memory(self, memory_id: str) -> None:
        self.conn.execute("DELETE FROM memories WHERE memory_id = ?", (memory_id,))

    def has_thread(self, thread_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM threads WHERE id = ?", (thread_id,)).fetchone() is not None

    def forget_thread(self, thread_id: str) -> None:
        self.conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))

    def counts(self) -> dict[str, int]:
        out = {f"entries_{s}": n for s, n in self.conn.execute("SELECT state, count(*) FROM entries GROUP BY state")}
        out["memories"] = self.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        out["threads"] = self.conn.execute("SELECT count(*) FROM threads").fetchone()[0]
        return out
