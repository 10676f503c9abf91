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
join to the body is known once the entry's chunks have been seen, so `Held` keeps the run's entries (up to HELD_CHARS
of bodies in memory, settings `held_mb`; past that an entry is stored with its body) until then: an entry whose
chunks seen hold all of its body leaves memory for a spool file at once (a stream sends each entry's chunks just
after it: on 100 MB of markdown every entry was held to the end of the run before, and the last third of the text went
past the bound), and the entries are released, in the order they came, at the run's end. An entry is stored without its
body only when the chunks that will be stored for it are exactly the ones this run sent. Before a chunk of such an
entry is rewritten or deleted without the entry itself, the entry is stored again with its body (`materialise`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

from memdock.diskfull import disk_full_as_error

FLAG = "in_chunks"
JOINED, SPANS = 1, 2  # how an entry's chunks hold its body: end to end (stored as true), or overlapping (layout 8)
HELD_CHARS = 64_000_000  # entries' bodies held in memory until their chunks are seen (settings `held_mb`)
SPOOL_SHARE = 2
"""Entries go to the spool only once their bodies held pass this share of the bound: sending each one there and
reading it back cost the 20k notes' `memdock add -b tantivy` 0.3-0.5 CPU s of the adapter's 3.9-4.0 (10 %), and
with a quarter of the bound the 20 MB markdown's 1-3 CPU s (`/usr/bin/time` of two adds each, against
`-c held_mb=1000`), for entries that fit in memory anyway."""


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
    """A run's entries, kept until their chunks are seen (ENABLED: the store's layout holds texts once), then
    released in the order they came (their documents go to the writers then, as they always did).

    An entry whose chunks seen hold all of its body leaves memory at once (`ready`) for a spool file in SPOOL_DIR,
    read back at `release`: a stream sends each entry's chunks just after it, so a big corpus keeps in memory only
    the entries whose chunks are still to come, never HELD_CHARS (past which an entry is stored with its body). A
    chunk that comes for an entry in the spool (a bundle may send its chunks in any order) takes it back into
    memory with the chunks seen before, so each entry is released as all of the run's chunks of it say. Entries
    whose bodies fit in SPOOL_SHARE's share of the bound stay in memory."""

    def __init__(
        self,
        enabled: bool,
        spool_dir: str | os.PathLike[str] | None = None,
        limit: int = HELD_CHARS,
        spool_above: int | None = None,
    ):
        self.enabled, self.spool_dir, self.limit = enabled, spool_dir, limit
        self.spool_above = limit // SPOOL_SHARE if spool_above is None else spool_above
        self.order: dict[str, None] = {}  # every entry held in this run, in the order it came
        self.entries: dict[str, dict[str, Any]] = {}  # those in memory
        self.parts: dict[str, list[dict[str, Any]]] = {}
        self.seen: dict[str, int] = {}  # characters of chunk bodies seen for each entry in memory
        self.due: set[str] = set()  # entries in memory whose chunks seen may hold all of their body
        self.chars = 0
        self.spooled: dict[str, int] = {}  # entries `ready` sent to the spool, each at its place there
        self._spool: IO[bytes] | None = None

    def keep(self, r: dict[str, Any]) -> bool:
        """Hold entry R (True), or leave it to be stored with its body now (False)."""
        body = r.get("body") or ""
        if not self.enabled or not body or self.chars + len(body) > self.limit or r["id"] in self.order:
            return False
        self.order[r["id"]] = None
        self._hold(r, [])
        return True

    def _hold(self, r: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        self.entries[r["id"]] = r
        self.parts[r["id"]] = parts
        self.seen[r["id"]] = sum(p["length"] for p in parts)
        self.chars += len(r["body"])

    def saw(self, chunk: dict[str, Any]) -> None:
        """Note a chunk of a held entry: its place and a digest of its body (not the text, held once already)."""
        entry_id = chunk["entry_id"]
        entry = self.entries.get(entry_id)
        if entry is None:
            if entry_id not in self.spooled:
                return
            entry = self._back(entry_id)
        body = chunk_body(chunk)
        # a chunk that is its entry's whole body (every short note) is compared as text, held already: no digest
        digest = None if body == entry["body"] else _digest(body)
        self.parts[entry_id].append(
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
        self.seen[entry_id] += len(body)
        if self.seen[entry_id] >= len(entry["body"]):  # fewer characters cannot hold it
            self.due.add(entry_id)

    def ready(self) -> int:
        """Send to the spool the entries in memory whose chunks seen hold all of their body, once the bodies held
        pass `spool_above` (SPOOL_SHARE); returns how many."""
        if self.chars <= self.spool_above:
            return 0
        due, self.due = self.due, set()
        joins = {i: how for i in due if i in self.entries and (how := _covers(self.entries[i]["body"], self.parts[i]))}
        if joins:
            spool = self._spool_file()
            with self._writing():
                for i, how in joins.items():
                    self.spooled[i] = spool.tell()
                    r, parts = self._drop(i)
                    pickle.dump((r, parts, how), spool, pickle.HIGHEST_PROTOCOL)
        return len(joins)

    def release(self, stored_chunks, slice_: int = 2000) -> Iterator[list[tuple[dict[str, Any], int, bool]]]:
        """Each held entry (SLICE_ at a time, in the order they came), how its chunks hold its text (JOINED, SPANS,
        0: they do not), and whether one of them was sent in another thread than the entry's; STORED_CHUNKS(entry
        ids) gives the chunks already stored for those entries (any not sent again in this run stays, so the entry
        keeps its body)."""
        order, self.order = list(self.order), {}
        try:
            for at in range(0, len(order), slice_):
                yield self._released(order[at : at + slice_], stored_chunks)
        finally:
            self.close()

    def _released(self, ids: list[str], stored_chunks) -> list[tuple[dict[str, Any], int, bool]]:
        entries, parts, joins = {}, {}, {}
        for i in ids:
            if i in self.spooled:
                entries[i], parts[i], joins[i] = self._load(self.spooled.pop(i))
            else:
                entries[i], parts[i] = self._drop(i)
                if how := _covers(entries[i]["body"], parts[i]):
                    joins[i] = how
        crossed = {i for i in joins if any(p["thread_id"] != entries[i]["thread_id"] for p in parts[i])}
        sent = {p["id"] for i in joins for p in parts[i]}
        for c in stored_chunks(sorted(joins)) if joins else []:
            if c["id"] not in sent:
                joins.pop(c["entry_id"], None)
        return [(r, joins.get(i, 0), i in crossed) for i, r in entries.items()]

    def _drop(self, entry_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Entry ENTRY_ID and its chunks seen, out of memory."""
        r = self.entries.pop(entry_id)
        self.chars -= len(r["body"])
        del self.seen[entry_id]
        return r, self.parts.pop(entry_id)

    def _spool_file(self) -> IO[bytes]:
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(dir=self.spool_dir)  # noqa: SIM115  # closed by `close`
        return self._spool

    def _writing(self) -> contextlib.AbstractContextManager[None]:
        """Where the spool is written (its buffer flushes at a dump, or at the seek of a load): a full disk is
        disk_full naming the work dir; the run fails, and `close` drops the spool and the space it took."""
        return disk_full_as_error(self.spool_dir or tempfile.gettempdir(), "spooling the entries held for their text")

    def _load(self, offset: int) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
        spool = self._spool_file()
        with self._writing():
            spool.seek(offset)
        got = pickle.load(spool)
        spool.seek(0, os.SEEK_END)
        return got

    def _back(self, entry_id: str) -> dict[str, Any]:
        """Entry ENTRY_ID, in the spool, back in memory with the chunks seen of it then."""
        r, parts, _ = self._load(self.spooled.pop(entry_id))
        self._hold(r, parts)
        return r

    def close(self) -> None:
        """Drop what is held and the spool (the run is over, or failed)."""
        if self._spool is not None:
            with contextlib.suppress(OSError):  # its buffer unwritten (a full disk): the file is closed all the same
                self._spool.close()
            self._spool = None
        self.order, self.spooled, self.entries, self.parts, self.seen = {}, {}, {}, {}, {}
        self.due, self.chars = set(), 0
