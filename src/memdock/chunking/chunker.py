"""Chunking a corpus bundle into a chunks bundle.

The chunks bundle carries the corpus records (threads, entries, edges,
entities) too, so one bundle is all an adapter needs. Chunk ids come from the
entry id, the window's position and its content hash: re-chunking unchanged
input gives the same ids.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from ..bundle import BundleReader, BundleWriter, source
from ..errors import InvalidInputError
from ..ids import content_hash, digest
from .splitter import Splitter
from .tokenizers import get_tokenizer

PASS_THROUGH = ("thread", "entry", "edge", "entity")
_CARRIED = ("author", "role", "entry_type", "event_time", "metadata", "source")
"""The entry's fields a chunk carries, when the entry has them."""


MAX_WINDOW_TOKENS = 1_000_000  # far past any model's context; bounds what a manifest's chunker params hold


HEADER_FORMATS = frozenset({"watercooler", "chat"})
"""Formats whose chunks carry the header line by default: who spoke is content there. On LoCoMo (chat) the header
raised BM25 R@10 from 0.618 to 0.657, chosen by every fold of the rotation in bench/locomo.py."""


@dataclass
class ChunkOptions:
    max_tokens: int = 900
    overlap: int = 100
    tokenizer: str = "approx"
    header: str = "auto"  # on | off | auto (on for HEADER_FORMATS; elsewhere the title alone: see title_line)

    def __post_init__(self) -> None:
        if (
            isinstance(self.max_tokens, bool)
            or not isinstance(self.max_tokens, int)
            or not 1 <= self.max_tokens <= MAX_WINDOW_TOKENS
        ):
            raise InvalidInputError(
                f"max_tokens (--max-tokens) must be an integer from 1 to {MAX_WINDOW_TOKENS:,}, got {self.max_tokens!r}"
            )
        if (
            isinstance(self.overlap, bool)
            or not isinstance(self.overlap, int)
            or not 0 <= self.overlap < self.max_tokens
        ):
            raise InvalidInputError(
                f"overlap (--overlap) must be an integer from 0 to max_tokens - 1 "
                f"({self.max_tokens - 1}), got {self.overlap!r}"
            )
        if self.header not in ("auto", "on", "off"):
            raise InvalidInputError(f"header (--header) must be auto, on or off, got {self.header!r}")

    def params(self) -> dict[str, Any]:
        return {
            "max_tokens": self.max_tokens,
            "overlap": self.overlap,
            "tokenizer": self.tokenizer,
            "header": self.header,
        }


@dataclass
class ChunkSummary:
    counts: dict[str, int] = field(default_factory=dict)
    chunks: int = 0
    entries_without_text: int = 0
    bytes_in: int = 0
    seconds: float = 0.0


def header_line(thread: dict[str, Any] | None, entry: dict[str, Any]) -> str:
    parts = [f"[{thread['title']}]" if thread and thread.get("title") else ""]
    parts += [entry.get(k, "") for k in ("author", "role", "entry_type", "event_time")]
    head = " · ".join(p for p in parts if p)
    return f"{head} — {entry['title']}" if entry.get("title") else head


def title_line(thread: dict[str, Any] | None, entry: dict[str, Any]) -> str:
    """What `auto` puts above a chunk outside HEADER_FORMATS: the entry's title (a note's heading), else a text
    file's own title (its first heading or its name), so a note is found by the words of its title."""
    if entry.get("title"):
        return str(entry["title"])
    if thread and thread.get("format") == "text" and thread.get("title"):
        return str(thread["title"])
    return ""


class Chunker:
    def __init__(self, options: ChunkOptions | None = None):
        self.options = options or ChunkOptions()
        self.tokenizer = get_tokenizer(self.options.tokenizer)
        self.splitter = Splitter(self.tokenizer, max_tokens=self.options.max_tokens, overlap=self.options.overlap)

    def _header(self, entry: dict[str, Any], thread: dict[str, Any] | None) -> str:
        if self.options.header == "on":
            return header_line(thread, entry)
        if self.options.header == "off":
            return ""
        if (thread or {}).get("format") in HEADER_FORMATS:
            return header_line(thread, entry)
        return title_line(thread, entry)

    def manifest(self) -> dict[str, Any]:
        """What a chunks bundle's manifest says of the chunker that made it."""
        params = {**self.options.params(), "tokenizer": self.tokenizer.name}
        return {"name": "memdock.recursive", "version": __version__, "params": params}

    def chunks_for(self, entry: dict[str, Any], thread: dict[str, Any] | None) -> list[dict[str, Any]]:
        return list(self.iter_chunks(entry, thread))

    def iter_chunks(self, entry: dict[str, Any], thread: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
        """The chunk records of ENTRY, one window at a time (a long entry is never held as a list of chunks)."""
        body = entry.get("body", "")
        header = self._header(entry, thread)
        htok = self.tokenizer.count(header) if header else 0
        budget = max(self.options.max_tokens // 4, self.options.max_tokens - htok)
        windows = self.splitter.short(body, budget)  # most entries are one window: no generator then
        for pos, w in enumerate(self.splitter.windows(body, budget) if windows is None else windows):
            text = (header + "\n" + body[w.start : w.end]) if header else body[w.start : w.end]
            h = content_hash(text)
            rec: dict[str, Any] = {
                "id": f"chunk:{digest(entry['id'], str(pos), h)}",
                "entry_id": entry["id"],
                "thread_id": entry["thread_id"],
                "position": pos,
                "text": text,
                "start": w.start,
                "end": w.end,
                "token_count": w.tokens + htok,
                "content_hash": h,
            }
            if header:
                rec["header"] = header
            for k in _CARRIED:
                v = entry.get(k)
                if v:
                    rec[k] = v
            yield rec


def chunk_bundle(
    corpus: str | Path,
    out: str | Path,
    options: ChunkOptions | None = None,
    *,
    overwrite: bool = False,
    on_entry: Callable[[int, int], None] | None = None,
) -> ChunkSummary:
    started = time.monotonic()
    chunker = Chunker(options)
    reader = BundleReader(corpus, trust_seal=True)  # a corpus `memdock import` wrote is not checked twice
    summary = ChunkSummary()
    threads: dict[str, dict[str, Any]] = {}
    total = reader.count("entry")
    metadata = {"corpus": str(corpus), source.KEY: source.of_manifest(reader.manifest, reader.path)}
    with BundleWriter(
        out,
        "chunks",
        overwrite=overwrite,
        validate=True,
        inputs=[corpus],
        chunker=chunker.manifest(),
        metadata=metadata,
    ) as w:
        for rtype in PASS_THROUGH:
            for rec, line in reader.records_with_lines(rtype):
                w.write_line(rtype, line)  # the reader checked it (or trusted this home's seal on it)
                summary.counts[rtype] = summary.counts.get(rtype, 0) + 1
                if rtype == "thread":
                    threads[rec["id"]] = {"title": rec.get("title"), "format": rec.get("format")}
                elif rtype == "entry":
                    summary.bytes_in += _utf8_size(rec.get("body", ""))
                    made = 0
                    for c in chunker.iter_chunks(rec, threads.get(rec["thread_id"])):
                        w.write("chunk", c)
                        made += 1
                    if not made:
                        summary.entries_without_text += 1
                    summary.chunks += made
                    if on_entry:
                        on_entry(summary.counts["entry"], total)
    summary.seconds = time.monotonic() - started
    return summary


def _utf8_size(text: str) -> int:
    """UTF-8 bytes of TEXT without an encoded copy of it when it is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
