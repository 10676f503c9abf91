"""The records that import and chunk make from the shared corpora, pinned by digest.

The digests in `markdown_digests.json` were computed by the importers and chunker before they were made faster
(commit 7fe438f): the faster code must give the same records, byte for byte — every id, text, title, line,
warning, and every chunk's start, end and token count. A moved chunk boundary changes a digest, and the test
names the corpus, the options and the record type that differ.

To recompute after a change meant to alter the output: `python tests/pipeline/test_markdown_equivalence.py`.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from memdock.bundle import BundleReader
from memdock.chunking import ChunkOptions, chunk_bundle
from memdock.importers.pipeline import import_corpus

PINNED = Path(__file__).with_name("data") / "markdown_digests.json"
CORPORA = {
    "watercooler": ("watercooler_threads", "watercooler"),
    "threads-as-notes": ("watercooler_threads", "text"),
    "irc": ("irc/dev", "irc"),
    "locomo": ("locomo/locomo_dev.json", "chat"),
}
OPTIONS = {
    "default": ChunkOptions(),
    "small": ChunkOptions(max_tokens=48, overlap=12),
    "tiny-header-on": ChunkOptions(max_tokens=9, overlap=3, header="on"),
    "header-off": ChunkOptions(max_tokens=200, overlap=0, header="off"),
}


def _inputs_digest(data: Path, rel: str) -> str:
    root = data / rel
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(root) if root.is_dir() else p.name).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _records_digest(bundle: Path) -> dict[str, str]:
    out = {}
    reader = BundleReader(bundle)
    for rtype in reader.record_types():
        h = hashlib.sha256()
        for rec in reader.records(rtype):
            rec.pop("ingestion_time", None)
            h.update(orjson.dumps(rec, option=orjson.OPT_SORT_KEYS) + b"\n")
        out[rtype] = h.hexdigest()
    return out


def digests(data: Path, tmp: Path, name: str) -> dict[str, Any]:
    """What import and then chunk (under each of OPTIONS) make of corpus NAME."""
    rel, fmt = CORPORA[name]
    summary = import_corpus([data / rel], fmt, tmp / "corpus", overwrite=True)
    said = "\n".join(summary.warnings + summary.failed).replace(str(data), "DATA")  # the same wherever DATA is
    warnings = hashlib.sha256(said.encode()).hexdigest()
    found: dict[str, Any] = {
        "inputs": _inputs_digest(data, rel),
        "import": {**_records_digest(tmp / "corpus"), "warnings": warnings},
    }
    for label, opts in OPTIONS.items():
        chunk_bundle(tmp / "corpus", tmp / "chunks", opts, overwrite=True)
        found[label] = _records_digest(tmp / "chunks")["chunk"]
    return found


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_records_match_the_pinned_digests(shared_data: Path, tmp_path: Path, name: str) -> None:
    pinned = json.loads(PINNED.read_text())[name]
    rel, _ = CORPORA[name]
    if _inputs_digest(shared_data, rel) != pinned["inputs"]:
        pytest.skip(f"{shared_data / rel} is not the copy the digests were computed on; recompute them (see above)")
    found = digests(shared_data, tmp_path, name)
    for key, want in pinned.items():
        assert found[key] == want, f"{name}: {key} records differ from those the earlier code made"


if __name__ == "__main__":
    import tempfile

    data = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    with tempfile.TemporaryDirectory() as tmp:
        table = {name: digests(data, Path(tmp) / name, name) for name in sorted(CORPORA)}
    PINNED.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    sys.exit(0)
