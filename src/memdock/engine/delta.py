"""What an index run must send: the records of a bundle that the ledger has not committed as they are.

One pass over the input does it all: each record is read (and checked, unless the bundle carries this memdock's
seal, see `bundle.seal`), hashed, looked up in the ledger, and, when the ledger lacks it, noted as pending and
written to the journal segment, gzip-compressed as it is written (see `engine/journal.py`). When every record
goes (a first index), the adapter is handed the input bundle itself (`Delta.whole`); otherwise the segment."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from hashlib import sha256 as _sha256
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..bundle import BundleReader, BundleWriter, source
from ..errors import InvalidInputError
from ..sdk import gc_pace
from ..sdk.implied import KEY, edge_id, expand, explicit, implied_count
from .ledger import _VOLATILE, Item, Ledger

ORDER = ("thread", "entry", "entity", "edge", "chunk")
_BATCH = 2000
_SPANNED = frozenset({"entry", "chunk"})


@dataclass
class Delta:
    path: Path
    sent: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    thread_ids: list[str] = field(default_factory=list)
    origin: str = ""
    source: Path | None = None
    implied: dict[str, str] = field(default_factory=dict)
    """Ids of the edges the input's entries imply, sent as no records of their own (a store that takes them so),
    each with the entry that implies it."""
    implied_sent: int = 0
    """How many edges the entries sent imply (sent as no records of their own)."""

    @property
    def whole(self) -> bool:
        """Every record of the input goes: the adapter can read the input bundle itself."""
        return self.skipped == 0 and self.total_sent > 0

    @property
    def adapter_input(self) -> Path:
        """What the adapter reads: the input bundle when it all goes, else the journal segment of what changed."""
        return self.source if self.whole and self.source is not None else self.path

    @property
    def total_sent(self) -> int:
        return sum(self.sent.values())


class Feed(Protocol):
    """Records an index run reads from somewhere other than a bundle (`memdock add` imports and chunks them in the
    same pass, see `importers/onepass.py`). RUN pushes each record with its line to the sink, checked as a bundle
    writer checks it; KIND, CHUNKER and ORIGIN say what a bundle's manifest would, WHERE names it in the segment."""

    kind: str
    chunker: dict[str, Any] | None
    origin: str
    where: str
    implied: bool
    """Entries go with their `implied_edges` (the adapter derives those edges), else with the edge records they
    stand for (`sdk/implied.py`); the index run sets it."""
    made: bool
    """Its chunks are the core's chunker's, made in this pass, each line orjson's dumps of its record: the journal
    takes their text and hash from the line without checking them against the record (`bundle.spans`)."""

    def run(self, sink: DeltaSink) -> None: ...


class DeltaSink:
    """The delta being written: records pushed one by one are hashed, diffed against the ledger a batch of one type
    at a time, and the changed ones written to the segment and noted as pending."""

    def __init__(
        self,
        ledger: Ledger,
        w: BundleWriter,
        delta: Delta,
        fresh: bool,
        made: bool = False,
        begin: Callable[[], None] | None = None,
        where: str | None = None,
    ):
        """BEGIN, when FRESH, is called at the first record: every record of a first index goes, so whatever reads
        the delta (`engine/stream.py`'s adapter) may start then rather than at the first batch written. WHERE names
        the input in errors (else the segment)."""
        self.where = where
        self.ledger, self.w, self.delta, self.fresh, self.made = ledger, w, delta, fresh, made
        self.begin = begin if fresh else None
        self.batches: dict[str, _Batch] = {}
        self.threads: set[str] = set()
        self.implied: dict[str, str] = {}  # edge id: the entry of this input that implies it

    def imply(self, entry: dict[str, Any]) -> None:
        """Note the edges ENTRY implies (before it is added: its volatile fields go then)."""
        spec, eid = entry[KEY], entry["id"]
        implied = self.implied
        implied[edge_id("contains", entry["thread_id"], eid)] = eid
        follows = spec.get("follows")
        if follows is not None:
            implied[edge_id("follows", eid, follows)] = eid
        for entity in spec.get("mentions", ()):
            implied[edge_id("mentions", eid, entity)] = eid

    def add(self, rtype: str, rec: dict[str, Any], line: bytes, *, derived: bool = False) -> None:
        """REC, read as LINE; REC is this run's own (its volatile fields are dropped in place). DERIVED: an edge
        expanded from an entry's `implied_edges`; any other edge record an entry of the input implies is refused."""
        if self.begin is not None:
            begin, self.begin = self.begin, None
            begin()
        rid = rec["id"]
        if rtype == "edge" and not derived and rid in self.implied:
            raise InvalidInputError(
                f"{self.where or self.w.path}: edge {rid} ({rec.get('type')}) is both an edge record and implied by "
                f"entry {self.implied[rid]} (its implied_edges): give it one way, not both",
                details={"record_id": rid, "entry_id": self.implied[rid], "field": KEY},
            )
        if rtype == "thread":
            self.threads.add(rid)
            thread = rid
        else:
            thread = rec.get("thread_id")
        batch = self.batches.get(rtype)
        if batch is None:
            batch = self.batches[rtype] = _Batch()
        batch.lines.append(line)
        batch.items.append((rid, _hash(rec), thread, rtype))
        batch.records.append(rec)
        if len(batch.lines) >= _BATCH:
            self.flush(upto=rtype)

    def flush(self, upto: str | None = None) -> None:
        """Write the batches in ORDER, up to UPTO's own: a chunk then follows its entry in the segment, where the
        journal can store it as a span of the entry's body (`bundle.spans`)."""
        for rtype in sorted(self.batches, key=_rank):
            _flush(self.batches[rtype], rtype, self)
            if rtype == upto:
                return


def build_delta(
    reader: BundleReader | Feed,
    ledger: Ledger,
    out: Path,
    origin: str | None = None,
    *,
    fresh: bool = False,
    tee: Callable[[BundleWriter], Any] | None = None,
    implied: bool = False,
) -> Delta:
    """Stream READER (a bundle, or a Feed) once, writing changed records to a new bundle at OUT and noting them
    as pending.

    Every record is noted as coming from ORIGIN, else the input's source (`memdock.bundle.source`). FRESH: the
    ledger holds nothing (a first index), so every record goes and none is looked up; no record is noted as seen
    either, which only matters to pruning and to claiming records committed before, and a first index has none.
    A bundle read whole goes to the adapter as it is (`Delta.whole`); a Feed's records are only in the segment.
    TEE wraps the segment's writer, to send its lines elsewhere too (`engine/stream.py`). IMPLIED: the adapter
    derives the edges entries imply (`Feed.implied`)."""
    if isinstance(reader, BundleReader):
        feed: Feed = _BundleFeed(reader)
        delta = Delta(out, origin=origin or feed.origin, source=reader.path.resolve())
    else:
        feed = reader
        delta = Delta(out, origin=origin or feed.origin)
    feed.implied = implied
    ledger.begin_run(delta.origin)
    metadata = {"delta_of": feed.where, "origin": delta.origin}
    inputs = [reader.path] if isinstance(reader, BundleReader) else []
    with BundleWriter(
        out, feed.kind, validate=False, chunker=feed.chunker, inputs=inputs, metadata=metadata, compress=True
    ) as w:
        written = w if tee is None else tee(w)
        sink = DeltaSink(
            ledger, written, delta, fresh, feed.made, begin=getattr(written, "begin", None), where=feed.where
        )
        with gc_pace.paced(gc_pace.PASS, freeze=True):
            feed.run(sink)
            sink.flush()
    delta.sent = {t: delta.sent[t] for t in sorted(delta.sent, key=_rank)}
    if feed.implied:
        delta.implied = sink.implied
    delta.thread_ids = sorted(sink.threads)
    return delta


class _BundleFeed:
    """A bundle's records, type by type in ORDER, then the embeddings of the chunks that go."""

    implied = made = False

    def __init__(self, reader: BundleReader):
        self.reader = reader
        self.kind, self.chunker = reader.kind, reader.manifest.get("chunker")
        self.origin = source.of_manifest(reader.manifest, reader.path)
        self.where = str(reader.path)

    def run(self, sink: DeltaSink) -> None:
        add = sink.add
        for rtype in ORDER:
            if rtype == "entry":
                self._entries(sink)
            else:
                for rec, line in self.reader.records_with_lines(rtype):
                    add(rtype, rec, line)
            sink.flush()
        _copy_embeddings(self.reader, sink.ledger, sink.w)

    def _entries(self, sink: DeltaSink) -> None:
        """The entries; those with `implied_edges`, when the store does not take them so, without the field and
        followed by the edge records they stand for (the adapter then reads the segment, not the bundle)."""
        for rec, line in self.reader.records_with_lines("entry"):
            if KEY in rec:
                sink.imply(rec)
                if not self.implied:
                    edges = list(expand(rec))
                    rec = explicit(rec)
                    line = orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE)
                    for e in edges:
                        sink.add("edge", e, orjson.dumps(e, option=orjson.OPT_APPEND_NEWLINE), derived=True)
                    sink.delta.source = None
            sink.add("entry", rec, line)


def _rank(rtype: str) -> int:
    return ORDER.index(rtype) if rtype in ORDER else len(ORDER)


def _hash(rec: dict) -> bytes:
    """`record_hash` of REC, a record decoded for this run alone: its volatile fields are dropped in place rather
    than copied out, and the same bytes are hashed here without record_hash's look for them
    (tests/unit/test_delta_hash.py holds the two to the same result)."""
    for k in _VOLATILE:
        rec.pop(k, None)
    return _sha256(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS)).digest()[:16]


class _Batch:
    """Records of one type waiting to be diffed and written: their lines, ledger items and records, side by side
    (three lists rather than a tuple a record, which `_flush` would take apart again)."""

    __slots__ = ("items", "lines", "records")

    def __init__(self) -> None:
        self.lines: list[bytes] = []
        self.items: list[Item] = []
        self.records: list[dict[str, Any]] = []

    def keep(self, flags: list[bool]) -> int:
        """Keep the records whose FLAGS are true; returns how many went."""
        kept = [i for i, changed in enumerate(flags) if changed]
        if len(kept) < len(flags):
            self.lines = [self.lines[i] for i in kept]
            self.items = [self.items[i] for i in kept]
            self.records = [self.records[i] for i in kept]
        return len(flags) - len(kept)

    def clear(self) -> None:
        self.lines, self.items, self.records = [], [], []


def _flush(batch: _Batch, rtype: str, sink: DeltaSink) -> None:
    if not batch.lines:
        return
    ledger, delta = sink.ledger, sink.delta
    if not sink.fresh:
        delta.skipped += batch.keep(ledger.changed(batch.items))
    # entries and chunks go with their records: the journal finds a chunk's span of its entry's body in them
    records = batch.records if rtype in _SPANNED else None
    sink.w.write_lines(rtype, batch.lines, records, made=sink.made)
    if rtype == "entry" and records:
        delta.implied_sent += sum(map(implied_count, records))
    pending = batch.items
    ledger.add_pending(pending)
    if pending:
        delta.sent[rtype] = delta.sent.get(rtype, 0) + len(pending)
    batch.clear()


def _copy_embeddings(reader: BundleReader, ledger: Ledger, w: BundleWriter) -> None:
    matrix = reader.embeddings()
    if matrix is None:
        return
    with matrix:
        for row in reader.records("embedding"):
            if ledger.is_pending(row["chunk_id"]):
                w.write_embedding(row["chunk_id"], matrix.row_bytes(row["row"]), row["model"])
