"""Delete records and what hangs off them, as the sqlite adapter does: thread → its entries → their chunks (and
the chunks sent with the thread whatever their entry's) → every edge touching any of them, and entities left with
no edge at all. One transaction: a delete happens entirely or not at all, and every front end sees it at its next
query."""

from __future__ import annotations

from typing import Any

import psycopg

from memdock.errors import InvalidInputError

from .lookup import ALL_TABLES

DOOMED = """
WITH direct AS (
  SELECT id, 'thread' AS kind FROM threads WHERE id = ANY(%(ids)s)
  UNION ALL SELECT id, 'entry' FROM entries WHERE id = ANY(%(ids)s)
  UNION ALL SELECT id, 'chunk' FROM chunks WHERE id = ANY(%(ids)s)
  UNION ALL SELECT id, 'entity' FROM entities WHERE id = ANY(%(ids)s)
  UNION ALL SELECT id, 'edge' FROM edges WHERE id = ANY(%(ids)s)),
ents AS (
  SELECT id FROM direct WHERE kind = 'entry'
  UNION SELECT e.id FROM entries e JOIN direct d ON d.kind = 'thread' AND e.thread_id = d.id),
nodes AS (
  SELECT id FROM direct WHERE kind <> 'edge'
  UNION SELECT id FROM ents
  UNION SELECT c.id FROM chunks c WHERE c.entry_id IN (SELECT id FROM ents)
  UNION SELECT c.id FROM chunks c JOIN direct d ON d.kind = 'thread' AND c.thread_id = d.id),
gone_edges AS (
  SELECT id FROM direct WHERE kind = 'edge'
  UNION SELECT e.id FROM edges e WHERE e.source_id IN (SELECT id FROM nodes) OR e.target_id IN (SELECT id FROM nodes)),
orphans AS (
  SELECT n.id FROM entities n
  WHERE n.id IN (SELECT target_id FROM edges WHERE id IN (SELECT id FROM gone_edges))
    AND n.id NOT IN (SELECT id FROM direct)
    AND NOT EXISTS (SELECT 1 FROM edges e WHERE (e.source_id = n.id OR e.target_id = n.id)
                    AND e.id NOT IN (SELECT id FROM gone_edges)))
SELECT id, true FROM direct
UNION ALL SELECT id, false FROM nodes WHERE id NOT IN (SELECT id FROM direct)
UNION ALL SELECT id, false FROM gone_edges WHERE id NOT IN (SELECT id FROM direct)
UNION ALL SELECT id, false FROM orphans
"""


def delete(conn: psycopg.Connection, params: dict[str, Any]) -> dict[str, Any]:
    ids = params.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) and i for i in ids):
        raise InvalidInputError("params.ids must be a list of non-empty ids")
    ids = list(dict.fromkeys(ids))
    with conn.transaction():
        rows = conn.execute(DOOMED, {"ids": ids}).fetchall()
        gone = list(dict.fromkeys(i for i, _ in rows))
        for table in ALL_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE id = ANY(%s)", (gone,))
    found = {i for i, direct in rows if direct}
    return {"deleted": gone, "not_found": [i for i in ids if i not in found], "cascaded": len(gone) - len(found)}
