"""Edges as sentences a reader (or an LLM) can use, for adapters that store the structural graph:
`Codex (lee)'s plan "Cut the release" mentions file tools/migrate_v2.py (on 2026-03-02)`.

The adapter passes a lookup from an id to what it stored under that id: the payload record's own fields
(title, body, author, entry_type, event_time; entity_type and name; a chunk's entry_id) plus `kind` (thread,
entry, entity or chunk), or None when nothing is stored there yet. Such an endpoint is named by its id and the
fact is unresolved: the adapter renders it again once more records have arrived.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

VERBS = {
    "contains": "contains",
    "follows": "follows",
    "replies_to": "replied to",
    "references": "references",
    "mentions": "mentions",
    "supersedes": "supersedes",
    "relates_to": "relates to",
}
SNIPPET = 60

Lookup = Callable[[str], "dict[str, Any] | None"]
Phrases = dict[str, "tuple[str, dict[str, Any] | None]"]


def _snippet(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= SNIPPET else line[: SNIPPET - 1].rstrip() + "…"


def describe(get: Lookup, node_id: str) -> tuple[str, dict[str, Any] | None]:
    """A short noun phrase for a stored node or chunk, and its record (a chunk's entry; None when not stored)."""
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


def _described(get: Lookup, node_id: str, phrases: Phrases | None) -> tuple[str, dict[str, Any] | None]:
    if phrases is None:
        return describe(get, node_id)
    if node_id not in phrases:
        phrases[node_id] = describe(get, node_id)
    return phrases[node_id]


def parts(get: Lookup, edge: dict[str, Any], phrases: Phrases | None = None) -> tuple[list[str], bool]:
    """`render`'s sentence for EDGE cut at the spaces between its parts (the endpoints' phrases, the verb, the
    date), and whether both endpoints were found: a space never falls inside a word, so the sentence's words are
    its parts' words in order (what ranks a fact from its parts' words, without indexing the sentence)."""
    etype = edge["type"]
    verb = VERBS.get(etype, etype[2:].replace("_", " ") if etype.startswith("x-") else etype)
    src, src_rec = _described(get, edge["source_id"], phrases)
    dst, dst_rec = _described(get, edge["target_id"], phrases)
    when = (edge.get("event_time") or (src_rec or {}).get("event_time") or "")[:10]
    if etype == "replies_to" and src_rec and dst_rec and src_rec.get("author") and dst_rec.get("author"):
        cut = [src_rec["author"], "replied to", dst_rec["author"], *(["on", when] if when else [])]
        cut[-1] += ":"
        cut += [src, "answers", dst]
    else:
        cut = [src, verb, dst, *(["(on", f"{when})"] if when and etype != "contains" else [])]
    return cut, src_rec is not None and dst_rec is not None


def render(get: Lookup, edge: dict[str, Any], phrases: Phrases | None = None) -> tuple[str, bool]:
    """The fact sentence for EDGE, and whether both endpoints were found. PHRASES, when given, keeps what
    `describe` said of each endpoint for the next facts that name it (a batch of edges names the same nodes again
    and again); keep it only while the nodes GET reads do not change."""
    cut, found = parts(get, edge, phrases)
    return " ".join(cut), found
