"""BundleWriter: streams validated records into numbered JSONL parts, then writes the manifest last."""

from __future__ import annotations

import hashlib
import math
import os
import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from itertools import accumulate
from pathlib import Path
from typing import IO, Any

import orjson

from .. import PAYLOAD_VERSION, __version__, times
from ..atomic import write_atomic
from ..diskfull import disk_full_as_error, reraise_disk_full
from ..errors import InvalidInputError
from ..jsonl import PayloadError, depth_problem
from ..validation import SchemaValidator
from .deflate import Compressor, compressor
from .lines import RecordLines
from .manifest import BUNDLE_KINDS, MANIFEST_NAME, MATRIX_FILE, MATRIX_TYPE, FileEntry, part_name
from .output import OutputDir
from .reader import SEALED
from .seal import seal
from .spans import HEADER, Bodies

DEFAULT_PART_BYTES = 256 * 1024 * 1024
COMPRESS_LEVEL = 1  # gzip level of a compressed part: ~2.5x on text at 60-80 MB/s; level 6 saves 10-15 % more at a
# quarter of the speed
COMPRESS_LEVELS: dict[str, tuple[int, int | None]] = {"edge": (6, None), "chunk": (6, 3), "entry": (4, 3)}
"""A part's deflate levels by its record type: zlib's, and ISA-L's where ISA-L is installed (None: the one
`deflate` picks for zlib's level). Any other part is COMPRESS_LEVEL's.

- Edges, and chunks stored as spans: short JSON lines that repeat their keys and ids, where zlib's level 6 takes a
  fifth off for little CPU, and ISA-L's 3 is as small as zlib's 6 (see `deflate`).
- Entries: mostly text, where zlib's level 4 is the knee (its first level with lazy matching): on bench/peers.py's
  20 MB of markdown 14 % fewer bytes than level 1 for 45 % more CPU, where level 6 took 4 % fewer again for 3.4x
  level 1's CPU (`python bench/journal_codec.py --markdown-mb 20 --codecs z1,z4,z6`). ISA-L's 3 (its highest)
  leaves them 6 % larger than zlib's 4 and 5 % smaller than ISA-L's 1, for a fifth of zlib 4's CPU (0.08 s, zlib 4
  0.37 s, ISA-L 1 0.04 s: `python bench/journal_codec.py --markdown-mb 20 --codecs z1,z4,isal1,isal3`); zlib 4 in
  place of ISA-L's 1 cost the parent 0.15 CPU s more on bench/peers.py's notes (`python bench/add_baseline.py`)."""
SPANNED_SHARE = 0.5
"""A chunk part is short lines (COMPRESS_LEVELS' chunk levels) only when at least this share of its first block's
lines are stored as spans of their entries (`spans`), without their texts. A part of chunks that keep their text (a
chunks bundle without entries, `memdock index`) is text, deflated at COMPRESS_LEVEL: level 6 took 3.5 s of CPU more
than level 1 on bench/peers.py's 100k synthetic chunks (97 MB), for 14 % fewer bytes."""
_BUFFER_BYTES = 1 << 20


class _Part:
    """One open part file: each line is hashed and handed to a 1 MiB write buffer.

    Lines are not kept: orjson returns bytes objects whose allocation can be several times their length (a 2 KB
    line held 16 KB), so a list of them made the writer's memory grow with record size and count.

    A compressed part (COMPRESS) is written gzip-compressed under the plain name plus `.gz` (`reader.SEALED`), as it
    is written; its manifest entry still describes the plain bytes (count, size, sha256), which a sealed reader
    checks as it reads. It is stored in the journal's format (`spans`): a header line, and chunk lines whose text
    is a span of an entry's body (BODIES: the entries written so far) stored as that span.
    """

    def __init__(
        self,
        path: Path,
        record_type: str,
        part: int,
        fmt: str = "jsonl",
        *,
        compress: bool = False,
        bodies: Bodies | None = None,
    ):
        self.path, self.record_type, self.part, self.format = path, record_type, part, fmt
        self.disk_path = path.with_name(path.name + SEALED) if compress else path
        self.file: IO[bytes] = open(self.disk_path, "xb", buffering=_BUFFER_BYTES)  # noqa: SIM115  (open while written)
        self.sha = hashlib.sha256()
        self.count = 0
        self.bytes = 0
        self.compress = compress
        self.zip: Compressor | None = None  # made at the first block, whose lines set the level (`_level`)
        self.pending: list[bytes] = [HEADER] if compress else []
        self.pending_bytes = 0
        self.sample = [0, 0]  # lines, and lines stored as spans, before the first block is deflated
        self.bodies = bodies if compress and record_type in ("entry", "chunk") else None
        # zlib lets go of the GIL while it compresses: one thread does it (in order) beside the caller's work
        self.deflater = ThreadPoolExecutor(1, thread_name_prefix="deflate") if compress else None
        self.deflating: list[Future[None]] = []

    def add(self, data: bytes) -> None:
        self.sha.update(data)
        self.count += 1
        self.bytes += len(data)
        if not self.compress:
            self.file.write(data)
            return
        stored = self._stored([data])[0]
        self.pending.append(stored)
        self.pending_bytes += len(stored)
        self.sample[0] += 1
        self.sample[1] += stored[:1] == b"@"
        if self.pending_bytes >= _BUFFER_BYTES:
            self._deflate()

    def add_block(
        self,
        lines: Sequence[bytes],
        size: int,
        records: Sequence[dict[str, Any]] | None = None,
        made: bool = False,
    ) -> None:
        """Add LINES (SIZE bytes in all) at once: one hash update and one write or compression hand-off. RECORDS,
        when given, are the lines' records decoded (or the dicts they were made from), read instead of the lines;
        MADE: chunks the core's chunker made (`spans.Bodies.encode`)."""
        data = b"".join(lines)
        self.sha.update(data)
        self.count += len(lines)
        self.bytes += size
        if not self.compress:
            self.file.write(data)
            return
        stored = self._stored(lines, records, made)
        block = data if stored is lines else b"".join(stored)
        self.pending.append(block)
        self.pending_bytes += size
        if self.zip is None:  # the sample picks the first block's level (`_level`): after it, no line is looked at
            self.sample[0] += len(lines)
            if stored is not lines:
                self.sample[1] += sum(line[:1] == b"@" for line in stored)
        if self.pending_bytes >= _BUFFER_BYTES:
            self._deflate()

    def _stored(
        self, lines: Sequence[bytes], records: Sequence[dict[str, Any]] | None = None, made: bool = False
    ) -> Sequence[bytes]:
        """LINES as the journal stores them (see `spans`): an entry's body is noted, a chunk's text may be a span."""
        if self.bodies is None:
            return lines
        if self.record_type == "entry":
            self.bodies.note(lines, records)
            return lines
        return self.bodies.encode(lines, records, made=made)

    def _deflate(self) -> None:
        """Hand what waits to the deflating thread in one block (a zlib call per line cost more than the work);
        a write that failed there (a full disk) is raised here, at the next block or at close."""
        block = b"".join(self.pending)
        self.pending.clear()
        self.pending_bytes = 0
        if self.zip is None:
            self.zip = compressor(*self._level())
        self.deflating = [f for f in self.deflating if not f.done() or f.result()]
        self.deflating.append(self.deflater.submit(self._compress, block))  # type: ignore[union-attr]

    def _level(self) -> tuple[int, int | None]:
        """How hard to deflate this part (zlib's level, and ISA-L's where it is not the one `deflate` picks):
        COMPRESS_LEVELS' for its record type, but a chunk part whose first block's lines kept their texts (less than
        SPANNED_SHARE of them spans) is text, at COMPRESS_LEVEL."""
        if self.record_type == "chunk":
            lines, spanned = self.sample
            if spanned < SPANNED_SHARE * lines:
                return COMPRESS_LEVEL, None
        return COMPRESS_LEVELS.get(self.record_type, (COMPRESS_LEVEL, None))

    def _compress(self, block: bytes) -> None:
        self.file.write(self.zip.compress(block))  # type: ignore[union-attr]

    def _drain(self) -> None:
        if self.deflater is None:
            return
        try:
            for f in self.deflating:
                f.result()
        finally:
            self.deflater.shutdown(wait=True)
            self.deflating.clear()

    def close(self) -> FileEntry:
        if self.compress:
            self._deflate()
            self._drain()
            self.file.write(self.zip.flush())  # type: ignore[union-attr]
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        return FileEntry(
            path=self.path.name,
            format=self.format,
            record_type=self.record_type,
            count=self.count,
            bytes=self.bytes,
            sha256="sha256:" + self.sha.hexdigest(),
            part=self.part,
        )


class BundleWriter:
    """Write a payload bundle.

    Records are validated as they arrive (the error names the record type,
    its ordinal and id, and the JSON path). The manifest is written last and
    atomically; until then the directory is an incomplete bundle. Leaving the
    `with` block by an exception removes what was written.

    INPUTS are the paths the caller reads to make this bundle: an output that is, contains or lies inside one
    of them is refused. An existing output is replaced only if it is a memdock bundle (OVERWRITE), and only
    once the new bundle is complete (see `output.OutputDir`).

    A writer that validates seals what it wrote (see `bundle.seal`), so indexing it need not check it again.
    COMPRESS writes every JSONL part gzip-compressed as it goes (a journal segment; read it with `sealed=True`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        kind: str,
        *,
        producer: tuple[str, str] = ("memdock", __version__),
        chunker: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        part_max_bytes: int = DEFAULT_PART_BYTES,
        validate: bool = True,
        validator: SchemaValidator | None = None,
        overwrite: bool = False,
        inputs: Sequence[str | os.PathLike[str]] = (),
        compress: bool = False,
    ):
        if kind not in BUNDLE_KINDS:
            raise InvalidInputError(f"unknown bundle kind {kind!r}; expected one of {', '.join(BUNDLE_KINDS)}")
        deep = depth_problem({"chunker": chunker, "metadata": metadata}, what="the manifest (its chunker or metadata)")
        if deep:  # no reader would open the bundle
            raise InvalidInputError(deep)
        self.path = Path(path)
        self.kind, self.producer, self.chunker, self.metadata = kind, producer, chunker, metadata
        self.part_max_bytes = part_max_bytes
        self.compress = compress
        self.validator = (validator or SchemaValidator()) if validate else None
        self._out = OutputDir(self.path, inputs, overwrite=overwrite)
        self._open: dict[str, _Part] = {}
        self._done: list[FileEntry] = []
        self._parts: dict[str, int] = {}
        self._lines = RecordLines(self.validator)
        self._written: list[Path] = []
        self._matrix: _Part | None = None
        self._dim: int | None = None
        self._bodies = Bodies() if compress and kind == "chunks" else None  # a corpus has no chunks to cut
        self.closed = False

    def _part_for(self, record_type: str) -> _Part:
        part = self._open.get(record_type)
        if part is not None and part.bytes < self.part_max_bytes:
            return part
        if part is not None:
            self._done.append(part.close())
        n = self._parts[record_type] = self._parts.get(record_type, 0) + 1
        path = self._out.dir / part_name(record_type, n)
        part = self._open[record_type] = _Part(path, record_type, n, compress=self.compress, bodies=self._bodies)
        self._written.append(part.disk_path)
        return part

    def write(self, record_type: str, record: dict[str, Any]) -> None:
        if record_type not in self._lines.streams:
            self._stream(record_type)
        line = self._lines.line(record_type, record)
        try:
            self._part_for(record_type).add(line)
        except OSError as exc:
            reraise_disk_full(exc, self.path, "writing a bundle")
            raise

    def write_line(self, record_type: str, line: bytes) -> None:
        """Append LINE, one record's JSON line as a reader that checked it read it, unchanged: no check, no
        re-encoding (a journal segment copies its input's lines so)."""
        if record_type not in self._lines.streams:
            self._stream(record_type)
        try:
            self._part_for(record_type).add(line)
        except OSError as exc:
            reraise_disk_full(exc, self.path, "writing a bundle")
            raise

    def write_lines(
        self,
        record_type: str,
        lines: Sequence[bytes],
        records: Sequence[dict[str, Any]] | None = None,
        *,
        made: bool = False,
    ) -> None:
        """`write_line` for each of LINES, with one hash update and one write per part they go to (a part still
        ends once it holds part_max_bytes, as line by line). RECORDS, when given, are the lines' records (one
        each, in order): a compressed chunks bundle reads bodies and texts from them, not by decoding the lines.
        MADE: RECORDS are chunks the core's chunker made, each line orjson's dumps of its record (`spans`)."""
        if not lines:
            return
        if record_type not in self._lines.streams:
            self._stream(record_type)
        ends = list(accumulate(map(len, lines)))
        start = 0
        try:
            while start < len(lines):
                part = self._part_for(record_type)
                done = ends[start - 1] if start else 0
                # a line goes into this part while the part holds less than the limit before it
                stop = max(start + 1, bisect_left(ends, done + self.part_max_bytes - part.bytes, start) + 1)
                stop = min(stop, len(lines))
                part.add_block(lines[start:stop], ends[stop - 1] - done, records and records[start:stop], made)
                start = stop
        except OSError as exc:
            reraise_disk_full(exc, self.path, "writing a bundle")
            raise

    def _stream(self, record_type: str) -> None:
        """Start RECORD_TYPE's records (closed writers and unknown types are refused here, so `write` checks
        nothing more for the records after)."""
        if self.closed:
            raise InvalidInputError("bundle is already closed")
        self._lines.stream(record_type)

    def write_embedding(self, chunk_id: str, vector: Sequence[float] | array[float] | bytes, model: str) -> int:
        """Append one row to the float32 matrix and its index; returns the row number."""
        if isinstance(vector, (bytes, bytearray, memoryview)):
            data = bytes(vector)
            if len(data) % 4:
                raise InvalidInputError(
                    f"embedding for {chunk_id}: {len(data)} bytes is not a whole number of float32 values"
                )
            arr = array("f")
            arr.frombytes(data)
            if sys.byteorder != "little":
                arr.byteswap()
        else:
            arr = vector if isinstance(vector, array) and vector.typecode == "f" else array("f", vector)
        dim = len(arr)
        if self._dim is None:
            self._dim = dim
        elif dim != self._dim:
            raise PayloadError(
                f"vector has dim {dim}, the bundle's matrix has dim {self._dim}", file="embedding", record_id=chunk_id
            )
        if not math.isfinite(sum(arr)) and any(not math.isfinite(x) for x in arr):
            raise PayloadError("vector contains NaN or Infinity", file="embedding", record_id=chunk_id)
        with disk_full_as_error(self.path, "writing a bundle"):
            if self._matrix is None:
                path = self._out.dir / MATRIX_FILE
                self._matrix = _Part(path, MATRIX_TYPE, 1, fmt="f32le")
                self._written.append(path)
            row = self._matrix.count
            self.write("embedding", {"chunk_id": chunk_id, "row": row, "model": model, "dim": dim})
            if sys.byteorder != "little":
                arr = array("f", arr)
                arr.byteswap()
            self._matrix.add(arr.tobytes())
        return row

    def close(self) -> dict[str, Any]:
        """Finish every part, then write manifest.json atomically; returns the manifest."""
        if self.closed:
            raise InvalidInputError("bundle is already closed")
        with disk_full_as_error(self.path, "writing a bundle"):
            return self._finish()

    def _finish(self) -> dict[str, Any]:
        for part in self._open.values():
            self._done.append(part.close())
        self._open.clear()
        files = [e.to_dict() for e in self._done]
        if self._matrix is not None:
            m = self._matrix.close()
            files.append({**m.to_dict(), "dim": self._dim})
        manifest: dict[str, Any] = {
            "memory_payload_version": PAYLOAD_VERSION,
            "kind": self.kind,
            "producer": {"name": self.producer[0], "version": self.producer[1]},
            "created_at": times.format(datetime.now(UTC), timespec="seconds"),
            "files": files,
        }
        if self.chunker is not None:
            manifest["chunker"] = self.chunker
        if self.metadata is not None:
            manifest["metadata"] = self.metadata
        stored = seal(manifest) if self.validator is not None else manifest
        try:
            write_atomic(self._out.dir / MANIFEST_NAME, orjson.dumps(stored, option=orjson.OPT_INDENT_2))
            self._out.commit()
        except BaseException:
            self.abort()
            raise
        self.closed = True
        self._release_ids()
        return manifest

    def _release_ids(self) -> None:
        self._bodies = None
        self._lines.close()

    def abort(self) -> None:
        """Remove everything this writer wrote; no manifest ever appears."""
        for part in list(self._open.values()) + ([self._matrix] if self._matrix else []):
            try:
                if part.deflater is not None:
                    part.deflater.shutdown(wait=True)
                part.file.close()
            except OSError:
                pass
        self._out.abort(self._written)
        self.closed = True
        self._release_ids()

    def __enter__(self) -> BundleWriter:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self.abort()
        elif not self.closed:
            try:
                self.close()
            except BaseException:
                self.abort()
                raise
