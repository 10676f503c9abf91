"""FTS5 alone, loaded the ways the sqlite adapter has loaded chunk_fts, on the same texts, each way in turn.

    python bench/fts5_layout.py [--chunks 100000 | --notes 20000] [--reps 2]

The texts are bench/synthetic.py's chunks (as `memdock index` of bench/peers.py's chunks bundle gets them) or
bench/peers.py's short notes. Each way loads them into a new database with the sqlite adapter's tokenizer and page
size, one transaction, no journal, no fsync, external content, 2,000 rows an `executemany` (the adapter's batch
of rows), then merges the index into one segment (`optimize`, as a bulk load ends), and prints the CPU seconds of
the load and of the merge and the bytes of the index (`chunk_fts_data`):

- `header-first`: chunk_fts(header, body) with most headers empty, FTS5's own `hashsize` (1 MiB), a savepoint
  every 20,000 rows (the adapter's batches inside a bulk load's transaction): sqlite schema 10;
- `body-first`: the same with the columns (body, header): a term of any column but the first carries the column's
  number in the index;
- `+hashsize`: body first, and the terms held in memory up to 64 MiB (`db.FTS_HASH_BYTES`) before they are written
  as a segment;
- `+no-savepoints`: body first, 64 MiB, and no savepoint between batches (at each, FTS5 writes what it holds out):
  sqlite schema 11.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters" / "sqlite"))
from memdock_sqlite import db
from synthetic import Vocabulary, write_bundle

ROWS = 2000
BATCH = 20000
WAYS = {  # columns, hashsize (None: FTS5's), savepoint every BATCH rows
    "header-first": (("header", "body"), None, True),
    "body-first": (("body", "header"), None, True),
    "+hashsize": (("body", "header"), db.FTS_HASH_BYTES, True),
    "+no-savepoints": (("body", "header"), db.FTS_HASH_BYTES, False),
}


def chunk_texts(n: int, folder: Path) -> list[str]:
    import orjson

    write_bundle(folder / "chunks", Vocabulary(folder), n, random.Random(11))
    return [orjson.loads(line)["text"] for line in (folder / "chunks" / "chunk-00001.jsonl").open("rb")]


def note_texts(n: int, folder: Path) -> list[str]:
    import orjson
    import peers

    peers.write_notes(folder / "notes.jsonl", n)
    return [orjson.loads(line)["text"] for line in (folder / "notes.jsonl").open("rb")]


def load(path: Path, texts: list[str], columns: tuple[str, ...], hashsize: int | None, savepoints: bool) -> tuple:
    """CPU seconds of the load and of the merge, and the index's bytes."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {db.PAGE_SIZE}")
    for pragma in ("journal_mode = OFF", "synchronous = OFF", "cache_size = -65536"):
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("CREATE TABLE chunks(rowid INTEGER PRIMARY KEY, header TEXT, body TEXT)")
    conn.execute(
        f"CREATE VIRTUAL TABLE chunk_fts USING fts5({', '.join(columns)}, content='chunks', content_rowid='rowid', "
        f"tokenize='{db.TOKENIZE}')"
    )
    if hashsize is not None:
        conn.execute("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('hashsize', ?)", (hashsize,))
    marks = ", ".join("?" * (len(columns) + 1))
    rows = [(k, *("" if c == "header" else t for c in columns)) for k, t in enumerate(texts, 1)]
    conn.execute("BEGIN")
    started = time.process_time()
    for at in range(0, len(rows), ROWS):
        if savepoints and at % BATCH == 0:
            conn.execute("SAVEPOINT batch")
        conn.executemany(f"INSERT INTO chunk_fts(rowid, {', '.join(columns)}) VALUES ({marks})", rows[at : at + ROWS])
        if savepoints and (at + ROWS) % BATCH == 0:
            conn.execute("RELEASE batch")
    if savepoints and conn.in_transaction and len(rows) % BATCH:
        conn.execute("RELEASE batch")
    loaded = time.process_time() - started
    conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES ('optimize')")
    merged = time.process_time() - started - loaded
    conn.execute("COMMIT")
    size = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'chunk_fts_data'").fetchone()[0]
    conn.close()
    return loaded, merged, size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=100000)
    ap.add_argument("--notes", type=int, default=0, help="the notes instead of the chunks")
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        texts = note_texts(args.notes, work) if args.notes else chunk_texts(args.chunks, work)
        text_mb = sum(len(t.encode()) for t in texts) / 1e6
        print(f"{len(texts):,} texts, {text_mb:.2f} MB; CPU s of the load, of the merge, index MB (× the text)")
        for rep in range(args.reps):
            for name, (columns, hashsize, savepoints) in WAYS.items():
                path = work / f"{name}-{rep}.sqlite"
                loaded, merged, size = load(path, texts, columns, hashsize, savepoints)
                print(
                    f"rep {rep} {name:15} load {loaded:5.2f}  merge {merged:5.2f}  all {loaded + merged:5.2f}  "
                    f"index {size / 1e6:6.2f} MB ({size / 1e6 / text_mb:.2f}×)",
                    flush=True,
                )
                path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
