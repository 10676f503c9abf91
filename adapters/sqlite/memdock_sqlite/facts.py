"""Edges as sentences a reader (or an LLM) can use: "Codex (lee) replied to Claude (lee) on 2026-01-20 ...".

A fact is rendered when its edge is stored. An endpoint that is not stored yet is named by its id and
the edge is marked unresolved; `refresh_unresolved` renders those again once more records arrive.
"""

from __future__ import annotations

import sqlite3
from typing import Any

VERBS = {
    "contains": "contains", "follows": "follows", "replies_to": "replied to", "references": "references",
    "mentions": "mentions", "supersedes": "supersedes", "relates_to": "relates to",
}
SNIPPET = 60


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1].rstrip() + "…"


def describe(conn: sqlite3.Connection, node_id: str) -> tuple[str, dict[str, Any] | None]:
    """A short noun phrase for a stored node or chunk, and its row (None when it is not stored)."""
    row = conn.execute(
        "SELECT kind, name, text, author, entry_type, event_time, thread_id FROM nodes WHERE id = ?", (node_id,)
    ).fetchone()
    if row is None:
        chunk = conn.execute("SELECT entry_id FROM chunks WHERE id = ?", (node_id,)).fetchone()
        if chunk is None:
            return node_id, None
        phrase, entry = describe(conn, chunk[0])
        return f"a passage of {phrase}", entry
    kind, name, text, author, entry_type, event_time, thread_id = row
    info = {"kind": kind, "author": author, "event_time": event_time, "thread_id": thread_id}
    if kind == "thread":
        return f'thread "{name}"', info
    if kind == "entity":
        return f"{entry_type} {name}", info
    what = (entry_type or "entry").lower()
    title = name or _snippet(text)
    return (f'{author}\'s {what} "{title}"' if author else f'{what} "{title}"'), info


def render(conn: sqlite3.Connection, edge: dict[str, Any]) -> tuple[str, bool]:
    """The fact sentence for EDGE, and whether both endpoints were found."""
    etype = edge["type"]
    verb = VERBS.get(etype, etype[2:].replace("_", " ") if etype.startswith("x-") else etype)
    src, src_info = describe(conn, edge["source_id"])
    dst, dst_info = describe(conn, edge["target_id"])
    when = (edge.get("event_time") or (src_info or {}).get("event_time") or "")[:10]
    if etype == "replies_to" and src_info and dst_info and src_info.get("author") and dst_info.get("author"):
        text = f"{src_info['author']} replied to {dst_info['author']}"
        text += f" on {when}" if when else ""
        text += f": {src} answers {dst}"
    else:
        text = f"{src} {verb} {dst}"
        text += f" (on {when})" if when and etype not in ("contains",) else ""
    return text, src_info is not None and dst_info is not None


def refresh_unresolved(conn: sqlite3.Connection) -> int:
    """Render again the facts whose endpoints were missing; returns how many are now resolved."""
    rows = conn.execute("SELECT rowid, type, source_id, target_id, event_time FROM edges WHERE resolved = 0").fetchall()
    fixed = 0
    for rowid, etype, source_id, target_id, event_time in rows:
        text, ok = render(conn, {"type": etype, "source_id": source_id, "target_id": target_id, "event_time": event_time})
        if ok:
            conn.execute("UPDATE edges SET fact = ?, resolved = 1 WHERE rowid = ?", (text, rowid))
            fixed += 1
    return fixed
