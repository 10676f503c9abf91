"""Which fields of a new index keep field norms, set in its meta.json before its first document.

tantivy-py 0.27 builds every text field with field norms (a byte per document per field) and has no option to
leave them out. tantivy reads them from meta.json (`fieldnorms` in each field's indexing options), so a new, empty
index gets them written there: norms only for the fields its BM25 ranks (a chunk index's `head`/`body`, the
graph's `name`/`text`/`fact`), none for the exact-match keys (a term query without norms scores every document as
one token long, which a key is anyway) or for the other index's fields.

The doc store keeps tantivy's 16 KB lz4 blocks: 64 KB ones stored the 100k synthetic chunks in 7 % less space
but every hit decompresses a whole block when read. Zstd, which compresses stored text further, is not compiled
into the wheel (tantivy refuses a meta.json that names it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

META = "meta.json"


def settle(folder: Path, searched: tuple[str, ...]) -> None:
    """Rewrite FOLDER's meta.json (an index with no segment yet) with norms for SEARCHED fields only."""
    path = folder / META
    meta = json.loads(path.read_text())
    if meta.get("segments"):
        raise ValueError(f"{path}: the index already holds documents; its layout is left as it is")
    for field in meta["schema"]:
        indexing = field["options"].get("indexing")
        if field["type"] == "text" and indexing:
            indexing["fieldnorms"] = field["name"] in searched
    tmp = folder / f".{META}.tmp"
    tmp.write_text(json.dumps(meta))
    os.replace(tmp, path)


def norms(folder: Path) -> dict[str, bool]:
    """Which text fields of the index at FOLDER keep field norms."""
    meta = json.loads((folder / META).read_text())
    return {f["name"]: bool(f["options"]["indexing"]["fieldnorms"]) for f in meta["schema"] if f["type"] == "text"}
