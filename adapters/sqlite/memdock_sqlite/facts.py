"""Facts (memdock.sdk.facts) over the database: rendered when an edge is stored; an endpoint that is not stored
yet leaves the edge unresolved, and `refresh_unresolved` renders those again once more records arrive."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from memdock.sdk import facts

Phrases = facts.Phrases

# An entry's text is read (joined from its chunks, unpacked) only where a fact names it by it: it has no title.


def node_columns(text: str = "text") -> str:
    """What `node` reads of a node, its TEXT read by that expression."""
    return f"id, kind, name, CASE WHEN kind = 'entry' AND name = '' THEN {text} END, author, entry_type, event_time"


_NODE = f"SELECT {node_columns()} FROM nodes"


def _lead(text: str | None) -> str | None:
    """As much of TEXT as a fact's snippet of it shows (facts.SNIPPET characters of its words, one space apart),
    and a word more when there is more: `facts.describe` names the entry by it as by the whole text, without
    splitting every word of a long text once for each fact that names it."""
    if text is None or len(text) <= facts.SNIPPET:
        return text
    # The words of a prefix of TEXT, joined, are a prefix of its words joined: past SNIPPET, that prefix decides.
    head = " ".join(text[: 4 * facts.SNIPPET].split())
    if len(head) > facts.SNIPPET:
        return head[: facts.SNIPPET] + " …"
    line = " ".join(text.split())
    return line if len(line) <= facts.SNIPPET else line[: facts.SNIPPET] + " …"


def node(row: tuple[Any, ...]) -> dict[str, Any]:
    """A row of `node_columns` as what a fact names."""
    _, kind, name, text, author, entry_type, event_time = row
    rec: dict[str, Any] = {"kind": kind, "author": author, "event_time": event_time}
    if kind == "thread":
        return {**rec, "title": name}
    if kind == "entity":  # an entity's type is kept in the entry_type column
        return {**rec, "entity_type": entry_type, "name": name}
    return {**rec, "kind": "entry", "entry_type": entry_type, "title": name, "body": _lead(text)}


def lookup(conn: sqlite3.Connection, known: dict[str, dict[str, Any]] | None = None) -> facts.Lookup:
    """What a fact needs to name a stored node or chunk, in the payload's field names (from KNOWN first)."""

    def get(node_id: str) -> dict[str, Any] | None:
        if known and node_id in known:
            return known[node_id]
        row = conn.execute(f"{_NODE} WHERE id = ?", (node_id,)).fetchone()
        if row is None:
            chunk = conn.execute("SELECT entry_id FROM chunks WHERE id = ?", (node_id,)).fetchone()
            return None if chunk is None else {"kind": "chunk", "entry_id": chunk[0]}
        return node(row)

    return get


def prefetch(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The stored nodes among IDS, looked up in one query (a batch of edges names each endpoint once)."""
    rows = conn.execute(f"{_NODE} WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(set(ids))),))
    return {row[0]: node(row) for row in rows}


def render(
    conn: sqlite3.Connection,
    edge: dict[str, Any],
    known: dict[str, dict[str, Any]] | None = None,
    phrases: facts.Phrases | None = None,
) -> tuple[str, bool]:
    """The fact sentence for EDGE, and whether both endpoints were found (PHRASES: see memdock.sdk.facts.render)."""
    return facts.render(lookup(conn, known), edge, phrases)


def refresh_unresolved(conn: sqlite3.Connection) -> int:
    """Render again the facts whose endpoints were missing; returns how many are now resolved."""
    rows = conn.execute("SELECT rowid, type, source_id, target_id, event_time FROM edges WHERE resolved = 0").fetchall()
    fixed = 0
    for rowid, etype, source_id, target_id, event_time in rows:
        text, ok = render(
            conn, {"type": etype, "source_id": source_id, "target_id": target_id, "event_time": event_time}
        )
        if ok:
            conn.execute("UPDATE edges SET fact = ?, resolved = 1 WHERE rowid = ?", (text, rowid))
            fixed += 1
    return fixed
