"""`memdock import`: read sources with one importer and stream a corpus bundle."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ..bundle import BundleWriter, source
from . import get_importer
from .base import ImportContext, structure


@dataclass
class ImportSummary:
    counts: dict[str, int] = field(default_factory=dict)
    files: int = 0
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
) -> ImportSummary:
    started = time.monotonic()
    importer = get_importer(fmt, mapping=mapping) if fmt == "jsonl" and mapping else get_importer(fmt)
    roots = [Path(s) for s in sources]
    files: list[tuple[Path, Path]] = []
    ctx = ImportContext(root=roots[0] if len(roots) == 1 and roots[0].is_dir() else None)
    for root in roots:
        if not root.exists():
            ctx.error(root, "no such file or directory")
            continue
        files += [(root, f) for f in importer.sources(root)]
    summary = ImportSummary()
    entity_ids: set[str] = set()
    metadata = {"format": fmt, "sources": [str(r) for r in roots], source.KEY: source.for_import(fmt, roots)}
    with BundleWriter(out, "corpus", overwrite=overwrite, inputs=roots, metadata=metadata) as w:
        for i, (_root, path) in enumerate(files):
            if on_file:
                on_file(i, len(files), path)
            for parsed in importer.read(path, ctx):
                for rtype, rec in structure(parsed, ctx):
                    if rtype == "entity":
                        if rec["id"] in entity_ids:
                            continue
                        entity_ids.add(rec["id"])
                    w.write(rtype, rec)
                    summary.counts[rtype] = summary.counts.get(rtype, 0) + 1
            summary.files += 1
    summary.failed = [str(e) for e in ctx.errors]
    summary.files -= len({e.file for e in ctx.errors if any(str(p) == e.file for _, p in files)})
    summary.warnings = ctx.warning_lines()
    summary.seconds = time.monotonic() - started
    return summary
