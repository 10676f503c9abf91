"""`memdock add` in one pass: import and chunk straight into the index run, no corpus or chunks bundle between.

The index run (`engine/index.py`) reads an `ImportFeed` as it would a bundle: each record the importer makes is
checked as a bundle writer checks it (schema, JSON rules, one id per type; a source's own problems are reported
by the importer with file and line), each entry is chunked as it comes, and every record with its JSON line goes
to the delta (`engine/delta.DeltaSink`), which hashes it once, diffs it against the ledger and writes it into the
journal segment the adapter then reads. Edges and chunks are the core's own records (made from ids, positions
and times the entry's check already covered): they skip the schema check. A chunk holds only its entry's values
and strings and counts of its own, so the entry's line has checked the JSON rules for it, and its id is unique by
construction (its entry's id, its position and its text's hash): it skips those checks too. So do the edges
`structure` derives from an entry (contains, follows, mentions: see DERIVED), ids and times alone with ids unique
by construction; a replies_to edge, which an importer reads from its source, keeps the JSON rules and the id
check.

The importer makes each entry with its contains, follows and mentions edges as `implied_edges` (payload 1.2.0,
`sdk/implied.py`). When the index run says the store takes them so (IMPLIED: its adapter derives them, see
`engine/index.py`), the entry goes as it is and those edges are no records at all: not hashed, not in the ledger,
not in the journal. Otherwise the entry goes without the field, followed by the edge records it stands for, the
same records and lines as before the field existed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..bundle import source
from ..bundle.lines import RecordLines
from ..chunking import ChunkOptions
from ..chunking.chunker import Chunker
from ..sdk import gc_pace
from ..sdk.implied import KEY, expand, explicit
from ..validation import SchemaValidator
from .pipeline import ImportSummary, import_records

if TYPE_CHECKING:
    from ..engine.delta import DeltaSink

OWN = frozenset({"edge"})
_LINE = orjson.OPT_APPEND_NEWLINE
DERIVED = frozenset({"contains", "follows", "mentions"})
"""Edges `importers.base.structure` derives from an entry (its thread, the entry before it, an entity it names
once): unique by construction, since the entry's id was checked unique before them, and made of ids and times
(strings) alone, which meet the JSON rules."""


class ImportFeed:
    """SOURCES read as FMT (files in SKIP left unread), chunked with OPTIONS; ON_BYTES(done, total) follows the
    import, ON_IMPORTED(summary) runs once the sources are read, before the adapter is sent anything."""

    kind = "chunks"
    made = True
    """Its chunks are its chunker's, each line orjson's dumps of the record (`engine.delta.Feed.made`)."""
    implied = False
    """Whether entries go with `implied_edges` instead of their structural edge records (the index run sets it)."""

    def __init__(
        self,
        sources: Sequence[str | Path],
        fmt: str,
        options: ChunkOptions,
        *,
        skip: Collection[Path] = (),
        on_bytes: Callable[[int, int], None] | None = None,
        on_imported: Callable[[ImportSummary], None] | None = None,
    ):
        self.roots = [Path(s) for s in sources]
        self.fmt, self.skip, self.on_bytes, self.on_imported = fmt, skip, on_bytes, on_imported
        self._chunker = Chunker(options)
        self.chunker: dict[str, Any] | None = self._chunker.manifest()
        self.origin = source.for_import(fmt, self.roots)
        self.where = ", ".join(map(str, self.roots))
        self.summary: ImportSummary | None = None
        self._head: list[tuple[str, dict[str, Any]]] = []
        self._records: Iterator[tuple[str, dict[str, Any]]] = iter(())

    def start(self) -> None:
        """Read the sources up to their first entry, so that sources that do not exist or yield no entry are
        refused (InvalidInputError) before any store is touched."""
        self.summary = ImportSummary()
        self._records = import_records(
            self.summary, self.roots, self.fmt, on_bytes=self.on_bytes, skip=self.skip, implied=True
        )
        # an importer may read a whole file here (jsonl): its records are all alive at once
        with gc_pace.paced(gc_pace.PASS, freeze=True):
            for rtype, rec in self._records:
                self._head.append((rtype, rec))
                if rtype == "entry":
                    break

    def run(self, sink: DeltaSink) -> None:
        if self.summary is None:
            self.start()
        out = _Chunking(sink, self._chunker, self.implied)
        try:
            for rtype, rec in chain(self._head, self._records):
                out.write(rtype, rec)
        finally:
            self._head = []
            out.close()
        if self.on_imported is not None:
            self.on_imported(self.summary)  # type: ignore[arg-type]


class _Chunking:
    """The importer's records, checked and made lines, each entry followed by its chunks, into SINK."""

    def __init__(self, sink: DeltaSink, chunker: Chunker, implied: bool = False):
        self.sink, self.chunker, self.implied = sink, chunker, implied
        self.checked = RecordLines(SchemaValidator())
        self.own = RecordLines(None)
        self.threads: dict[str, dict[str, Any]] = {}

    def write(self, record_type: str, record: dict[str, Any]) -> None:
        edges = None
        if record_type == "entry" and KEY in record:
            if not self.implied:
                edges = list(expand(record))
                record = explicit(record)
            elif not self.sink.fresh:  # what the ledger held as records and this entry now implies (see prune)
                self.sink.imply(record)
        if record_type not in OWN:  # an entry's id is the importer's claim (unique: `ImportContext.claim_entry_id`)
            line = self.checked.line(record_type, record, claimed=record_type == "entry")
        elif record.get("type") in DERIVED:
            line = self.own.built(record_type, record)
        else:
            line = self.own.line(record_type, record)
        if record_type == "entry":
            thread = self.threads.get(record["thread_id"])
            # a chunk holds its entry's values (checked in the entry's line just made) and strings and counts of its
            # own: the JSON rules `dumps_line` checks hold for it already
            chunks = [(c, orjson.dumps(c, option=_LINE)) for c in self.chunker.iter_chunks(record, thread)]
            self.sink.add(record_type, record, line)
            for chunk, chunk_line in chunks:
                self.sink.add("chunk", chunk, chunk_line)
            for e in edges or ():
                self.sink.add("edge", e, self.own.built("edge", e), derived=True)
            return
        if record_type == "thread":
            self.threads[record["id"]] = {"title": record.get("title"), "format": record.get("format")}
        self.sink.add(record_type, record, line)

    def close(self) -> None:
        self.checked.close()
        self.own.close()
