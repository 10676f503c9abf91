"""The text once (layout 3): an entry whose chunks' bodies, joined in position order, are exactly its body is
stored without it (`in_chunks` true in its stored record) and read back by joining them.

Layout 8 also stores without its body an entry whose chunks overlap (the chunker's windows share text at their
edges) but still hold all of it: each chunk's body is the entry's body from the chunk's `start` to its `end`, the
first starts at 0, each starts no later than the one before ends, and the last ends with the body. Its flag is
SPANS (2), and it is read back by joining each chunk's body less what the chunks before it already gave. On the
20 MB of watercooler markdown of bench/peers.py those entries (1,655 of 11,335, most of the text) kept 13.4 MB of
bodies in the graph's doc store before.

Up to layout 7 the entry's words are still indexed in the graph (search_nodes ranks on them) and only the stored
copy goes; from layout 8 they are indexed only in its chunks, through which search_nodes finds it. Whether the chunks
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
JOINED, SPANS = 1, 2  # how an entry's chunks hold its body: end to end (stored as true), or overlapping (layout 8)
HELD_CHARS = 64_000_000  # entries' bodies held in memory until the run's chunks are done


def chunk_body(r: dict[str, Any]) -> str:
    """A chunk's text less its header line (what it adds to its entry's body)."""
    header, text = r.get("header") or "", r["text"]
    return text[len(header) + 1 :] if header and text.startswith(header + "\n") else text


def joined(chunks: Iterable[dict[str, Any]], spans: bool = False) -> str:
    """The body CHUNKS hold: their bodies end to end, or (SPANS) each less what the ones before it gave."""
    ordered = sorted(chunks, key=lambda c: c["position"])
    if not spans:
        return "".join(chunk_body(c) for c in ordered)
    out, end = [], 0
    for c in ordered:
        out.append(chunk_body(c)[end - c["start"] :])
        end = c["end"]
    return "".join(out)


def fill(recs: list[dict[str, Any]], chunks_of) -> None:
    """Put back the body of each entry of RECS stored without it, from CHUNKS_OF(entry ids) (their stored chunks)."""
    need = {r["id"]: r for r in recs if r.get(FLAG) and "body" not in r}
    if not need:
        return
    parts: dict[str, list[dict[str, Any]]] = {i: [] for i in need}
    for c in chunks_of(sorted(need)):
        parts.setdefault(c["entry_id"], []).append(c)
    for entry_id, rec in need.items():
        rec["body"] = joined(parts[entry_id], rec[FLAG] == SPANS)


def with_body(rec: dict[str, Any]) -> dict[str, Any]:
    """An entry's record as the payload gave it (its body filled in), without the flag."""
    return {k: v for k, v in rec.items() if k not in (FLAG, "kind")}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _matches(piece: str, body: str, digest: bytes | None) -> bool:
    """Whether PIECE is the chunk body a part noted: BODY itself where it kept no digest, else by its digest."""
    return piece == body if digest is None else _digest(piece) == digest


def _covers(body: str, parts: list[dict[str, Any]]) -> int:
    """How PARTS (length, digest, start and end of each chunk body), in position order, hold BODY: JOINED (end to
    end), SPANS (overlapping, each the body from its start to its end), or 0 (not all of it, or not exactly)."""
    ordered, at = sorted(parts, key=lambda p: p["position"]), 0
    for p in ordered:
        if not _matches(body[at : at + p["length"]], body, p["digest"]):
            break
        at += p["length"]
    else:
        if at == len(body):
            return JOINED
    end = 0
    for p in ordered:
        start, stop = p["start"], p["end"]
        if type(start) is not int or type(stop) is not int or not 0 <= start <= end <= stop:
            return 0
        if stop - start != p["length"] or not _matches(body[start:stop], body, p["digest"]):
            return 0
        end = stop
    return SPANS if end == len(body) else 0


class Held:
    """A run's entries, kept until its chunks are seen (ENABLED: the store's layout holds texts once)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.entries: dict[str, dict[str, Any]] = {}
        self.parts: dict[str, list[dict[str, Any]]] = {}
        self.chars = 0
        self.crossed: set[str] = set()  # the last release's entries with a chunk sent in another thread than theirs

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
                {
                    "id": chunk["id"],
                    "position": chunk["position"],
                    "length": len(body),
                    "digest": digest,
                    "start": chunk.get("start"),
                    "end": chunk.get("end"),
                    "thread_id": chunk.get("thread_id"),
                }
            )

    def release(self, stored_chunks) -> list[tuple[dict[str, Any], int]]:
        """Each held entry and how its chunks hold its text (JOINED, SPANS, 0: they do not); STORED_CHUNKS(entry
        ids) gives the chunks already stored for those entries (any not sent again in this run stays, so the entry
        keeps its body)."""
        entries, self.entries, self.chars = self.entries, {}, 0
        parts, self.parts = self.parts, {}
        joins = {i: how for i, r in entries.items() if i in parts and (how := _covers(r["body"], parts[i]))}
        self.crossed = {i for i in joins if any(p["thread_id"] != entries[i]["thread_id"] for p in parts[i])}
        sent = {p["id"] for i in joins for p in parts[i]}
        for c in stored_chunks(sorted(joins)) if joins else []:
            if c["id"] not in sent:
                joins.pop(c["entry_id"], None)
        return [(r, joins.get(i, 0)) for i, r in entries.items()]
