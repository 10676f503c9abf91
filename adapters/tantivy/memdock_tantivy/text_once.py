"""The text once (layout 3): an entry whose chunks' bodies, joined in position order, are exactly its body is
stored without it (`in_chunks` in its stored record) and read back by joining them.

The entry's words are still indexed (search_nodes ranks on them); only the stored copy goes. Whether the chunks
join to the body is known once a run's chunks have been seen, so `Held` keeps the run's entries (up to HELD_CHARS
of bodies; past that an entry is stored with its body) until its chunks are done. An entry is stored without its
body only when the chunks that will be stored for it are exactly the ones this run sent. Before a chunk of such an
entry is rewritten or deleted without the entry itself, the entry is stored again with its body (`materialise`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

FLAG = "in_chunks"
HELD_CHARS = 64_000_000  # entries' bodies held in memory until the run's chunks are done


def chunk_body(r: dict[str, Any]) -> str:
    """A chunk's text less its header line (what it adds to its entry's body)."""
    header, text = r.get("header") or "", r["text"]
    return text[len(header) + 1 :] if header and text.startswith(header + "\n") else text


def joined(chunks: Iterable[dict[str, Any]]) -> str:
    return "".join(chunk_body(c) for c in sorted(chunks, key=lambda c: c["position"]))


def fill(recs: list[dict[str, Any]], chunks_of) -> None:
    """Put back the body of each entry of RECS stored without it, from CHUNKS_OF(entry ids) (their stored chunks)."""
    need = {r["id"]: r for r in recs if r.get(FLAG) and "body" not in r}
    if not need:
        return
    parts: dict[str, list[dict[str, Any]]] = {i: [] for i in need}
    for c in chunks_of(sorted(need)):
        parts.setdefault(c["entry_id"], []).append(c)
    for entry_id, rec in need.items():
        rec["body"] = joined(parts[entry_id])


def with_body(rec: dict[str, Any]) -> dict[str, Any]:
    """An entry's record as the payload gave it (its body filled in), without the flag."""
    return {k: v for k, v in rec.items() if k not in (FLAG, "kind")}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _covers(body: str, parts: list[dict[str, Any]]) -> bool:
    """Whether PARTS (length and digest of each chunk body, no digest where the chunk body is BODY itself), in
    position order, are BODY exactly."""
    at = 0
    for p in sorted(parts, key=lambda p: p["position"]):
        piece = body[at : at + p["length"]]
        if piece != body if p["digest"] is None else _digest(piece) != p["digest"]:
            return False
        at += p["length"]
    return at == len(body)


class Held:
    """A run's entries, kept until its chunks are seen (ENABLED: the store's layout holds texts once)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.entries: dict[str, dict[str, Any]] = {}
        self.parts: dict[str, list[dict[str, Any]]] = {}
        self.chars = 0

    def keep(self, r: dict[str, Any]) -> bool:
        """Hold entry R (True), or leave it to be stored with its body now (False)."""
        body = r.get("body") or ""
        if not self.enabled or not body or self.chars + len(body) > HELD_CHARS or r["id"] in self.entries:
            return False
        self.entries[r["id"]] = r
        self.chars += len(body)
        return True

    def saw(self, chunk: dict[str, Any]) -> None:
        """Note a chunk of a held entry: its place and a digest of its body (not the text, held once already)."""
        entry = self.entries.get(chunk["entry_id"])
        if entry is not None:
            body = chunk_body(chunk)
            # a chunk that is its entry's whole body (every short note) is compared as text, held already: no digest
            digest = None if body == entry["body"] else _digest(body)
            self.parts.setdefault(chunk["entry_id"], []).append(
                {"id": chunk["id"], "position": chunk["position"], "length": len(body), "digest": digest}
            )

    def release(self, stored_chunks) -> list[tuple[dict[str, Any], bool]]:
        """Each held entry and whether its chunks hold its text; STORED_CHUNKS(entry ids) gives the chunks already
        stored for those entries (any not sent again in this run stays, so the entry keeps its body)."""
        entries, self.entries, self.chars = self.entries, {}, 0
        parts, self.parts = self.parts, {}
        joins = {i for i, r in entries.items() if i in parts and _covers(r["body"], parts[i])}
        sent = {p["id"] for i in joins for p in parts[i]}
        for c in stored_chunks(sorted(joins)) if joins else []:
            if c["id"] not in sent:
                joins.discard(c["entry_id"])
        return [(r, i in joins) for i, r in entries.items()]
