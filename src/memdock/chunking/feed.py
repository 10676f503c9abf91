"""A corpus bundle chunked in the index run's own pass (`memdock index CORPUS`).

Before this feed the CLI chunked a corpus into a chunks bundle in the system's temp dir and then indexed that: a
second copy of the text written and read again, and left behind, text and all, by a run that was killed. The feed
hands the index run (`engine/delta.build_delta`) each record as the reader gives it (checked, or trusted by this
home's seal), each entry followed by its chunks, the records and ids `chunk_bundle` would have written. Entries with
`implied_edges` go as `engine/delta`'s bundle feed sends them: as they are where the adapter derives those edges,
else without the field and followed by the edge records they stand for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from ..bundle import BundleReader, source
from ..sdk.implied import KEY, expand, explicit
from ..shard import ORDER
from .chunker import PASS_THROUGH, Chunker, ChunkOptions

if TYPE_CHECKING:
    from ..engine.delta import DeltaSink

_LINE = orjson.OPT_APPEND_NEWLINE
_SENT = tuple(t for t in ORDER if t in PASS_THROUGH)
"""The corpus's record types that go, as `chunk_bundle` passes them through: chunk records a corpus holds do not
(its chunks are the chunker's)."""


class CorpusFeed:
    """READER's records (a corpus bundle), its entries chunked with OPTIONS as they pass (`engine.delta.Feed`)."""

    kind = "chunks"
    made = True
    """Its chunks are its chunker's, each line orjson's dumps of the record (`engine.delta.Feed.made`)."""
    implied = False

    def __init__(self, reader: BundleReader, options: ChunkOptions | None = None):
        self.reader = reader
        self._chunker = Chunker(options)
        self.chunker: dict[str, Any] | None = self._chunker.manifest()
        self.origin = source.of_manifest(reader.manifest, reader.path)
        self.where = str(reader.path)

    def run(self, sink: DeltaSink) -> None:
        threads: dict[str, dict[str, Any]] = {}
        for rtype in _SENT:
            for rec, line in self.reader.records_with_lines(rtype):
                if rtype == "entry":
                    self._entry(sink, rec, line, threads.get(rec["thread_id"]))
                    continue
                if rtype == "thread":
                    threads[rec["id"]] = {"title": rec.get("title"), "format": rec.get("format")}
                sink.add(rtype, rec, line)
            sink.flush()

    def _entry(self, sink: DeltaSink, rec: dict[str, Any], line: bytes, thread: dict[str, Any] | None) -> None:
        edges: list[dict[str, Any]] = []
        if KEY in rec:
            sink.imply(rec)  # an edge record of the bundle that one of these stands for is refused
            if not self.implied:
                edges = list(expand(rec))
                rec = explicit(rec)
                line = orjson.dumps(rec, option=_LINE)
        chunks = [(c, orjson.dumps(c, option=_LINE)) for c in self._chunker.iter_chunks(rec, thread)]
        sink.add("entry", rec, line)
        for chunk, chunk_line in chunks:
            sink.add("chunk", chunk, chunk_line)
        for e in edges:
            sink.add("edge", e, orjson.dumps(e, option=_LINE), derived=True)
