"""The adapter's own record: catalog.sqlite in the data dir.

It keeps what the bundles told us (threads, entries, chunks with their content hashes), LeanRAG's
extraction output per chunk (entities and relations, committed per chunk so a killed run resumes
there), the build-stage LLM answers by request digest, and which extractions the current graph was
built from (so an unchanged corpus is not rebuilt, and a changed one always is).
Chunks are known to LeanRAG by a key derived from our chunk id: LeanRAG joins several keys with `|`,
which our ids may contain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from memdock.sdk.kit.catalog import ENTRY_META_TABLE, CatalogFile

SCHEMA = (
    ENTRY_META_TABLE
    + """
CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, title TEXT);
CREATE TABLE IF NOT EXISTS chunks (id TEXT PRIMARY KEY, key TEXT NOT NULL UNIQUE, entry_id TEXT,
  thread_id TEXT NOT NULL,
    text TEXT NOT NULL, content_hash TEXT NOT NULL, event_time TEXT, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_entry ON chunks (entry_id);
CREATE INDEX IF NOT EXISTS chunks_thread ON chunks (thread_id);
CREATE TABLE IF NOT EXISTS extractions (key TEXT PRIMARY KEY, content_hash TEXT NOT NULL, entities TEXT NOT NULL,
    relations TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS llm_cache (digest TEXT PRIMARY KEY, answer TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
"""
)
CHUNK_FIELDS = ("id", "key", "entry_id", "thread_id", "text", "content_hash", "event_time")


def chunk_key(chunk_id: str) -> str:
    return "c" + hashlib.sha1(chunk_id.encode()).hexdigest()[:20]


class Catalog(CatalogFile):
    SCHEMA = SCHEMA
    THREADED = True

    # -- records -----------------------------------------------------------------------------------

    def put_thread(self, rec: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO threads VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title",
            (rec["id"], rec.get("title")),
        )

    def put_chunk(self, chunk: dict[str, Any]) -> None:
        seq = self.conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM chunks").fetchone()[0]
        self.conn.execute(
            "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET text = excluded.text, "
            "content_hash = excluded.content_hash, event_time = excluded.event_time, entry_id = excluded.entry_id, "
            "thread_id = excluded.thread_id",
            tuple(chunk[f] for f in CHUNK_FIELDS) + (seq,),
        )

    def chunk(self, chunk_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT {', '.join(CHUNK_FIELDS)} FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        return dict(zip(CHUNK_FIELDS, row)) if row else None

    def chunks_by_key(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        wanted = list(dict.fromkeys(keys))
        out: dict[str, dict[str, Any]] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            q = (
                f"SELECT c.id, c.key, c.entry_id, c.thread_id, c.text, c.content_hash, c.event_time, e.author, e.role, "
                "e.entry_type FROM chunks c LEFT JOIN entries e ON e.id = c.entry_id WHERE c.key IN "
                f"({','.join('?' * len(part))})"
            )
            for row in self.conn.execute(q, part):
                out[row[1]] = dict(zip(CHUNK_FIELDS + ("author", "role", "entry_type"), row))
        return out

    def pending_chunks(self) -> list[dict[str, Any]]:
        """Chunks whose current text has no extraction yet, in the order they arrived."""
        rows = self.conn.execute(
            f"SELECT {', '.join('c.' + f for f in CHUNK_FIELDS)} FROM chunks c LEFT JOIN extractions x ON x.key = "
            "c.key "
            "WHERE x.key IS NULL OR x.content_hash != c.content_hash ORDER BY c.seq"
        ).fetchall()
        return [dict(zip(CHUNK_FIELDS, r)) for r in rows]

    def resolve(self, record_id: str) -> tuple[str | None, list[str]]:
        """(kind, chunk ids) that RECORD_ID stands for: a thread, an entry or a chunk."""
        if self.conn.execute("SELECT 1 FROM chunks WHERE id = ?", (record_id,)).fetchone():
            return "chunk", [record_id]
        if self.conn.execute("SELECT 1 FROM entries WHERE id = ?", (record_id,)).fetchone():
            return "entry", [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE entry_id = ?", (record_id,))]
        if (
            self.conn.execute("SELECT 1 FROM threads WHERE id = ?", (record_id,)).fetchone()
            or self.conn.execute("SELECT 1 FROM chunks WHERE thread_id = ?", (record_id,)).fetchone()
        ):
            return "thread", [  # the chunks sent with it, and its entries' chunks sent with another thread
                r[0]
                for r in self.conn.execute(
                    "SELECT id FROM chunks WHERE thread_id = ?1 "
                    "OR entry_id IN (SELECT id FROM entries WHERE thread_id = ?1) ORDER BY seq",
                    (record_id,),
                )
            ]
        return None, []

    def forget(self, kind: str, record_id: str, chunk_ids: list[str]) -> list[str]:
        """Removes the record, its chunks and their extractions; returns every id that went besides RECORD_ID."""
        gone: list[str] = []
        for cid in chunk_ids:
            self.conn.execute("DELETE FROM extractions WHERE key = ?", (chunk_key(cid),))
            self.conn.execute("DELETE FROM chunks WHERE id = ?", (cid,))
            gone.append(cid)
        if kind == "thread":
            gone += [r[0] for r in self.conn.execute("SELECT id FROM entries WHERE thread_id = ?", (record_id,))]
            self.conn.execute("DELETE FROM entries WHERE thread_id = ?", (record_id,))
            self.conn.execute("DELETE FROM threads WHERE id = ?", (record_id,))
        elif kind == "entry":
            self.conn.execute("DELETE FROM entries WHERE id = ?", (record_id,))
        return [g for g in gone if g != record_id]

    # -- extractions ---------------------------------------------------------------------------------

    def put_extraction(self, key: str, content_hash: str, entities: list[dict], relations: list[list[dict]]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO extractions VALUES (?, ?, ?, ?)",
            (key, content_hash, json.dumps(entities, ensure_ascii=False), json.dumps(relations, ensure_ascii=False)),
        )

    def extractions(self) -> list[tuple[str, list[dict], list[list[dict]]]]:
        """Current extractions of known chunks, in chunk order."""
        rows = self.conn.execute(
            "SELECT x.key, x.entities, x.relations FROM extractions x JOIN chunks c ON c.key = x.key "
            "AND c.content_hash = x.content_hash ORDER BY c.seq"
        ).fetchall()
        return [(k, json.loads(e), json.loads(r)) for k, e, r in rows]

    def extraction_digest(self) -> str:
        h = hashlib.sha256()
        for key, chash in self.conn.execute(
            "SELECT x.key, x.content_hash FROM extractions x JOIN chunks c ON c.key = x.key "
            "AND c.content_hash = x.content_hash ORDER BY x.key"
        ):
            h.update(f"{key}:{chash};".encode())
        return h.hexdigest()

    # -- build state and the build-stage answer cache --------------------------------------------

    def get_meta(self, k: str) -> str | None:
        row = self.conn.execute("SELECT v FROM meta WHERE k = ?", (k,)).fetchone()
        return row[0] if row else None

    def set_meta(self, k: str, v: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (k, v))

    def cached_answer(self, digest: str) -> str | None:
        row = self.conn.execute("SELECT answer FROM llm_cache WHERE digest = ?", (digest,)).fetchone()
        return row[0] if row else None

    def cache_answer(self, digest: str, answer: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO llm_cache VALUES (?, ?)", (digest, answer))

    def forget_answers(self, digests: list[str]) -> None:
        self.conn.executemany("DELETE FROM llm_cache WHERE digest = ?", [(d,) for d in digests])

    def counts(self) -> dict[str, int]:
        one = lambda q: self.conn.execute(q).fetchone()[0]
        return {
            "threads": one("SELECT count(*) FROM threads"),
            "chunks": one("SELECT count(*) FROM chunks"),
            "chunks_extracted": one(
                "SELECT count(*) FROM extractions x JOIN chunks c ON c.key = x.key AND c.content_hash = x.content_hash"
            ),
        }
