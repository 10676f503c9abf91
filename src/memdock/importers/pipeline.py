"""`memdock import`: read sources with one importer and stream a corpus bundle."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bundle import BundleWriter, source
from ..errors import InvalidInputError
from ..sdk.implied import KEY, implied_count
from . import get_importer
from .base import MAX_ENTRY_BYTES, ImportContext, Importer, ParsedThread, structure
from .textio import read_regular

SHOWN_PROBLEMS = 5


@dataclass
class ImportSummary:
    counts: dict[str, int] = field(default_factory=dict)
    files: int = 0
    threads: dict[Path, list[str]] = field(default_factory=dict)  # each file read (resolved): its threads' ids
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def partial(self) -> bool:
        return bool(self.failed)


def import_corpus(
    sources: Sequence[str | Path],
    fmt: str,
    out: str | Path,
    *,
    mapping: dict[str, str] | None = None,
    overwrite: bool = False,
    on_file: Callable[[int, int, Path], None] | None = None,
    max_entry_bytes: int = MAX_ENTRY_BYTES,
    on_bytes: Callable[[int, int], None] | None = None,
    skip: Collection[Path] = (),
) -> ImportSummary:
    """Import SOURCES into a corpus bundle at OUT. Raises InvalidInputError, writing nothing, when no source
    exists or none yields an entry (see `import_into`)."""
    _check_cap(max_entry_bytes)
    roots = [Path(s) for s in sources]
    metadata = {"format": fmt, "sources": [str(r) for r in roots], source.KEY: source.for_import(fmt, roots)}
    summary = ImportSummary()
    records = import_records(
        summary,
        roots,
        fmt,
        mapping=mapping,
        on_file=on_file,
        max_entry_bytes=max_entry_bytes,
        on_bytes=on_bytes,
        skip=skip,
    )
    with BundleWriter(out, "corpus", overwrite=overwrite, inputs=roots, metadata=metadata) as w:
        for rtype, rec in records:
            w.write(rtype, rec)
    return summary


def import_records(
    summary: ImportSummary,
    sources: Sequence[str | Path],
    fmt: str,
    *,
    mapping: dict[str, str] | None = None,
    on_file: Callable[[int, int, Path], None] | None = None,
    max_entry_bytes: int = MAX_ENTRY_BYTES,
    on_bytes: Callable[[int, int], None] | None = None,
    skip: Collection[Path] = (),
    implied: bool = False,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records (type, record) of SOURCES read as FMT, for a bundle writer or `memdock add`'s one pass;
    SUMMARY is filled in as they go, and complete once they end. Raises InvalidInputError when no source exists
    or none yields an entry; an entry over MAX_ENTRY_BYTES of UTF-8 is skipped with a warning.

    ON_BYTES(done, total) reports progress in source bytes, moving within a file too: an entry's source line,
    against the file's line count, says how far into the file the importer is. Files in SKIP (resolved paths:
    unchanged since the last run, see `engine/sources.py`) are left unread. IMPLIED: entries carry their
    structural edges (`structure`); SUMMARY counts those edges all the same."""
    started = time.monotonic()
    _check_cap(max_entry_bytes)
    importer = get_importer(fmt, mapping=mapping) if fmt == "jsonl" and mapping else get_importer(fmt)
    roots = [Path(s) for s in sources]
    ctx = ImportContext(root=roots[0] if len(roots) == 1 and roots[0].is_dir() else None)
    files = _files_to_read(importer, roots, fmt, ctx, skip)
    progress = _Progress([_size(path) for _, path in files], on_bytes) if on_bytes else None
    run = _Run(importer, fmt, ctx, summary, max_entry_bytes, implied)
    for i, (root, path) in enumerate(files):
        if on_file:
            on_file(i, len(files), path)
        yield from run.read_file(root, path, progress.at(i, path) if progress else None)
        if progress:
            progress.done(i)
    if not summary.counts.get("entry"):
        raise _nothing_imported(len(files), fmt, ctx)
    summary.failed = [str(e) for e in ctx.errors]
    summary.files -= len({e.file for e in ctx.errors if any(str(p) == e.file for _, p in files)})
    summary.warnings = ctx.warning_lines()
    summary.seconds = time.monotonic() - started


def _check_cap(max_entry_bytes: int) -> None:
    if max_entry_bytes < 1:
        raise InvalidInputError(f"max_entry_bytes must be at least 1, got {max_entry_bytes}")


def _files_to_read(
    importer: Importer, roots: list[Path], fmt: str, ctx: ImportContext, skip: Collection[Path]
) -> list[tuple[Path, Path]]:
    """(root, file) for each file the importer reads under ROOTS, less those in SKIP; none at all is an error."""
    files: list[tuple[Path, Path]] = []
    for root in roots:
        if not root.exists():
            ctx.error(root, "no such file or directory")
            continue
        found = importer.sources(root)
        if not found:
            ctx.error(root, f"no file the {fmt} importer reads is in this folder")
        files += [(root, f) for f in found if not skip or Path(os.path.realpath(f)) not in skip]
    if not files:
        raise InvalidInputError("nothing to import: " + "; ".join(map(str, ctx.errors)))
    return files


def _nothing_imported(files: int, fmt: str, ctx: ImportContext) -> InvalidInputError:
    problems = ctx.warning_lines() + [str(e) for e in ctx.errors]
    return InvalidInputError(
        f"no entries imported from {files} file(s) read as {fmt}; no bundle written"
        + "".join(f"\n  {p}" for p in problems[:SHOWN_PROBLEMS])
        + (f"\n  ... {len(problems) - SHOWN_PROBLEMS} more" if len(problems) > SHOWN_PROBLEMS else "")
    )


class _Progress:
    """Progress in source bytes: SIZES of the files in order, reported to ON_BYTES(done, total)."""

    def __init__(self, sizes: list[int], on_bytes: Callable[[int, int], None]):
        self.sizes, self.on_bytes, self.total = sizes, on_bytes, sum(sizes)
        self.before = [0]
        for size in sizes:
            self.before.append(self.before[-1] + size)

    def at(self, i: int, path: Path) -> Callable[[ParsedThread], None]:
        """A callback for file I (PATH) that moves the progress to the furthest source line of each thread read."""
        lines = _lines(path)

        def seen(parsed: ParsedThread) -> None:
            line = max((_line(parsed, e) or 0 for e in parsed.entries), default=0)
            within = int(self.sizes[i] * min(1.0, line / lines)) if lines else 0
            self.on_bytes(self.before[i] + within, self.total)

        return seen

    def done(self, i: int) -> None:
        self.on_bytes(self.before[i + 1], self.total)


class _Run:
    """One import run's context and counts, fed one file at a time."""

    def __init__(
        self, importer: Importer, fmt: str, ctx: ImportContext, summary: ImportSummary, cap: int, implied: bool
    ):
        self.importer, self.fmt, self.ctx, self.summary, self.cap = importer, fmt, ctx, summary, cap
        self.implied = implied
        self.entity_ids: set[str] = set()
        self.tops: dict[Path, Path] = {}

    def read_file(
        self, root: Path, path: Path, seen: Callable[[ParsedThread], None] | None
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        ctx, summary = self.ctx, self.summary
        entries_before = summary.counts.get("entry", 0)
        shown = os.fsencode(path).decode("utf-8", "replace")
        if shown != str(path):
            ctx.error(shown, "the file name is not valid UTF-8; not read (rename the file)")
            return
        real = Path(os.path.realpath(path))
        escaped = self._outside(root, real)
        if escaped is not None:
            ctx.error(path, f"a symlink to {escaped}, outside the source folder {root}; not read")
            summary.files += 1  # counted as read, then taken off with the other failed files
            return
        threads = summary.threads.setdefault(real, [])
        for parsed in self.importer.read(path, ctx):
            threads.append(parsed.thread["id"])
            if seen:
                seen(parsed)
            yield from self._counted(structure(_within_cap(parsed, path, ctx, self.cap), ctx, implied=self.implied))
        summary.files += 1
        if summary.counts.get("entry", 0) == entries_before and not ctx.has_problems(path):
            ctx.warn(path, None, f"no entries found: is this a {self.fmt} file?")

    def _outside(self, root: Path, real: Path) -> Path | None:
        """Where a file found in the folder ROOT really is (REAL, its resolved path) when that is outside ROOT (a
        symlink out of it), else None. ROOT is resolved once per run, not once per file."""
        if not root.is_dir():
            return None
        top = self.tops.get(root)
        if top is None:
            top = self.tops[root] = Path(os.path.realpath(root))
        return None if real == top or top in real.parents else real

    def _counted(self, records: Iterable[tuple[str, dict]]) -> Iterator[tuple[str, dict[str, Any]]]:
        counts = self.summary.counts
        for rtype, rec in records:
            if rtype == "entity":
                if rec["id"] in self.entity_ids:
                    continue
                self.entity_ids.add(rec["id"])
            elif rtype == "entry" and KEY in rec:
                counts["edge"] = counts.get("edge", 0) + implied_count(rec)
            yield rtype, rec
            counts[rtype] = counts.get(rtype, 0) + 1


def _within_cap(parsed: ParsedThread, path: Path, ctx: ImportContext, cap: int) -> ParsedThread:
    """PARSED without its entries over CAP bytes (and the replies that name them), each skip warned with its place."""
    skipped = set()
    for e in parsed.entries:
        body = e.get("body") or ""
        if len(body) * 4 <= cap:  # UTF-8 needs at most 4 bytes a character: no need to measure
            continue
        size = len(body.encode("utf-8", "surrogatepass"))
        if size > cap:
            skipped.add(e["id"])
            ctx.warn(
                path,
                _line(parsed, e),
                f"entry {e['id']} is {size:,} bytes, over the {cap:,}-byte limit (--max-entry-bytes); skipped",
            )
    if not skipped:
        return parsed
    return ParsedThread(
        parsed.thread,
        [e for e in parsed.entries if e["id"] not in skipped],
        [(c, p) for c, p in parsed.replies if c not in skipped and p not in skipped],
    )


def _line(parsed: ParsedThread, entry: dict) -> int | None:
    line = entry.get("source_line")
    if not isinstance(line, int):
        return None
    return line + 1 if parsed.thread.get("format") == "irc" else line  # irc counts its lines from 0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _lines(path: Path) -> int:
    """How many lines PATH has (0 when it cannot be read or is no regular file, which the importer reports)."""
    try:
        return read_regular(path).count(b"\n") + 1
    except OSError:
        return 0
