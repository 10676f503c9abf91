"""The adapter's own record of what it put in FalkorDB: catalog.sqlite in the data dir.

graphiti knows episodes by uuid; memdock knows entries, chunks and threads by id. The catalog maps
one to the other (uuid5 of our ids, so the map can be rebuilt), keeps the content hash of each
episode (a re-index of the same content is skipped, changed content replaces the episode), marks
an episode `pending` before it is written to the graph and `committed` after, and stages an index
run's episodes so they are written in event-time order.

Staging lives in TEMP tables: each connection (each adapter process) sees only its own run's episodes, so
shard processes indexing into one store on a shared FalkorDB never write each other's episodes.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from memdock.sdk.kit.catalog import ENTRY_META_TABLE, CatalogFile

NAMESPACE = uuid.UUID("6d656d64-6f63-6b2d-6772-617068697469")  # "memdock-graphiti"

SCHEMA = (
    ENTRY_META_TABLE
    + """
CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, group_id TEXT NOT NULL, title TEXT);
CREATE TABLE IF NOT EXISTS episodes (uuid TEXT PRIMARY KEY, source_id TEXT NOT NULL UNIQUE, entry_id TEXT,
    thread_id TEXT NOT NULL, group_id TEXT NOT NULL, content_hash TEXT NOT NULL, event_time TEXT, state TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS episodes_group ON episodes (group_id, state, event_time);
CREATE INDEX IF NOT EXISTS episodes_thread ON episodes (thread_id);
CREATE TABLE IF NOT EXISTS members (record_id TEXT NOT NULL, uuid TEXT NOT NULL, PRIMARY KEY (record_id, uuid));
CREATE INDEX IF NOT EXISTS members_uuid ON members (uuid);
DROP TABLE IF EXISTS main.staged;
DROP TABLE IF EXISTS main.staged_members;
CREATE TEMP TABLE IF NOT EXISTS staged (seq INTEGER PRIMARY KEY, uuid TEXT NOT NULL, event_time TEXT,
    episode TEXT NOT NULL);
CREATE TEMP TABLE IF NOT EXISTS staged_members (record_id TEXT NOT NULL, uuid TEXT NOT NULL,
    PRIMARY KEY (record_id, uuid));
"""
)


def episode_uuid(source_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, source_id))


class Catalog(CatalogFile):
    SCHEMA = SCHEMA

    # -- what the bundle told us ---------------------------------------------------------------

    def put_thread(self, thread_id: str, group_id: str, title: str | None) -> None:
        self.conn.execute(
            "INSERT INTO threads VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title",
            (thread_id, group_id, title),
        )

    def thread(self, thread_id: str) -> tuple[str, str | None] | None:
        return self.conn.execute("SELECT group_id, title FROM threads WHERE id = ?", (thread_id,)).fetchone()

    def add_members(self, episode: str, record_ids: Iterable[str]) -> None:
        self.conn.executemany("INSERT OR IGNORE INTO members VALUES (?, ?)", [(r, episode) for r in record_ids])

    # -- staging an index run --------------------------------------------------------------------

    def staged(self) -> Iterator[dict[str, Any]]:
        """Staged episodes in event-time order (bundle order among equals)."""
        return self.staged_items("episode")

    def staged_members(self, uuid_: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT record_id FROM staged_members WHERE uuid = ?", (uuid_,))]

    # -- episodes --------------------------------------------------------------------------------

    def episode_state(self, uuid_: str) -> tuple[str, str] | None:
        """(state, content_hash) of an episode we know."""
        return self.conn.execute("SELECT state, content_hash FROM episodes WHERE uuid = ?", (uuid_,)).fetchone()

    def mark(self, ep: dict[str, Any], state: str) -> None:
        self.conn.execute(
            "INSERT INTO episodes VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(uuid) DO UPDATE SET "
            "content_hash = excluded.content_hash, event_time = excluded.event_time, state = excluded.state, "
            "group_id = excluded.group_id, thread_id = excluded.thread_id",
            (
                ep["uuid"],
                ep["source_id"],
                ep.get("entry_id"),
                ep["thread_id"],
                ep["group_id"],
                ep["content_hash"],
                ep.get("event_time"),
                state,
            ),
        )

    def previous(self, group_id: str, event_time: str | None, before: str, n: int) -> list[str]:
        """The N latest committed episodes of the group up to EVENT_TIME, oldest first (graphiti's context)."""
        rows = self.conn.execute(
            "SELECT uuid FROM episodes WHERE group_id = ? AND state = 'committed' AND uuid != ? "
            "AND coalesce(event_time, '') <= ? ORDER BY coalesce(event_time, '') DESC LIMIT ?",
            (group_id, before, event_time or "", n),
        ).fetchall()
        return [r[0] for r in reversed(rows)]

    def groups(self, thread_ids: Iterable[str] | None = None) -> list[str]:
        if thread_ids is None:
            return [r[0] for r in self.conn.execute("SELECT DISTINCT group_id FROM episodes WHERE state = 'committed'")]
        marks = list(thread_ids)
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT DISTINCT group_id FROM episodes WHERE thread_id IN ({','.join('?' * len(marks))})", marks
            )
        ]

    def threads_of(self, groups: Iterable[str]) -> dict[str, str]:
        wanted = list(set(groups))
        return {
            g: t
            for t, g in self.conn.execute(
                f"SELECT id, group_id FROM threads WHERE group_id IN ({','.join('?' * len(wanted))})", wanted
            )
        }

    def describe(self, uuids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """For each known episode uuid: its memdock ids and the metadata filters need."""
        ids = list(dict.fromkeys(uuids))
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            rows = self.conn.execute(
                "SELECT e.uuid, e.source_id, e.entry_id, e.thread_id, e.event_time, n.author, n.role, n.entry_type "
                "FROM episodes e LEFT JOIN entries n ON n.id = e.entry_id WHERE e.uuid IN "
                f"({','.join('?' * len(part))})",
                part,
            )
            for row in rows:
                out[row[0]] = dict(
                    zip(
                        ("uuid", "source_id", "entry_id", "thread_id", "event_time", "author", "role", "entry_type"),
                        row,
                    )
                )
        return out

    def resolve(self, record_id: str) -> list[tuple[str, str]]:
        """(uuid, group_id) of every episode standing for RECORD_ID: a thread, an entry, a chunk or a uuid."""
        return self.conn.execute(
            "SELECT uuid, group_id FROM episodes WHERE thread_id = ?1 OR uuid = ?1 "
            "OR uuid IN (SELECT uuid FROM members WHERE record_id = ?1) "
            "OR entry_id = ?1 OR entry_id IN (SELECT id FROM entries WHERE thread_id = ?1)",  # an entry's chunks
            (record_id,),
        ).fetchall()

    def members(self, uuid_: str) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT record_id FROM members WHERE uuid = ?", (uuid_,))]

    def forget(self, uuid_: str) -> None:
        self.conn.execute("DELETE FROM members WHERE uuid = ?", (uuid_,))
        self.conn.execute("DELETE FROM episodes WHERE uuid = ?", (uuid_,))

    def forget_thread(self, thread_id: str) -> list[str]:
        """Entries and the thread itself go from the catalog; returns the entry ids that went."""
        gone = [r[0] for r in self.conn.execute("SELECT id FROM entries WHERE thread_id = ?", (thread_id,))]
        self.conn.execute("DELETE FROM entries WHERE thread_id = ?", (thread_id,))
        self.conn.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
        return gone

    def counts(self) -> dict[str, int]:
        q = "SELECT state, count(*) FROM episodes GROUP BY state"
        return {f"episodes_{s}": n for s, n in self.conn.execute(q)} | {
            "threads": self.conn.execute("SELECT count(*) FROM threads").fetchone()[0]
        }
