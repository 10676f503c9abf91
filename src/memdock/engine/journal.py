"""The store's journal: every bundle of records sent to the backend, kept as it was sent, so the memory
outlives its backend (`memdock export`, `memdock migrate`, `Memory.list`).

Each index run (a `remember` is one) writes its delta, the records the ledger lacked, straight into
`<store>/journal/<sequence>` instead of a throwaway work dir: a journal segment is a payload bundle like any
other. Nothing else is bookkept. The ledger already says which version of each record the backend holds (its
content hash), so a record counts as live only where its hash is the one the ledger committed: a segment of a
killed run, an old version of a re-imported record, a record a prune deleted all drop out by themselves, and a
resumed run's records are found in the segment of the run that first sent them. `forget` rewrites the
segments that hold a forgotten record without it, so the text is gone from disk too.

A segment's JSONL parts are gzip-compressed as the run writes them (`BundleWriter(compress=True)`, see
`bundle.reader.SEALED`), with no second pass, and keep each text once: a chunk whose text is a span of its
entry's body is stored as that span (journal format 2, `bundle.spans`; reads give the lines back as they were sent).
Segments written before that were compressed after their run (`seal`); journal reads accept compressed and plain
files alike, so such a segment a killed run left plain, or a killed seal left half done, reads the same.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import fsync_dir, temp_name
from ..bundle import BundleReader, BundleWriter
from ..bundle.manifest import MANIFEST_NAME
from ..bundle.reader import SEALED, SEALING
from ..sdk.implied import KEY, expand, explicit
from .ledger import Ledger, record_hash, short

ORDER = ("thread", "entry", "edge", "entity", "chunk")  # edges before entities: a thread's export takes the
# entities its edges touch
_SEGMENT = re.compile(r"^\d{8}$")
_BATCH = 2000
SEAL_ABOVE = 64 * 1024
"""Files smaller than this stay plain: a `remember`'s segment is a few small files, not worth an fsync each."""
SEAL_LEVEL = 1  # gzip level: about 2.3-2.6x on text at 60-80 MB/s; level 6 saves 10-15 % more at a quarter of the speed


@dataclass
class Exported:
    """What an export wrote: records by type, and the live records no segment held (indexed before the store
    kept a journal, so they cannot be exported; re-index their sources to journal them)."""

    path: Path
    counts: dict[str, int] = field(default_factory=dict)
    missing: int = 0
    derived: int = 0
    """Edges written as records that the store holds implied by their entries (counted in COUNTS too)."""


class Journal:
    def __init__(self, root: Path):
        self.root = root

    def segments(self) -> list[Path]:
        """Complete segments, oldest first (a writer swaps a segment in only once it is whole)."""
        if not self.root.is_dir():
            return []
        self._finish_rewrites()
        return sorted(p for p in self.root.iterdir() if _SEGMENT.match(p.name) and (p / MANIFEST_NAME).is_file())

    def _finish_rewrites(self) -> None:
        """A forget killed between its two renames left `N.old` (and maybe a whole `N.rewrite`) without `N`:
        finish it, or put the old segment back."""
        for old in self.root.glob("*.old"):
            segment = old.with_suffix("")
            if segment.exists():
                shutil.rmtree(old, ignore_errors=True)
                continue
            fresh = old.with_suffix(".rewrite")
            os.rename(fresh if (fresh / MANIFEST_NAME).is_file() else old, segment)

    def next_segment(self) -> Path:
        """Where the next run's delta goes. Called under the store's write lock, so numbers do not collide."""
        self.root.mkdir(parents=True, exist_ok=True)
        taken = [int(p.name) for p in self.root.iterdir() if _SEGMENT.match(p.name)]
        return self.root / f"{max(taken, default=0) + 1:08d}"

    def discard(self, segment: Path) -> None:
        shutil.rmtree(segment, ignore_errors=True)

    def seal(self, segment: Path) -> int:
        """Compress SEGMENT's JSONL files of SEAL_ABOVE bytes or more, each durably replacing its plain file;
        returns the bytes saved. A full disk stops it quietly: the segment stays readable as it is."""
        saved = 0
        for leftover in segment.iterdir():  # a killed seal's temp file
            if SEALING.match(leftover.name):
                leftover.unlink()
        for entry in read(segment).files:
            plain = segment / entry.path
            if entry.format != "jsonl" or entry.bytes < SEAL_ABOVE or not plain.exists():
                continue
            sealed = plain.with_name(plain.name + SEALED)
            tmp = segment / temp_name(sealed.name)
            try:
                with open(plain, "rb") as src, open(tmp, "xb") as raw:
                    with gzip.GzipFile(filename="", mode="wb", compresslevel=SEAL_LEVEL, fileobj=raw, mtime=0) as gz:
                        shutil.copyfileobj(src, gz, 1 << 20)
                    raw.flush()
                    os.fsync(raw.fileno())
                os.rename(tmp, sealed)
                fsync_dir(segment)
            except OSError:
                tmp.unlink(missing_ok=True)
                return saved
            saved += entry.bytes - sealed.stat().st_size
            plain.unlink()
        return saved

    def live(
        self,
        ledger: Ledger,
        threads: Sequence[str] | None = None,
        *,
        implied: bool = False,
        derived: list[int] | None = None,
    ) -> Iterator[tuple[str, dict[str, Any], Path]]:
        """Each live record once, (type, record, its segment), newest version first; only THREADS' records (and
        the entities their edges touch) when given. An entry with `implied_edges` comes without the field,
        followed by the edge records it stands for (`sdk/implied.py`), so readers get the records of an explicit
        store; IMPLIED: as it was sent (a store restored into its own adapter). DERIVED[0] counts those edges."""
        derived = [0] if derived is None else derived
        emitted: set[str] = set()
        wanted = set(threads) if threads else None
        touched: set[str] = set()
        for segment in reversed(self.segments()):
            reader = read(segment)
            for rtype in ORDER:
                if rtype not in reader.record_types():
                    continue
                batch: list[dict[str, Any]] = []
                for rec in reader.records(rtype):
                    batch.append(rec)
                    if len(batch) >= _BATCH:
                        found = self._live_batch(ledger, rtype, batch, emitted, wanted, touched, segment)
                        yield from found if implied else _expanded(found, emitted, touched, derived)
                        batch = []
                found = self._live_batch(ledger, rtype, batch, emitted, wanted, touched, segment)
                yield from found if implied else _expanded(found, emitted, touched, derived)

    @staticmethod
    def _live_batch(
        ledger: Ledger,
        rtype: str,
        batch: list[dict[str, Any]],
        emitted: set[str],
        wanted: set[str] | None,
        touched: set[str],
        segment: Path,
    ) -> Iterator[tuple[str, dict[str, Any], Path]]:
        if not batch:
            return
        committed = ledger.hashes([r["id"] for r in batch])
        for rec in batch:
            rid = rec["id"]
            if rid in emitted or committed.get(rid) != short(record_hash(rec)):
                continue
            if wanted is not None and not _in_threads(rtype, rec, wanted, touched):
                continue
            if rtype == "edge":
                touched.update((rec.get("source_id", ""), rec.get("target_id", "")))
            emitted.add(rid)
            yield rtype, rec, segment

    def export(
        self,
        ledger: Ledger,
        out: Path,
        threads: Sequence[str] | None = None,
        *,
        force: bool = False,
        implied: bool = False,
    ) -> Exported:
        """Write the live records (of THREADS) as one bundle at OUT, embeddings included. A thread left with no
        entries (all forgotten) is not written: its records would bring back a thread the user emptied. Implied
        edges are written as records (see `live`), unless IMPLIED."""
        filled = {rec.get("thread_id") for rtype, rec, _ in self.live(ledger, threads) if rtype == "entry"}
        emptied = 0
        segments = self.segments()
        chunked = [s for s in segments if read(s).kind == "chunks"]
        chunker = read(chunked[-1]).manifest.get("chunker") if chunked else None
        kind = "chunks" if chunked else "corpus"
        done = Exported(out)
        vectors: dict[Path, set[str]] = {}
        with BundleWriter(
            out,
            kind,
            chunker=chunker,
            metadata={"format": "memdock-export", "source_id": f"export:{os.path.realpath(self.root.parent)}"},
            overwrite=force,
        ) as w:
            derived = [0]
            for rtype, rec, segment in self.live(ledger, threads, implied=implied, derived=derived):
                if rtype == "thread" and rec["id"] not in filled:
                    emptied += 1
                    continue
                w.write(rtype, rec)
                done.counts[rtype] = done.counts.get(rtype, 0) + 1
                if rtype == "chunk":
                    vectors.setdefault(segment, set()).add(rec["id"])
            for segment, chunk_ids in vectors.items():
                _copy_vectors(read(segment), chunk_ids, w)
        done.derived = derived[0]
        in_ledger = sum(done.counts.values()) - derived[0]
        done.missing = max(0, ledger.count() - in_ledger - emptied) if not threads else 0
        return done

    def forget(self, ids: Iterable[str]) -> int:
        """Rewrite every segment holding one of IDS without it; returns how many segments were rewritten."""
        doomed = set(ids)
        rewritten = 0
        for segment in self.segments():
            reader = read(segment)
            if not any(
                rec["id"] in doomed for t in reader.record_types() if t != "embedding" for rec in reader.records(t)
            ):
                continue
            fresh = segment.with_name(segment.name + ".rewrite")
            with BundleWriter(
                fresh, reader.kind, chunker=reader.manifest.get("chunker"), metadata=reader.manifest.get("metadata"),
                validate=False, overwrite=True, compress=True,
            ) as w:  # fmt: skip
                for rtype in _types(reader):
                    for rec in reader.records(rtype):
                        if rec["id"] not in doomed:
                            w.write(rtype, rec)
                kept = (
                    {r["chunk_id"] for r in reader.records("embedding")} - doomed
                    if "embedding" in reader.record_types()
                    else set()
                )
                _copy_vectors(reader, kept, w)
            old = segment.with_name(segment.name + ".old")
            os.rename(segment, old)
            os.rename(fresh, segment)
            shutil.rmtree(old, ignore_errors=True)
            self.seal(segment)
            rewritten += 1
        return rewritten


def _expanded(
    found: Iterator[tuple[str, dict[str, Any], Path]], emitted: set[str], touched: set[str], derived: list[int]
) -> Iterator[tuple[str, dict[str, Any], Path]]:
    """FOUND, each entry with `implied_edges` made the entry and the edge records it stands for."""
    for rtype, rec, segment in found:
        if rtype != "entry" or KEY not in rec:
            yield rtype, rec, segment
            continue
        yield rtype, explicit(rec), segment
        for edge in expand(rec):
            if edge["id"] in emitted:
                continue
            emitted.add(edge["id"])
            touched.update((edge["source_id"], edge["target_id"]))
            derived[0] += 1
            yield "edge", edge, segment


def _types(reader: BundleReader) -> list[str]:
    """READER's record types but embeddings, entries before chunks: a rewrite stores a chunk as a span of its
    entry only when the entry was written first (see `bundle.spans`)."""
    found = [t for t in reader.record_types() if t != "embedding"]
    return [t for t in ORDER if t in found] + [t for t in found if t not in ORDER]


def inflate(segment: Path, out: Path) -> Path:
    """SEGMENT as a plain bundle at OUT (its compressed parts read back as the plain files the manifest
    describes, the manifest as it is): for a reader that takes only plain JSONL parts."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    reader = read(segment)
    parts = {e.path for e in reader.files if e.format == "jsonl"}
    for entry in reader.files:
        if entry.path in parts:
            with reader.open_part(entry) as f, open(out / entry.path, "xb") as dst:
                while line := f.readline():
                    dst.write(line)
    for src in segment.iterdir():
        plain = src.name.removesuffix(SEALED)
        if plain not in parts and not SEALING.match(src.name):
            shutil.copy2(src, out / src.name)
    return out


def read(segment: Path) -> BundleReader:
    """A segment as the journal reads it: records as they were sent (validated then), sealed files included."""
    return BundleReader(segment, validate=False, sealed=True)


def _in_threads(rtype: str, rec: dict[str, Any], wanted: set[str], touched: set[str]) -> bool:
    if rtype == "thread":
        return rec["id"] in wanted
    if rtype == "entity":
        return rec["id"] in touched
    return rec.get("thread_id") in wanted


def _copy_vectors(reader: BundleReader, chunk_ids: set[str], w: BundleWriter) -> None:
    matrix = reader.embeddings()
    if matrix is None or not chunk_ids:
        return
    with matrix:
        for row in reader.records("embedding"):
            if row["chunk_id"] in chunk_ids:
                w.write_embedding(row["chunk_id"], matrix.row_bytes(row["row"]), row["model"])
