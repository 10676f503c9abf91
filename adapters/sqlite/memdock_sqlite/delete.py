"""Delete records and what hangs off them: thread → its entries → their chunks (and the chunks sent with the
thread whatever their entry's) → every edge touching any of them, and entities left with no edge at all. One
transaction: a delete happens entirely or not at all."""

from __future__ import annotations

import sqlite3
from typing import Any

from memdock.errors import InvalidInputError

from . import links, node_text, text_blocks, vectors
from .db import ENTRY_OF, transaction

_EXISTS = (
    "SELECT id FROM nodes WHERE id IN (SELECT id FROM doomed) UNION ALL "
    "SELECT id FROM chunks WHERE id IN (SELECT id FROM doomed) UNION ALL "
    "SELECT id FROM edges WHERE id IN (SELECT id FROM doomed)"
)

# The chunks of doomed nodes, and those naming a doomed id no node has (db.ENTRY_OF).
_CHUNKS_OF_DOOMED = (
    "INSERT OR IGNORE INTO doomed SELECT k.id FROM doomed d JOIN node_rows n ON n.id = d.id JOIN chunk_rows k ON "
    + ENTRY_OF.format(k="k", n="n")
    + " UNION ALL SELECT k.id FROM doomed d JOIN chunk_rows k ON k.entry_id = +d.id"
)

# A chunk sent with a thread its entry is not in answers as that thread's (db.THREAD): it goes with the thread.
# Only such chunks store a thread id ('' is their entry's), read through the chunks_own_thread index.
_SENT_WITH_DOOMED_THREAD = (
    "INSERT OR IGNORE INTO doomed SELECT id FROM chunk_rows WHERE thread_id <> '' "
    "AND thread_id IN (SELECT id FROM nodes WHERE kind = 'thread' AND id IN (SELECT id FROM doomed))"
)


def delete(conn: sqlite3.Connection, params: dict[str, Any]) -> dict[str, Any]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a list of non-empty ids")
    with transaction(conn, "deleting"):
        return _cascade(conn, list(dict.fromkeys(ids)))


def _cascade(conn: sqlite3.Connection, ids: list[str]) -> dict[str, Any]:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS doomed(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM doomed")
    conn.executemany("INSERT OR IGNORE INTO doomed(id) VALUES (?)", [(i,) for i in ids])
    direct = {r[0] for r in conn.execute(_EXISTS)} | links.named(conn)
    conn.execute(
        "INSERT OR IGNORE INTO doomed SELECT n.id FROM nodes n WHERE n.kind = 'entry' AND n.thread_id IN "
        "(SELECT t.id FROM nodes t WHERE t.kind = 'thread' AND t.id IN (SELECT id FROM doomed))"
    )
    conn.execute(_CHUNKS_OF_DOOMED)
    conn.execute(_SENT_WITH_DOOMED_THREAD)
    touched = {
        r[0]
        for r in conn.execute(
            "SELECT e.target_id FROM edges e JOIN nodes n ON n.id = e.target_id AND n.kind = 'entity' "
            "WHERE e.source_id IN (SELECT id FROM doomed)"
        )
    } | links.entities_of_doomed(conn)
    conn.execute("INSERT OR IGNORE INTO doomed SELECT e.id FROM edges e WHERE e.source_id IN (SELECT id FROM doomed)")
    conn.execute("INSERT OR IGNORE INTO doomed SELECT e.id FROM edges e WHERE e.target_id IN (SELECT id FROM doomed)")
    deleted = [r[0] for r in conn.execute(_EXISTS)] + links.remove_doomed(conn, direct)
    chunked = [r[0] for r in conn.execute("SELECT DISTINCT entry_id FROM chunks WHERE id IN (SELECT id FROM doomed)")]
    embedded = conn.execute(
        "SELECT 1 FROM chunk_vectors WHERE rowid IN "
        "(SELECT rowid FROM chunks WHERE id IN (SELECT id FROM doomed)) LIMIT 1"
    ).fetchone()
    node_text.materialise(conn, chunked)
    for table in ("edges", "chunk_rows", "node_rows"):
        conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT id FROM doomed)")
    orphans = [
        e
        for e in touched
        if e not in direct
        and conn.execute("SELECT 1 FROM edges WHERE source_id = ? OR target_id = ? LIMIT 1", (e, e)).fetchone() is None
        and not links.touches(conn, e)
    ]
    conn.executemany("DELETE FROM node_rows WHERE id = ?", [(e,) for e in orphans])
    node_text.unhide_unchunked(conn, chunked)
    text_blocks.sweep(conn)  # no deleted chunk's text left inside a block another chunk still uses
    if embedded:
        vectors.bump(conn)
    deleted += orphans
    conn.execute("DELETE FROM doomed")
    return {
        "deleted": deleted,
        "not_found": [i for i in ids if i not in direct],
        "cascaded": len(deleted) - len(direct),
    }
