"""What a new index keeps beside its postings, set in its meta.json before its first document.

tantivy-py 0.27 builds a text field with field norms (a byte per document per field) and a doc store of 16 KB
lz4 blocks, with no option for either. tantivy reads both from meta.json (`fieldnorms` in each field's indexing
options, `docstore_blocksize` in the index settings), so a new, empty index gets them written there: norms only
for the fields its BM25 ranks (a chunk index's `head`/`body`, the graph's `name`/`text`/`fact`), none for the
exact-match keys (a term query without norms scores every document as one token long, which a key is anyway) or
for the other index's fields; and blocks of BLOCK bytes, which lz4 compresses better than 16 KB ones. Zstd, which
compresses stored text further, is not compiled into the wheel (tantivy refuses a meta.json that names it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

META = "meta.json"
BLOCK = 65536  # lz4's window; larger blocks compress no better and cost more to decompress per document read


def settle(folder: Path, searched: tuple[str, ...]) -> None:
    """Rewrite FOLDER's meta.json (an index with no segment yet) with norms for SEARCHED fields only."""
    path = folder / META
    meta = json.loads(path.read_text())
    if meta.get("segments"):
        raise ValueError(f"{path}: the index already holds documents; its layout is left as it is")
    meta["index_settings"]["docstore_blocksize"] = BLOCK
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
