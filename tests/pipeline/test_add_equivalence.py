"""What `memdock add`'s one pass leaves in a store, pinned by digest: the journal segment's records (every line as
it reads back after inflating, byte for byte) and the ledger's rows (id, content hash, thread, type), on the shared
corpora (watercooler markdown, LoCoMo chat, an IRC log, short notes as JSONL), and bench/peers.py's markdown folder
(copies of the watercooler threads without their Entry-ID comments) read as watercooler and as plain text notes.

The digests in `add_digests.json` were computed by main at 485e2a4, before the parent's one pass was made cheaper
(importer, chunker, record lines, hashing, the delta sink): the cheaper code must give the same store. Each line's
`ingestion_time` is the run's own clock, so its value is replaced by a fixed one in place (the key stays where it
was); nothing else is left out.

To recompute after a change meant to alter the output: `python tests/pipeline/test_add_equivalence.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from memdock.bundle import BundleReader
from memdock.chunking import ChunkOptions
from memdock.engine.backend import StoreBackend
from memdock.engine.ledger import Ledger
from memdock.engine.mock import MemoryAdapter, MockTransport
from memdock.importers.onepass import ImportFeed

PINNED = Path(__file__).with_name("data") / "add_digests.json"
CORPORA = {  # name: (file or folder under the shared data, format); the notes are made from LoCoMo's turns
    name: (rel, fmt)
    for name, rel, fmt in [
        ("watercooler", "watercooler_threads", "watercooler"),
        ("locomo", "locomo/locomo_dev.json", "chat"),
        ("irc", "irc/dev/2004-11-15_03.ascii.txt", "irc"),
        ("notes", "locomo/locomo_dev.json", "jsonl"),
        ("markdown", "watercooler_threads", "watercooler"),
        ("markdown-text", "watercooler_threads", "text"),
    ]
}
OPTIONS = {"default": ChunkOptions(), "small": ChunkOptions(max_tokens=48, overlap=12)}
NOTES = 3000
NOTE_BYTES = 457
COPIES = 2
ENTRY_ID = re.compile(r"<!-- Entry-ID: [^>]*-->\n?")


def write_notes(locomo: Path, out: Path) -> Path:
    """NOTES short notes in the shape bench/peers.py writes: consecutive LoCoMo turns joined to ~NOTE_BYTES, fifty
    to a thread, each with a hashed id and an author."""
    turns = []
    for conv in json.loads(locomo.read_text()):
        c = conv["conversation"]
        sessions = sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        turns += [f"{t['speaker']}: {t['text']}" for s in sessions for t in c[s]]
    with open(out, "wb") as f:
        i = 0
        for k in range(NOTES):
            parts: list[str] = []
            while sum(map(len, parts)) < NOTE_BYTES:
                parts.append(turns[i % len(turns)])
                i += 1
            note = {"id": hashlib.sha256(b"%d" % k).hexdigest()[:16], "thread": f"notes-{k // 50:04d}"}
            f.write(orjson.dumps({**note, "author": "user", "text": " ".join(parts)}) + b"\n")
    return out


def write_markdown(threads: Path, out: Path) -> Path:
    """COPIES copies of each watercooler thread under THREADS without its Entry-ID comments, as bench/peers.py's
    markdown corpus is made (so that the copies do not claim one id), into the folder OUT."""
    sources = sorted(threads.rglob("*.md"))
    out.mkdir()
    for k in range(COPIES):
        for p in sources:
            (out / f"copy{k:04d}-{p.name}").write_text(ENTRY_ID.sub("", p.read_text()))
    return out


def _source(data: Path, tmp: Path, name: str) -> Path:
    rel, _ = CORPORA[name]
    if name == "notes":
        return write_notes(data / rel, tmp / "notes.jsonl")
    if name.startswith("markdown"):
        return write_markdown(data / rel, tmp / "markdown")
    return data / rel


def _journal_digests(segment: Path) -> dict[str, str]:
    out = {}
    reader = BundleReader(segment, validate=False, sealed=True)
    for rtype in reader.record_types():
        h = hashlib.sha256()
        for rec, line in reader.records_with_lines(rtype):
            if "ingestion_time" in rec:
                rec["ingestion_time"] = "2000-01-01T00:00:00Z"
                line = orjson.dumps(rec, option=orjson.OPT_APPEND_NEWLINE)
            h.update(line)
        out[rtype] = h.hexdigest()
    return out


def _ledger_digest(path: Path) -> str:
    ledger = Ledger.reader(path)
    try:
        rows = sorted((rid, bytes(h).hex(), thread or "", rtype) for rid, h, thread, rtype in ledger.records())
    finally:
        ledger.close()
    return hashlib.sha256(orjson.dumps(rows)).hexdigest()


def digests(data: Path, tmp: Path, name: str) -> dict[str, Any]:
    """What `memdock add`'s one pass (under each of OPTIONS) leaves of corpus NAME in a fresh store's journal
    and ledger."""
    _, fmt = CORPORA[name]
    source = _source(data, tmp, name)
    found: dict[str, Any] = {}
    for label, opts in OPTIONS.items():
        store = tmp / label
        backend = StoreBackend(MockTransport(MemoryAdapter()), store)
        backend.index(ImportFeed([source], fmt, opts))
        found[label] = {
            "journal": _journal_digests(store / "journal" / "00000001"),
            "ledger": _ledger_digest(store / "ledger.sqlite"),
        }
    return found


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_the_store_matches_the_pinned_digests(shared_data: Path, tmp_path: Path, name: str) -> None:
    pinned = json.loads(PINNED.read_text())[name]
    found = digests(shared_data, tmp_path, name)
    for label, want in pinned.items():
        for part, digest in want["journal"].items():
            assert found[label]["journal"].get(part) == digest, f"{name} ({label}): journal {part} records differ"
        assert found[label]["journal"].keys() == want["journal"].keys()
        assert found[label]["ledger"] == want["ledger"], f"{name} ({label}): the ledger's rows differ"


if __name__ == "__main__":
    import tempfile

    data = Path(__file__).resolve().parents[2].parent / "shared" / "data"
    table = {}
    for name in sorted(CORPORA):
        with tempfile.TemporaryDirectory() as tmp:
            table[name] = digests(data, Path(tmp), name)
    PINNED.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    raise SystemExit(0)
