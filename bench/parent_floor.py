"""The floor of the parent's pass: what `memdock add -f jsonl` of the notes and `memdock index` of the chunks bundle
would cost the parent process at its minimum, beside what the parent spends, in one run.

The floor does only what the parent cannot leave out, each step the cheapest way Python has:
read the input's lines and parse them (orjson); for the notes, make each note's entry and chunk line (a short note
is one window: the chunk's text is the entry's body); hash each record (sha256 of its sorted-key JSON, as the
ledger's content hash); deflate the lines into a gzip journal part on a thread beside the pass (zlib level 1, and
ISA-L's level 1 where isal is installed); and, as a second figure, one ledger row a record (key, hash) written
into a SQLite table in one transaction. It checks nothing, imports no memdock and makes no entity, edge or span.

    python bench/parent_floor.py [--notes 20000] [--chunks 100000] [--reps 2] [--baseline /path/to/checkout]

Prints CPU seconds of the measuring process for each step (best of the repetitions), then the parent's own CPU
seconds (RUSAGE_SELF of `memdock add` / `memdock index`, as bench/add_baseline.py measures it: the adapter's are
not in it) of this checkout (and --baseline's), and the parent's multiple of the floor.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from add_baseline import add  # noqa: E402
from peers import write_notes  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

BLOCK = 1 << 20
T0 = "2026-01-01T00:00:00Z"


def cpu() -> float:
    return time.process_time()


def lines_of(path: Path) -> Iterator[bytes]:
    with open(path, "rb", buffering=BLOCK) as f:
        yield from f


def note_records(line: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """A note's entry and its one chunk (its body whole), as the parent must make them."""
    note = orjson.loads(line)
    eid = "entry:" + note["id"]
    entry = {"id": eid, "thread_id": "thread:" + note["thread"], "body": note["text"], "author": note["author"]}
    digest = hashlib.sha256(note["text"].encode()).hexdigest()[:16]
    chunk = {"id": f"chunk:{digest}", "entry_id": eid, "text": note["text"], "start": 0, "end": len(note["text"])}
    return entry, chunk


class Journal:
    """A gzip part deflated on a thread beside the caller, a block at a time (as the journal's writer does)."""

    def __init__(self, path: Path, make: Callable[[], Any]):
        self.file = open(path, "wb", buffering=BLOCK)  # noqa: SIM115
        self.zip, self.pending, self.size = make(), [], 0
        self.thread: threading.Thread | None = None

    def write(self, data: bytes) -> None:
        self.pending.append(data)
        self.size += len(data)
        if self.size >= BLOCK:
            self._hand_off()

    def _hand_off(self) -> None:
        block, self.pending, self.size = b"".join(self.pending), [], 0
        if self.thread is not None:
            self.thread.join()
        self.thread = threading.Thread(target=lambda: self.file.write(self.zip.compress(block)))
        self.thread.start()

    def close(self) -> None:
        self._hand_off()
        assert self.thread is not None
        self.thread.join()
        self.file.write(self.zip.flush())
        self.file.close()


def floor(source: Path, notes: bool, work: Path, make: Callable[[], Any]) -> dict[str, float]:
    """CPU seconds of each step over SOURCE (the notes' JSONL, or a chunks bundle's part)."""
    out: dict[str, float] = {}
    t = cpu()
    if notes:
        records = [r for line in lines_of(source) for r in note_records(line)]
        lines = [orjson.dumps(r, option=orjson.OPT_APPEND_NEWLINE) for r in records]
    else:
        lines = list(lines_of(source))
        records = [orjson.loads(line) for line in lines]
    out["read, parse, make lines"] = cpu() - t
    t = cpu()
    hashes = [hashlib.sha256(orjson.dumps(r, option=orjson.OPT_SORT_KEYS)).digest()[:16] for r in records]
    out["hash"] = cpu() - t
    t = cpu()
    journal = Journal(work / "part.jsonl.gz", make)
    for line in lines:
        journal.write(line)
    journal.close()
    out["journal (deflate on a thread)"] = cpu() - t
    out["floor"] = sum(out.values())
    t = cpu()
    db = sqlite3.connect(work / "ledger.sqlite", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS rows (key BLOB PRIMARY KEY, hash BLOB NOT NULL) WITHOUT ROWID")
    db.execute("BEGIN")
    rows = ((r["id"].encode(), h[:8]) for r, h in zip(records, hashes, strict=True))
    db.executemany("INSERT OR REPLACE INTO rows VALUES (?, ?)", rows)
    db.execute("COMMIT")
    db.close()
    out["ledger rows"] = cpu() - t
    out["floor + ledger"] = out["floor"] + out["ledger rows"]
    for name in ("part.jsonl.gz", "ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"):
        (work / name).unlink(missing_ok=True)
    return out


def start_up(tree: Path) -> float:
    """CPU seconds of a process that starts Python and imports what `memdock add` imports before its pass."""
    code = "import memdock.cli.pipeline, memdock.engine.index, memdock.importers.onepass"
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def codecs() -> dict[str, Callable[[], Any]]:
    out: dict[str, Callable[[], Any]] = {"zlib 1": lambda: zlib.compressobj(1, zlib.DEFLATED, 31)}
    try:
        from isal import isal_zlib
    except ImportError:
        return out
    out["isal 1"] = lambda: isal_zlib.compressobj(1, isal_zlib.DEFLATED, 31)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=20000, help="0 to leave the notes out")
    ap.add_argument("--chunks", type=int, default=100000, help="0 to leave the chunks bundle out")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--baseline", type=Path, help="another checkout: its parent's CPU seconds too")
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="parent-floor-", dir=args.tmp))
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    try:
        cases = []
        if args.notes:
            write_notes(work / "notes.jsonl", args.notes)
            cases.append(("notes", work / "notes.jsonl", "jsonl", work / "notes.jsonl"))
        if args.chunks:
            write_bundle(work / "chunks", Vocabulary(work), args.chunks, random.Random(11))
            part = next((work / "chunks").glob("chunk-*.jsonl"))
            cases.append(("chunks", work / "chunks", "chunks", part))
        for name, source, fmt, data in cases:
            print(f"== {name}: {data.stat().st_size / 1e6:.2f} MB, load {os.getloadavg()[0]:.1f}", flush=True)
            best: dict[tuple[str, str], float] = {}
            parents: dict[str, list[float]] = {t: [] for t in trees}
            for _ in range(args.reps):
                for codec, make in codecs().items():
                    for step, s in floor(data, name == "notes", work, make).items():
                        best[(codec, step)] = min(best.get((codec, step), s), s)
                for tree_name, tree in trees.items():
                    store = work / f"store-{tree_name}"
                    parents[tree_name].append(add(tree, source, fmt, "sqlite", store)[2])
                    shutil.rmtree(store)
            for (codec, step), s in best.items():
                print(f"  floor {codec:7} {step:32} {s:6.2f} CPU s")
            print(f"  start-up (python and the imports of `memdock add`, in every parent): {start_up(ROOT):.2f} CPU s")
            for tree_name, seconds in parents.items():
                low = min(seconds)
                ratios = ", ".join(
                    f"{low / best[(c, 'floor')]:.1f}x floor ({c}), {low / best[(c, 'floor + ledger')]:.1f}x with ledger"
                    for c in codecs()
                )
                print(f"  parent {tree_name:9} {', '.join(f'{s:.2f}' for s in seconds)} CPU s  (best: {ratios})")
            print(f"  load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
