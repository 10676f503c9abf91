"""What a write changed of the facts links' ends name (schema 14): so a reader follows writes that only add.

link_facts.py ranks every link's fact from its ends' phrases, read and cut once per connection. Before schema 14
any write made the next `search_facts` read every link again (0.89 CPU s on the 63,544 links of bench/peers.py's
20,000 notes): an agent that remembers between its fact searches paid that at each. A write that only adds nodes,
chunks and links changes no fact already read, so the reader reads the new links alone; the triggers below record
what else a write does, so the reader knows when that is not so:

- a node's kind, name, text, thread, author, type or time changed (its phrase, or its links' thread), or the node
  deleted: its rowid is logged (`graph_log`), and a reader whose nodes include it reads every link again. An
  untitled entry is named by its text, which may be its chunks' (node_rows.text NULL): every write that changes or
  deletes chunks stores their entry's text first (node_text.materialise), and that change is logged;
- a link deleted or changed: node 0 is logged, which every reader includes.

Each entry is stamped with the next `graph_seq` (meta). A reader keeps the seq, the largest node rowid and the
largest link rowid it read (`Mark`); a later write only added when no entry after its seq names a node up to its
largest (`appended`). New links take rowids above every stored one (links.next_rowid), unless a link takes back its
edge's rowid (an edge stored in full becomes a link when its end arrives): the reader checks the count of links
after reading the new ones. The log keeps one entry a node and is emptied once it holds LIMIT (`prune`, after an
index run): `graph_floor` then says from which seq it is whole, and an older reader reads everything again.

The seq is in the database, so a write rolled back takes its seq back: a mark read inside a write transaction that
is then rolled back would be trusted afterwards. The adapter ranks facts only on connections that do not write
(a read transaction, adapter._snapshot, or none).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

SINCE = 14
"""The schema from which the store keeps the log."""
LIMIT = 4096
TRIGGERS = (
    "graph_nodes_au",
    "graph_nodes_ad",
    "graph_links_ad",
    "graph_links_au",
)
"""The log's triggers: a bulk load leaves them out while its rows go in (db.LATE_TRIGGERS): nothing reads the
store before it is in place."""

_LOGGED = (
    "UPDATE meta SET value = value + 1 WHERE key = 'graph_seq'; "
    "DELETE FROM graph_log WHERE node = {node}; "
    "INSERT INTO graph_log(node, seq) SELECT {node}, value FROM meta WHERE key = 'graph_seq';"
)
_PHRASED = ("kind", "name", "text", "thread_id", "author", "entry_type", "event_time")

DDL = f"""
CREATE TABLE IF NOT EXISTS graph_log(node INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
INSERT INTO meta(key, value) SELECT 'graph_seq', 0 WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'graph_seq');
INSERT INTO meta(key, value) SELECT 'graph_floor', 0 WHERE NOT EXISTS (SELECT 1 FROM meta WHERE key = 'graph_floor');
CREATE TRIGGER IF NOT EXISTS graph_nodes_au AFTER UPDATE OF {", ".join(_PHRASED)} ON node_rows
WHEN {" OR ".join(f"old.{c} IS NOT new.{c}" for c in _PHRASED)} BEGIN
    {_LOGGED.format(node="old.rowid")}
END;
CREATE TRIGGER IF NOT EXISTS graph_nodes_ad AFTER DELETE ON node_rows BEGIN
    {_LOGGED.format(node="old.rowid")}
END;
CREATE TRIGGER IF NOT EXISTS graph_links_au AFTER UPDATE ON links BEGIN
    {_LOGGED.format(node="0")}
END;
CREATE TRIGGER IF NOT EXISTS graph_links_ad AFTER DELETE ON links BEGIN
    {_LOGGED.format(node="0")}
END;
"""


@dataclass(frozen=True)
class Mark:
    """Where a reader read the links: the log's seq then, and the largest node and link rowids."""

    seq: int
    node: int
    link: int


def mark(conn: sqlite3.Connection) -> Mark | None:
    """CONN's store's mark now; None for a store that keeps no log (schema 13 and before, read as it is)."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < SINCE:
        return None
    row = conn.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'graph_seq'), (SELECT max(rowid) FROM node_rows), "
        "(SELECT max(rowid) FROM links)"
    ).fetchone()
    if row[0] is None:
        return None
    return Mark(int(row[0]), row[1] or 0, row[2] or 0)


def appended(conn: sqlite3.Connection, before: Mark) -> bool:
    """Whether every write since BEFORE only added nodes, chunks and links (the log is whole since then and names
    no node BEFORE's reader read). One statement: a prune committed between reading the floor and reading the log
    would hide what it emptied."""
    whole, changed = conn.execute(
        "SELECT (SELECT value FROM meta WHERE key = 'graph_floor') <= ?1, "
        "EXISTS (SELECT 1 FROM graph_log WHERE seq > ?1 AND node <= ?2)",
        (before.seq, before.node),
    ).fetchone()
    return bool(whole) and not changed


def prune(conn: sqlite3.Connection) -> None:
    """Empty the log once it holds LIMIT entries (in the writer's transaction): readers older than now read every
    link again."""
    if conn.execute("PRAGMA user_version").fetchone()[0] < SINCE:
        return
    if conn.execute(f"SELECT count(*) >= {LIMIT} FROM graph_log").fetchone()[0]:
        conn.execute(
            "UPDATE meta SET value = (SELECT value FROM meta WHERE key = 'graph_seq') WHERE key = 'graph_floor'"
        )
        conn.execute("DELETE FROM graph_log")
