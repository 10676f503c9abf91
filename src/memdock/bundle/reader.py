"""BundleReader: checks the manifest and its files, then streams validated records part by part."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

import orjson

from .. import PAYLOAD_VERSION
from ..errors import InvalidInputError
from ..jsonl import DEFAULT_MAX_LINE_BYTES, LineReader, PayloadError, decode_error, too_deep
from ..validation import SchemaValidator
from ..versions import check_payload_version
from . import source
from .idset import IdSet
from .manifest import MANIFEST_NAME, MATRIX_TYPE, PART_FILE, FileEntry, record_key
from .matrix import EmbeddingMatrix
from .seal import files_match, sealed_here, take
from .spans import Stored

SEALED = ".gz"
"""A sealed bundle (a journal segment, see engine/journal.py) may keep a JSONL file gzip-compressed under its name
plus this suffix. The manifest still describes the plain file: its line count and sha256 are checked on reading."""
SEALING = re.compile(r"^\..+\.gz\.tmp-[0-9a-f]+$")  # a seal's temp file (atomic.temp_name), left by a killed seal
_READ_BUFFER = 1 << 20  # lines are read one by one: an 8 KiB buffer made a read call every few lines


class IncompleteBundleError(InvalidInputError):
    """The directory has no manifest.json: its writer never finished."""


class NotABundleError(InvalidInputError):
    """The directory holds neither a manifest nor any bundle part: most likely raw sources."""


MAX_FILE_NAME = 255


def _has_parts(path: Path) -> bool:
    return any(PART_FILE.fullmatch(p.name) for p in path.iterdir())


class BundleReader:
    """Read a payload bundle.

    Opening checks what is cheap to check: the manifest (schema and version
    rules), that every listed file exists with its declared size, and that no
    unlisted file is present. Reading a file checks every record, the line
    count and the sha256; a mismatch is raised when that file's end is reached.
    `verify()` reads everything and returns every problem instead of raising.

    TRUST_SEAL: a bundle this memdock sealed (see `bundle.seal`) whose files all match their sha256 is read
    without the per-record checks its writer already made (`trusted`); any other is checked as usual.
    CHECKED: the caller knows every record was checked already (an adapter reading the bundle the core verified
    for it, see `sdk.adapter.Request.input_bundle`): it is read `trusted` too. Either way each part's line count
    and sha256 are still checked as it is read.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        validate: bool = True,
        engine: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        sealed: bool = False,
        trust_seal: bool = False,
        checked: bool = False,
    ):
        self.path = Path(path)
        self.max_line_bytes = max_line_bytes
        self.sealed = sealed
        self.manifest = self._load_manifest()
        seal = take(self.manifest)
        compat = check_payload_version(
            str(self.manifest.get("memory_payload_version", "")), PAYLOAD_VERSION, where=f"{self.path / MANIFEST_NAME}"
        )
        self.version = compat.version
        self.newer_minor = compat.newer_minor
        manifest_validator = SchemaValidator(engine, lenient=self.newer_minor)
        issues = manifest_validator.issues("manifest", self.manifest)
        if issues:
            raise PayloadError(issues[0].message, file=str(self.path / MANIFEST_NAME), path=issues[0].path)
        source.check_claim(self.manifest, str(self.path / MANIFEST_NAME))
        self.validator = SchemaValidator(engine, lenient=self.newer_minor) if validate else None
        self.files = [FileEntry.from_dict(f) for f in self.manifest["files"]]
        self._check_files_present()
        self.trusted = checked or (
            validate
            and trust_seal
            and not self.newer_minor
            and sealed_here(self.manifest, seal)
            and files_match(self.path, self.files)
        )
        if self.trusted:
            self.validator = None

    @property
    def kind(self) -> str:
        return str(self.manifest["kind"])

    def _load_manifest(self) -> dict[str, Any]:
        if not self.path.is_dir():
            raise InvalidInputError(f"{self.path}: not a bundle directory")
        mpath = self.path / MANIFEST_NAME
        if not mpath.is_file():
            if not _has_parts(self.path):
                raise NotABundleError(
                    f"{self.path} is not a memdock bundle (no {MANIFEST_NAME}, no record files): "
                    "to read source files, run `memdock import SOURCE -f FORMAT -o CORPUS` first"
                )
            raise IncompleteBundleError(
                f"{self.path}: incomplete bundle: no {MANIFEST_NAME} (its writer did not finish)"
            )
        raw = mpath.read_bytes()
        try:
            manifest = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise PayloadError(decode_error(raw, exc), file=str(mpath)) from None
        if not isinstance(manifest, dict):
            raise PayloadError("manifest must be a JSON object", file=str(mpath))
        deep = too_deep(raw, manifest, what="the manifest")
        if deep:  # before the schema check: jsonschema-rs gives up at about 256 levels with a bare ValueError
            raise PayloadError(deep, file=str(mpath))
        return manifest

    def _check_files_present(self) -> None:
        listed = set()
        for i, e in enumerate(self.files):
            listed.add(e.path)
            if len(e.path.encode()) > MAX_FILE_NAME:
                raise PayloadError(
                    f"file name is {len(e.path.encode())} bytes; a bundle's file names are at most {MAX_FILE_NAME}",
                    file=str(self.path / MANIFEST_NAME),
                    path=f"$.files[{i}].path",
                )
            p = self.path / e.path
            try:
                if self.sealed and e.format == "jsonl" and not p.exists() and p.with_name(p.name + SEALED).is_file():
                    listed.add(e.path + SEALED)  # its size and hash are checked as it is read
                    continue
                if not p.is_file():
                    raise PayloadError("file listed in the manifest is missing", file=str(p))
                size = p.stat().st_size
            except OSError as exc:
                raise PayloadError(
                    f"file listed in the manifest cannot be read: {exc.strerror or exc}", file=str(p)
                ) from None
            if size != e.bytes:
                raise PayloadError(f"size is {size} bytes, the manifest says {e.bytes}", file=str(p))
            if self.sealed:
                listed.add(e.path + SEALED)  # a seal that stopped before removing the plain file left both
        extra = sorted(p.name for p in self.path.iterdir() if p.name != MANIFEST_NAME and p.name not in listed)
        if self.sealed:
            extra = [name for name in extra if not SEALING.match(name)]
        if extra:
            raise PayloadError(f"file(s) not listed in the manifest: {', '.join(extra)}", file=str(self.path))

    def entries(self, record_type: str) -> list[FileEntry]:
        """The parts holding RECORD_TYPE, in order; each can be read on its own (in parallel)."""
        return sorted((e for e in self.files if e.record_type == record_type), key=lambda e: e.part or 0)

    def count(self, record_type: str) -> int:
        return sum(e.count for e in self.entries(record_type))

    def record_types(self) -> list[str]:
        return sorted({e.record_type for e in self.files if e.format == "jsonl"})

    def records(self, record_type: str) -> Iterator[dict[str, Any]]:
        """Every record of RECORD_TYPE across its parts; raises PayloadError at the first problem."""
        seen = IdSet()
        try:
            for entry in self.entries(record_type):
                yield from self._iter_entry(entry, seen, None)
        finally:
            seen.close()

    def records_with_lines(self, record_type: str) -> Iterator[tuple[dict[str, Any], bytes]]:
        """`records`, each with the line it was read from (to copy it on without writing it again)."""
        seen = IdSet()
        try:
            for entry in self.entries(record_type):
                yield from self._iter_entry(entry, seen, None, with_lines=True)
        finally:
            seen.close()

    def read_part(self, entry: FileEntry) -> Iterator[dict[str, Any]]:
        return self._iter_entry(entry, IdSet(), None)

    def _iter_entry(
        self, entry: FileEntry, seen: IdSet, errors: list[PayloadError] | None, *, with_lines: bool = False
    ) -> Iterator[Any]:
        path = self.path / entry.path
        name = str(path)
        rtype = entry.record_type
        compiled = self.validator.compiled(rtype) if self.validator else None
        checked = not self.trusted
        key_of = record_key(rtype)
        loads = orjson.loads
        with self._open(path) as f:
            lines = LineReader(f, name, max_line_bytes=self.max_line_bytes)
            try:
                for n, raw in lines:
                    try:
                        rec = loads(raw)
                    except orjson.JSONDecodeError as exc:
                        self._fail(PayloadError(decode_error(raw, exc), file=name, line=n), errors)
                        continue
                    if type(rec) is not dict:
                        self._fail(
                            PayloadError(
                                f"a record must be a JSON object, found {type(rec).__name__}", file=name, line=n
                            ),
                            errors,
                        )
                        continue
                    if not checked:
                        yield (rec, raw) if with_lines else rec
                        continue
                    key = key_of(rec)
                    deep = too_deep(raw, rec)
                    if deep:  # the id only when it is a plain value: a deep one could not even be printed
                        plain = key if isinstance(key, (str, int, float)) else None
                        self._fail(PayloadError(deep, file=name, line=n, record_id=plain), errors)
                        continue
                    if compiled is not None and not compiled.is_valid(rec):
                        for issue in compiled.issues(rec) or ():
                            self._fail(
                                PayloadError(issue.message, file=name, line=n, record_id=key, path=issue.path), errors
                            )
                        continue
                    if not seen.add(hash(key)):
                        self._fail(
                            PayloadError(f"duplicate {rtype} id in this bundle", file=name, line=n, record_id=key),
                            errors,
                        )
                        continue
                    yield (rec, raw) if with_lines else rec
            except PayloadError as exc:
                self._fail(exc, errors)
                return
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                damaged = PayloadError(f"compressed copy cannot be read ({exc})", file=name + SEALED)
                self._fail(damaged, errors)
                return
        if lines.lines != entry.count:
            self._fail(PayloadError(f"has {lines.lines} records, the manifest says {entry.count}", file=name), errors)
        digest = "sha256:" + lines.sha256.hexdigest()
        if digest != entry.sha256:
            self._fail(PayloadError(f"sha256 is {digest}, the manifest says {entry.sha256}", file=name), errors)

    def _stored(self, path: Path) -> Path:
        """The file that holds listed file PATH's bytes: itself, or in a sealed bundle its gzip-compressed copy when
        that is all there is."""
        if self.sealed and not path.exists():
            return path.with_name(path.name + SEALED)
        return path

    def part_file(self, entry: FileEntry) -> Path:
        """The file that holds ENTRY's bytes (see `_stored`)."""
        return self._stored(self.path / entry.path)

    def _open(self, path: Path) -> IO[bytes]:
        """A listed JSONL file's bytes; in a sealed bundle, from its gzip-compressed copy when that is all there is."""
        stored = self._stored(path)
        if stored != path:
            raw = io.BufferedReader(gzip.GzipFile(stored, "rb"), _READ_BUFFER)
            return cast(IO[bytes], Stored(raw, str(stored), self._bodies))
        return open(path, "rb", buffering=_READ_BUFFER)

    def open_part(self, entry: FileEntry) -> IO[bytes]:
        """ENTRY's plain bytes, read by `readline` (a sealed part decompressed, its spans put back)."""
        return self._open(self.path / entry.path)

    def _bodies(self) -> Iterator[str | None]:
        """Each entry line's body, in order: what a sealed chunk part's spans are cut from (see `spans`)."""
        for entry in self.entries("entry"):
            with self._open(self.path / entry.path) as f:
                while line := f.readline():
                    body = orjson.loads(line).get("body")
                    yield body if isinstance(body, str) else None

    @staticmethod
    def _fail(exc: PayloadError, errors: list[PayloadError] | None) -> None:
        if errors is None:
            raise exc
        errors.append(exc)

    def embeddings(self) -> EmbeddingMatrix | None:
        """The float32 matrix, memory-mapped; None when the bundle has no embeddings."""
        matrices = self.entries(MATRIX_TYPE)
        if not matrices:
            return None
        m = matrices[0]
        if m.dim is None:
            raise PayloadError("embedding matrix entry has no dim", file=str(self.path / MANIFEST_NAME))
        rows = self.count("embedding")
        if m.count != rows:
            raise PayloadError(
                f"matrix lists {m.count} rows but the embedding index has {rows}", file=str(self.path / m.path)
            )
        return EmbeddingMatrix(self.path / m.path, rows, m.dim)

    def verify(self, *, max_errors: int | None = None) -> list[PayloadError]:
        """Read every file; return every problem found (up to max_errors, after which reading stops)."""
        errors: list[PayloadError] = []
        for rtype in self.record_types():
            seen = IdSet()
            try:
                for entry in self.entries(rtype):
                    for _ in self._iter_entry(entry, seen, errors):
                        if max_errors is not None and len(errors) >= max_errors:
                            return errors
            finally:
                seen.close()
        for m in self.entries(MATRIX_TYPE):
            errors.extend(self._verify_matrix(m))
        return errors

    def _verify_matrix(self, m: FileEntry) -> list[PayloadError]:
        path = self.path / m.path
        out: list[PayloadError] = []
        try:
            self.embeddings().close()  # type: ignore[union-attr]
        except PayloadError as exc:
            out.append(exc)
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while block := f.read(1 << 20):
                h.update(block)
        if "sha256:" + h.hexdigest() != m.sha256:
            out.append(PayloadError("sha256 does not match the manifest", file=str(path)))
        rows_seen: set[int] = set()
        try:
            for rec in self.records("embedding"):
                if rec["row"] >= m.count or rec["row"] in rows_seen:
                    out.append(
                        PayloadError(
                            f"row {rec['row']} is outside the matrix or used twice",
                            file=str(path),
                            record_id=rec["chunk_id"],
                        )
                    )
                rows_seen.add(rec["row"])
                if m.dim is not None and rec["dim"] != m.dim:
                    out.append(
                        PayloadError(
                            f"dim {rec['dim']} differs from the matrix dim {m.dim}",
                            file=str(path),
                            record_id=rec["chunk_id"],
                        )
                    )
        except PayloadError:
            pass  # already reported by the pass over the embedding index
        return out
