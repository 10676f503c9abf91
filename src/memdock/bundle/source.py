"""Which source a bundle's records come from: the origin the ledger records for every record it commits.

A re-index deletes only records whose origin is the bundle's source (DESIGN: "a record is only ever deleted by
the source that wrote it"). The identity is kept in the manifest's free-form metadata as `source_id`:

- `memdock import` writes `import:FORMAT:HASH`, HASH over the sorted, resolved source paths: re-importing
  the same files or folders, into any output, gives the same identity; another set of sources is another
  source.
- `memdock chunk` (and the CLI's chunking of a corpus before `index`) carries the corpus's identity over.
- `remember` notes get the origin `remember` from the service, never from a manifest; a bundle never prunes them.
- A bundle without one (written by another tool or an older memdock) is identified by its resolved path.

`remember` and the ledger's `legacy` are reserved: a manifest claiming one is refused when the bundle is opened
(validate, chunk, index), so a hand-edited or third-party bundle cannot prune what they hold.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..ids import digest
from ..jsonl import PayloadError

REMEMBER = "remember"
LEGACY = "legacy"
RESERVED = frozenset({REMEMBER, LEGACY})
KEY = "source_id"


def check_claim(manifest: dict[str, Any], where: str) -> None:
    """Refuse a manifest whose source_id is an origin memdock keeps for itself."""
    meta = manifest.get("metadata")
    given = meta.get(KEY) if isinstance(meta, dict) else None
    if isinstance(given, str) and given in RESERVED:
        raise PayloadError(
            f"source_id {given!r} is reserved for memdock's own records (remember notes, the ledger's "
            "legacy rows); a bundle may not claim it. Remove metadata.source_id or give the bundle its own id",
            file=where,
            path=f"metadata.{KEY}",
        )


def for_import(fmt: str, sources: Sequence[str | os.PathLike[str]]) -> str:
    paths = sorted(os.path.realpath(s) for s in sources)
    return f"import:{fmt}:{digest(*paths, length=24)}"


def of_manifest(manifest: dict[str, Any], path: str | os.PathLike[str]) -> str:
    """The source identity of the bundle at PATH whose manifest is MANIFEST."""
    check_claim(manifest, os.path.join(os.fspath(path), "manifest.json"))
    meta = manifest.get("metadata")
    given = meta.get(KEY) if isinstance(meta, dict) else None
    if isinstance(given, str) and given:
        return given
    return "path:" + os.path.realpath(path)
