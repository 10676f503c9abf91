"""What an index run must send: the records of a bundle that the ledger has not committed as they are.

One pass over the input does it all: each record is read (and checked, unless the bundle carries this memdock's
seal, see `bundle.seal`), hashed, looked up in the ledger, and, when the ledger lacks it, noted as pending and
written to the journal segment, gzip-compressed as it is written (see `engine/journal.py`). When every record
goes (a first index), the adapter is handed the input bundle itself (`Delta.whole`); otherwise the segment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..bundle import BundleReader, BundleWriter, source
from .ledger import _VOLATILE, Item, Ledger, record_hash

ORDER = ("thread", "entry", "entity", "edge", "chunk")
_BATCH = 2000


@dataclass
class Delta:
    path: Path
    sent: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    thread_ids: list[str] = field(default_factory=list)
    origin: str = ""
    source: Path | None = None

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


def _thread_of(record_type: str, rec: dict) -> str | None:
    if record_type == "thread":
        return rec["id"]
    return rec.get("thread_id")


def build_delta(
    reader: BundleReader, ledger: Ledger, out: Path, origin: str | None = None, *, fresh: bool = False
) -> Delta:
    """Stream READER once, writing changed records to a new bundle at OUT and noting them as pending.

    Every record is noted as coming from ORIGIN, else the bundle's source (`memdock.bundle.source`). FRESH: the
    ledger holds nothing (a first index), so every record goes and none is looked up; no record is noted as seen
    either, which only matters to pruning and to claiming records committed before, and a first index has none."""
    delta = Delta(out, origin=origin or source.of_manifest(reader.manifest, reader.path), source=reader.path.resolve())
    ledger.begin_run(delta.origin)
    threads: set[str] = set()
    with BundleWriter(
        out,
        reader.kind,
        validate=False,
        chunker=reader.manifest.get("chunker"),
        inputs=[reader.path],
        metadata={"delta_of": str(reader.path), "origin": delta.origin},
        compress=True,
    ) as w:
        for rtype in ORDER:
            batch: list[tuple[bytes, Item]] = []
            for rec, line in reader.records_with_lines(rtype):
                tid = _thread_of(rtype, rec)
                if rtype == "thread":
                    threads.add(rec["id"])
                batch.append((line, (rec["id"], _hash(rec), tid, rtype)))
                if len(batch) >= _BATCH:
                    _flush(batch, rtype, ledger, w, delta, fresh)
            _flush(batch, rtype, ledger, w, delta, fresh)
        _copy_embeddings(reader, ledger, w)
    delta.thread_ids = sorted(threads)
    return delta


def _hash(rec: dict) -> bytes:
    """`record_hash` of REC, a record decoded for this run alone: its volatile fields are dropped in place rather
    than copied out (the same bytes are hashed)."""
    for k in _VOLATILE:
        rec.pop(k, None)
    return record_hash(rec)


def _flush(batch: list, rtype: str, ledger: Ledger, w: BundleWriter, delta: Delta, fresh: bool) -> None:
    if not batch:
        return
    if fresh:
        pending = [item for _, item in batch]
        w.write_lines(rtype, [line for line, _ in batch])
    else:
        flags = ledger.changed([item for _, item in batch])
        pending, lines = [], []
        for (line, item), changed in zip(batch, flags, strict=True):
            if changed:
                lines.append(line)
                pending.append(item)
            else:
                delta.skipped += 1
        w.write_lines(rtype, lines)
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
