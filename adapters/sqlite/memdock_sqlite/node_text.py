"""What node_fts holds of each node, so that each text is indexed once.

An entry's text is searched through its chunks (chunk_fts) when it has any: node_fts then holds only its name
(the title), and `search_nodes` and `search_episodes` find it through its chunks as well. Threads, entities and
entries without chunks are indexed by name and text. Whether an entry has chunks is known only once a run's chunks
are stored, so ingest stores nodes unindexed (`nodes.indexed = 0`) and indexes every pending node at the end of
a run; a run killed before that leaves them pending, and the next run indexes them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

_CHUNKED = "nodes.kind = 'entry' AND EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = nodes.id)"


def index_pending(conn: sqlite3.Connection) -> int:
    """Index the nodes not in node_fts yet (inside the caller's transaction); returns how many."""
    conn.execute(
        "INSERT INTO node_fts(rowid, name, text) "
        f"SELECT rowid, name, CASE WHEN {_CHUNKED} THEN '' ELSE text END FROM nodes WHERE indexed = 0"
    )
    return conn.execute(f"UPDATE nodes SET indexed = CASE WHEN {_CHUNKED} THEN 2 ELSE 1 END WHERE indexed = 0").rowcount


def unhide_unchunked(conn: sqlite3.Connection, entry_ids: Iterable[str]) -> None:
    """Index by their text again the entries among ENTRY_IDS that were indexed by name only and have no chunk left."""
    which = (
        "indexed = 2 AND id IN (SELECT value FROM json_each(?)) "
        "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.entry_id = nodes.id)"
    )
    ids = json.dumps(list(entry_ids))
    conn.execute(
        f"INSERT INTO node_fts(node_fts, rowid, name, text) SELECT 'delete', rowid, name, '' FROM nodes WHERE {which}",
        (ids,),
    )
    conn.execute(f"UPDATE nodes SET indexed = 0 WHERE {which}", (ids,))
    index_pending(conn)
