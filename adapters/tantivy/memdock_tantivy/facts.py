"""Edges as sentences a reader (or an LLM) can use, rendered as the sqlite adapter renders them:
`Codex (lee)'s plan "Cut the release" mentions file tools/migrate_v2.py (on 2026-03-02)`.

An endpoint not stored yet is named by its id and the edge is marked unresolved; the end of every index run
renders those again (`refresh_unresolved` in the ingest module)."""

from __future__ import annotations

from typing import Any, Callable

VERBS = {
    "contains": "contains", "follows": "follows", "replies_to": "replied to", "references": "references",
    "mentions": "mentions", "supersedes": "supersedes", "relates_to": "relates to",
}
SNIPPET = 60

Lookup = Callable[[str], "dict[str, Any] | None"]


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1].rstrip() + "…"


def describe(get: Lookup, node_id: str) -> tuple[str, dict[str, Any] | None]:
    """A short noun phrase for a stored node or chunk, and its record (None when it is not stored)."""
    rec = get(node_id)
    if rec is None:
        return node_id, None
    kind = rec["kind"]
    if kind == "chunk":
        phrase, entry = describe(get, rec["entry_id"])
        return f"a passage of {phrase}", entry
    if kind == "thread":
        return f'thread "{rec.get("title", "")}"', rec
    if kind == "entity":
        return f"{rec['entity_type']} {rec['name']}", rec
    if kind != "entry":
        return node_id, rec
    what = (rec.get("entry_type") or "entry").lower()
    title = rec.get("title") or _snippet(rec["body"])
    author = rec.get("author")
    return (f'{author}\'s {what} "{title}"' if author else f'{what} "{title}"'), rec


def render(get: Lookup, edge: dict[str, Any]) -> tuple[str, bool, str | None]:
    """The fact sentence for EDGE, whether both endpoints were found, and the source's kind."""
    etype = edge["type"]
    verb = VERBS.get(etype, etype[2:].replace("_", " ") if etype.startswith("x-") else etype)
    src, src_rec = describe(get, edge["source_id"])
    dst, dst_rec = describe(get, edge["target_id"])
    when = (edge.get("event_time") or (src_rec or {}).get("event_time") or "")[:10]
    if etype == "replies_to" and src_rec and dst_rec and src_rec.get("author") and dst_rec.get("author"):
        text = f"{src_rec['author']} replied to {dst_rec['author']}"
        text += f" on {when}" if when else ""
        text += f": {src} answers {dst}"
    else:
        text = f"{src} {verb} {dst}"
        text += f" (on {when})" if when and etype != "contains" else ""
    source = get(edge["source_id"])
    return text, src_rec is not None and dst_rec is not None, source["kind"] if source else None
