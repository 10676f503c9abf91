"""What node_fts holds of each node, so that each text is indexed once.

An entry's text is searched through its chunks (chunk_fts) when it has any: node_fts then holds only its name
(the title), and `search_nodes` and `search_episodes` find it through its chunks as well. Threads, entities and
entries without chunks are indexed by name and text. Whether an entry has chunks is known only once a run's chunks
are stored, so ingest stores nodes unindexed (`nodes.indexed = 0`) and indexes every pending node at the end of
a run; a run killed before that leaves them pending, and the next run indexes them.

The text once: such an entry's text is the same words as its chunks' bodies. Where those bodies, joined in
position order without what each repeats of the one before, are exactly its text, node_rows.text is NULL and the
`nodes` view joins them back (db.JOINED), so get_node, facts and exports read the very same text. Before a chunk
of such an entry is rewritten or deleted, its text is put back (`materialise`); the next `index_pending` stores it
once again if its new chunks still join to it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping

from .db import ENTRY_OF, JOINED
from .db import JOINS as _JOINS

_HAS_CHUNKS = "EXISTS (SELECT 1 FROM chunk_rows k WHERE " + ENTRY_OF.format(k="k", n="node_rows") + ")"
_CHUNKED = f"node_rows.kind = 'entry' AND {_HAS_CHUNKS}"


def index_pending(
    conn: sqlite3.Connection,
    *,
    joined: Collection[str] | None = None,
    unknown: Collection[str] = (),
    rowids: Mapping[str, int] | None = None,
) -> int:
    """Index the nodes not in node_fts yet (inside the caller's transaction); returns how many. JOINED, when
    given, are the pending entries known to join to their chunks (first_load.Joins), UNKNOWN the only others that
    may: the rest are not checked. ROWIDS, when given, holds the rowid of each of JOINED (a first load's,
    first_load.FirstLoad.rowids): their rows are then found by rowid, in rowid order, not through the id index."""
    joined_now = 0
    conn.execute(
        "INSERT INTO node_fts(rowid, name, text) "
        f"SELECT rowid, name, CASE WHEN {_CHUNKED} THEN '' ELSE unpack(text) END FROM node_rows WHERE indexed = 0"
    )
    if joined is None:
        conn.execute(f"UPDATE node_rows SET text = NULL WHERE indexed = 0 AND {_JOINS}")
    else:
        which = "indexed = 0 AND id IN (SELECT value FROM json_each(?))"
        # an entry that joins has chunks: indexed as `done` would set it, in the same write of its row
        joins = "UPDATE node_rows SET text = NULL, indexed = 2 WHERE {} AND kind = 'entry'"
        if rowids is None:
            joined_now = conn.execute(joins.format(which), (json.dumps(list(joined)),)).rowcount
        else:  # 20,000 notes: 0.027 CPU s against 0.040 through the id index
            by_rowid = "indexed = 0 AND rowid IN (SELECT value FROM json_each(?))"
            joined_now = conn.execute(joins.format(by_rowid), (json.dumps(sorted(rowids[i] for i in joined)),)).rowcount
        conn.execute(f"UPDATE node_rows SET text = NULL WHERE {which} AND {_JOINS}", (json.dumps(list(unknown)),))
    # What is left is stored compressed where that is smaller (no trigger: these rows are not in node_fts yet).
    conn.execute("UPDATE node_rows SET text = pack(text) WHERE indexed = 0 AND typeof(text) = 'text'")
    done = f"UPDATE node_rows SET indexed = CASE WHEN {_CHUNKED} THEN 2 ELSE 1 END WHERE indexed = 0"
    return joined_now + conn.execute(done).rowcount


def hold_in_chunks(conn: sqlite3.Connection, entry_ids: Iterable[str]) -> None:
    """Leave to their chunks the text of those of ENTRY_IDS (entries whose chunks this run wrote) they join to."""
    which = "id IN (SELECT value FROM json_each(?))"
    which += " AND indexed = 2"  # node_fts holds its name only: its text can leave node_rows without a trace there
    conn.execute(f"UPDATE node_rows SET text = NULL WHERE {which} AND {_JOINS}", (json.dumps(list(entry_ids)),))


def materialise(conn: sqlite3.Connection, entry_ids: Iterable[str]) -> None:
    """Store again the text of those of ENTRY_IDS whose chunks hold it, before those chunks change (the update
    takes them out of node_fts and leaves them for `index_pending`, as any change of text does)."""
    conn.execute(
        f"UPDATE node_rows SET text = {JOINED.format(t='node_rows')} "
        "WHERE text IS NULL AND id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(entry_ids)),),
    )


def entries_of(conn: sqlite3.Connection, chunk_ids: Iterable[str]) -> list[str]:
    """The entries the stored chunks among CHUNK_IDS belong to: a chunk sent again for another entry takes its text
    away from the one it had, whose text must be stored first (`materialise`)."""
    ids = json.dumps(list(chunk_ids))
    rows = conn.execute("SELECT DISTINCT entry_id FROM chunks WHERE id IN (SELECT value FROM json_each(?))", (ids,))
    return [entry for (entry,) in rows]


def unhide_unchunked(conn: sqlite3.Connection, entry_ids: Iterable[str]) -> None:
    """Index by their text again the entries among ENTRY_IDS that were indexed by name only and have no chunk left."""
    which = f"indexed = 2 AND id IN (SELECT value FROM json_each(?)) AND NOT {_HAS_CHUNKS}"
    ids = json.dumps(list(entry_ids))
    conn.execute(
        "INSERT INTO node_fts(node_fts, rowid, name, text) "
        f"SELECT 'delete', rowid, name, '' FROM node_rows WHERE {which}",
        (ids,),
    )
    conn.execute(f"UPDATE node_rows SET indexed = 0 WHERE {which}", (ids,))
    index_pending(conn)
