"""The sqlite adapter's ingest alone, phase by phase, from this checkout and from another (--baseline), interleaved.

Prints the CPU seconds the adapter's `Ingest` spends on each record type of bench/peers.py's notes (a chunks bundle
read as the runner hands it over, loaded in bulk into a new store), its `finish` and the load's VACUUM, for each
checkout in one run; then the same chunk texts put into an FTS5 table of the adapter's tokenizer in the order of
their ids and in rowid order (why ingest sorts them: FTS5 writes out what it holds at any rowid not above the last).

    python bench/sqlite_ingest.py --baseline /path/to/other/checkout --reps 2
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_notes  # noqa: E402

# Run in a child with TREE's src and adapter: prints {phase: CPU seconds} as JSON.
CHILD = """import json, sys, time
tree, bundle, store = sys.argv[1:4]
sys.path[:0] = [tree + "/adapters/sqlite", tree + "/src"]
from pathlib import Path
from memdock.bundle.reader import BundleReader
from memdock_sqlite import bulk, db, facts, ingest
reader = BundleReader(bundle, validate=False, sealed=True, checked=True)
out, clock = {}, time.process_time
with bulk.load(Path(store)) as conn:
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=bulk.BATCH)
    for rtype in [t for t in ingest.ORDER if t in reader.record_types()]:
        t = clock(); run.run(rtype, reader.records(rtype)); out[rtype] = clock() - t
    t = clock(); run.finish()
    with db.transaction(conn):
        facts.refresh_unresolved(conn)
    out["finish"] = clock() - t
    t = clock()
out["vacuum"] = clock() - t
print(json.dumps(out))
"""


def phases(tree: Path, bundle: Path, store: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), str(bundle), str(store)], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout)


def fts_order(bundle: Path, work: Path) -> dict[str, float]:
    """CPU seconds of the chunk texts into FTS5 (one transaction, no journal) by id order and by rowid order."""
    rows = [json.loads(line) for line in (bundle / "chunk-00001.jsonl").read_text().splitlines()]
    numbered = [(k + 1, r["id"], r["text"]) for k, r in enumerate(rows)]
    out = {}
    for name, order in (("id order", sorted(numbered, key=lambda r: r[1])), ("rowid order", numbered)):
        db = sqlite3.connect(work / f"{name}.sqlite", isolation_level=None)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
        t = time.process_time()
        db.execute("BEGIN")
        db.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)", [(k, text) for k, _, text in order])
        db.execute("COMMIT")
        out[name] = time.process_time() - t
        db.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of memdock (say, main's)")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    from memdock.chunking import chunk_bundle
    from memdock.importers.pipeline import import_corpus

    with tempfile.TemporaryDirectory(prefix="sqlite-ingest-") as tmp:
        work = Path(tmp)
        write_notes(work / "notes.jsonl", args.notes)
        import_corpus([work / "notes.jsonl"], "jsonl", work / "corpus")
        chunk_bundle(work / "corpus", work / "chunks")
        trees = {"this": ROOT, "baseline": args.baseline.resolve()}
        print(f"{args.notes} notes, the adapter's ingest alone, CPU seconds per phase, {args.reps} repetitions")
        for rep in range(args.reps):
            for name, tree in trees.items():
                got = phases(tree, work / "chunks", work / f"{name}-{rep}")
                cells = "  ".join(f"{k} {v:5.2f}" for k, v in got.items())
                print(f"rep {rep} {name:8} total {sum(got.values()):5.2f}  {cells}", flush=True)
        got = fts_order(work / "chunks", work)
        print("chunk texts into FTS5 alone: " + "  ".join(f"{k} {v:.2f} s" for k, v in got.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
