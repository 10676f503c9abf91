"""The sqlite adapter's ingest alone, phase by phase, from this checkout and from another (--baseline), interleaved.

Prints the CPU seconds the adapter's `Ingest` spends on each record type of bench/peers.py's notes (a chunks bundle
read as the runner hands it over, loaded in bulk into a new store), its `finish` and the load's VACUUM, for each
checkout in one run; then the same chunk texts put into an FTS5 table of the adapter's tokenizer in the order of
their ids and in rowid order (why ingest sorts them: FTS5 writes out what it holds at any rowid not above the last),
with the pages each index takes over the texts' bytes. With --blocks, instead: the ways to store chunk bodies
compressed, on the notes' bodies and on those of --markdown-mb of watercooler markdown (the pages they take × the
bodies, CPU to pack them all, CPU µs to read one back, in random order, from a reader with this checkout's cache).

    python bench/sqlite_ingest.py --baseline /path/to/other/checkout --reps 2
    python bench/sqlite_ingest.py --blocks --markdown-mb 20
    python bench/sqlite_ingest.py --fts --reps 2
    python bench/sqlite_ingest.py --sent --baseline /path/to/other/checkout --reps 3

With --sent, instead: what `memdock add notes.jsonl -f jsonl` sends the adapter (its journal segment: entries with
their implied edges), read into memory first, then given to each checkout's ingest as the adapter's bulk index run
gives it (implied.Implied, `whole`), in the groups a stream comes in (entries and chunks in turns, GROUP of each):
the adapter's main-thread CPU seconds (thread time) per phase, the file's pages and free pages before the VACUUM.
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))

from memdock_sqlite import db, ingest, packed_text, text_blocks  # noqa: E402
from peers import write_markdown, write_notes  # noqa: E402

# Run in a child with TREE's src and adapter: prints {phase: CPU seconds} as JSON.
CHILD = """import json, sys, time
tree, bundle, store = sys.argv[1:4]
sys.path[:0] = [tree + "/adapters/sqlite", tree + "/src"]
from pathlib import Path
from memdock.bundle.reader import BundleReader
from memdock_sqlite import bulk, db, facts, ingest
import inspect
WHOLE = {"whole": True} if "whole" in inspect.signature(ingest.Ingest).parameters else {}  # as the adapter's bulk run
reader = BundleReader(bundle, validate=False, sealed=True, checked=True)
out, clock = {}, time.process_time
with bulk.load(Path(store)) as conn:
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=bulk.BATCH, **WHOLE)
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


# --sent: run in a child with TREE's src and adapter; prints {phase: main-thread CPU seconds, ...} as JSON.
CHILD_SENT = """import inspect, json, sys, time
tree, bundle, store, group = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [tree + "/adapters/sqlite", tree + "/adapters/common", tree + "/src"]
from pathlib import Path
from memdock.bundle.reader import BundleReader
from memdock.sdk import gc_pace
from memdock_sqlite import bulk, db, facts, implied, ingest
reader = BundleReader(bundle, validate=False, sealed=True, checked=True)
recs = {t: list(reader.records(t)) for t in ingest.ORDER if t in reader.record_types()}
WHOLE = {"whole": True} if "whole" in inspect.signature(ingest.Ingest).parameters else {}

def groups():  # threads and entities first, then entries and chunks in turns, as a stream of a notes file
    for t in ("thread", "entity"):
        yield from ([(t, iter(recs[t]))] if t in recs else [])
    entries, chunks = recs.get("entry", []), recs.get("chunk", [])
    for k in range(0, max(len(entries), len(chunks)), group):
        yield from (("entry", iter(entries[k : k + group])), ("chunk", iter(chunks[k : k + group])))

out, clock, pages = {}, time.thread_time, {}
reclaimable = bulk._reclaimable
def seen(conn):
    pages.update(pages=conn.execute("PRAGMA page_count").fetchone()[0],
                 free=conn.execute("PRAGMA freelist_count").fetchone()[0])
    return reclaimable(conn)
bulk._reclaimable = seen
with gc_pace.paced():
    with bulk.load(Path(store)) as conn, db.transaction(conn, "indexing"):
        derived = implied.Implied(lambda ids: None)
        run = ingest.Ingest(conn, on_commit=derived.on_commit, batch_size=bulk.BATCH, **WHOLE)
        run.implied = derived
        t = clock()
        for rtype, records in derived.groups(groups()):
            run.run(rtype, records)
            now = clock(); out[rtype] = out.get(rtype, 0) + now - t; t = now
        derived.release()
        run.finish()
        with db.transaction(conn, "indexing"):
            facts.refresh_unresolved(conn)
        now = clock(); out["finish"] = now - t; t = now
    out["put in place"] = clock() - t
out = {"main": sum(out.values()), **out}
print(json.dumps({**{k: round(v, 3) for k, v in out.items()}, **pages}))
"""
GROUP = 5000  # memdock.sdk.stream.GROUP


def phases(tree: Path, bundle: Path, store: Path, child: str = CHILD, *extra: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", child, str(tree), str(bundle), str(store), *extra],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(done.stdout)


def sent(args: argparse.Namespace, work: Path) -> None:
    """--sent: the journal segment of a `memdock add` of the notes, ingested by each checkout as described above."""
    write_notes(work / "notes.jsonl", args.notes)
    store = work / "added"
    how = ["add", str(work / "notes.jsonl"), "-f", "jsonl", "-b", "sqlite", "--data-dir", str(store), "-q"]
    subprocess.run([sys.executable, "-m", "memdock", *how], check=True, stdout=subprocess.DEVNULL)
    segment = next(p for p in sorted((store / "journal").iterdir()) if p.is_dir())
    trees = {"this": ROOT, "baseline": args.baseline.resolve()}
    print(f"{args.notes} notes as `memdock add` sends them, the adapter's main-thread CPU seconds per phase")
    for rep in range(args.reps):
        for name, tree in trees.items():
            got = phases(tree, segment, work / f"{name}-{rep}", CHILD_SENT, str(GROUP))
            cells = "  ".join(f"{k} {v:5.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in got.items())
            print(f"rep {rep} {name:8} {cells}", flush=True)


FTS_SETTINGS = {  # FTS5 options tried for a first load (https://sqlite.org/fts5.html#fts5_options)
    "id order": [],
    "rowid order": [],
    "rowid order, then optimize (a bulk load's)": [],
    "rowid order, automerge 0, then optimize": ["('automerge', 0)"],
    "rowid order, crisismerge 64": ["('crisismerge', 64)"],
    "rowid order, pgsz 8000": ["('pgsz', 8000)"],
}


def fts_order(bundle: Path, work: Path) -> dict[str, tuple[float, float]]:
    """CPU seconds of the chunk texts into FTS5 (one transaction, no journal) by id order and by rowid order, and
    in rowid order with each of FTS_SETTINGS; with each, the index's pages over the texts' bytes."""
    rows = [json.loads(line) for line in (bundle / "chunk-00001.jsonl").read_text().splitlines()]
    numbered = [(k + 1, r["id"], r["text"]) for k, r in enumerate(rows)]
    text_bytes = sum(len(r["text"].encode()) for r in rows)
    out = {}
    for name, settings in FTS_SETTINGS.items():
        order = sorted(numbered, key=lambda r: r[1]) if name == "id order" else numbered
        path = work / f"{name}.sqlite"
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA page_size = 8192")
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
        for setting in settings:
            db.execute(f"INSERT INTO f(f, rank) VALUES {setting}")
        t = time.process_time()
        db.execute("BEGIN")
        db.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)", [(k, text) for k, _, text in order])
        db.execute("COMMIT")
        if "optimize" in name:
            db.execute("INSERT INTO f(f) VALUES ('optimize')")
        took = time.process_time() - t
        index = "('f_data', 'f_idx', 'f_docsize')"  # its index, not the copy of the texts it keeps (f_content)
        pages = db.execute(f"SELECT sum(pgsize) FROM dbstat WHERE name IN {index}").fetchone()[0]
        out[name] = took, pages / text_bytes
        db.close()
    return out


def _fts_cells(got: dict[str, tuple[float, float]]) -> str:
    return "  ".join(f"{k} {secs:.2f} s {size:.3f}× the text" for k, (secs, size) in got.items())


def bodies_of(source: Path, fmt: str, work: Path) -> list[str]:
    """The chunk bodies `memdock add` makes of SOURCE, in order."""
    from memdock.chunking import chunk_bundle
    from memdock.importers.pipeline import import_corpus

    import_corpus([source], fmt, work / "corpus")
    chunk_bundle(work / "corpus", work / "chunks")
    rows = [json.loads(line) for f in sorted((work / "chunks").glob("chunk-*.jsonl")) for line in f.open()]
    return [ingest.chunk_body(r) for r in rows]


def per_body(bodies: list[str], level: int) -> tuple[int, float, Callable[[int], str]]:
    """Bodies packed one by one as schema 7 packed them (a dictionary of the first bodies), at zlib LEVEL."""
    packed_text.LEVEL = level
    t = time.process_time()
    zdict = "".join(bodies[:64]).encode()[-packed_text.BODY_DICT_BYTES :]
    packed = list(map(packed_text.packer(zdict), bodies))
    took = time.process_time() - t
    packed_text.LEVEL = 6
    size = sum(len(p.encode() if isinstance(p, str) else p) for p in packed)
    return size, took, lambda k: packed_text.unpack(packed[k], lambda _: zdict) or ""


def in_blocks(bodies: list[str], pages: int, fixed: int = 0) -> tuple[int, float, Callable[[int], str]]:
    """Bodies packed into blocks (text_blocks.py) that fill PAGES pages each; or, given FIXED, FIXED bytes of bodies
    a block (schema 8 as it was first built: 16 KiB). Into a new database file of db.PAGE_SIZE pages: the size is
    the pages the blocks take (dbstat), not the sum of their lengths, so a page a block leaves part empty counts."""
    tmp = tempfile.NamedTemporaryFile(suffix=".sqlite", delete=False)  # noqa: SIM115  (dbstat needs a file)
    tmp.close()
    conn = sqlite3.connect(tmp.name, isolation_level=None)
    conn.execute(f"PRAGMA page_size = {db.PAGE_SIZE}")
    conn.execute("CREATE TABLE text_blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL)")
    text_blocks.PAGES = pages
    t = time.process_time()
    conn.execute("BEGIN")
    placed = fixed_blocks(conn, bodies, fixed) if fixed else text_blocks.place(conn, bodies)
    conn.execute("COMMIT")
    took = time.process_time() - t
    size = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'text_blocks'").fetchone()[0]
    Path(tmp.name).unlink()
    reader = text_blocks.Reader(conn)
    return size, took, lambda k: reader(placed[k][0] or 0, placed[k][1] or 0)


def fixed_blocks(conn: sqlite3.Connection, bodies: list[str], block_bytes: int) -> list[tuple[int, int]]:
    """Schema 8's first packing: a block closed at the body that takes it to BLOCK_BYTES."""
    out, group, size = [], [], 0
    for k, body in enumerate(bodies):
        group.append(body.encode())
        size += len(group[-1])
        if size >= block_bytes or k == len(bodies) - 1:
            data = zlib.compress(b"".join(group), text_blocks.LEVEL)
            block = conn.execute("INSERT INTO text_blocks(data) VALUES (?)", (data,)).lastrowid
            offset = 0
            for b in group:
                out.append((block, offset << 32 | len(b)))
                offset += len(b)
            group, size = [], 0
    return out


def blocks(args: argparse.Namespace, work: Path) -> None:
    corpora = {"notes": (work / "notes.jsonl", "jsonl")}
    write_notes(work / "notes.jsonl", args.notes)
    if args.markdown_mb > 0:
        write_markdown(work / "markdown", args.markdown_mb)
        corpora["markdown"] = (work / "markdown", "watercooler")
    ways: dict[str, Callable[[list[str]], tuple[int, float, Callable[[int], str]]]] = {
        "one by one, level 6 (schema 7)": lambda b: per_body(b, 6),
        "one by one, level 1": lambda b: per_body(b, 1),
        f"16 KiB blocks, level {text_blocks.LEVEL}": lambda b: in_blocks(b, 1, fixed=16384),
        **{f"{n}-page blocks, level {text_blocks.LEVEL}": lambda b, n=n: in_blocks(b, n) for n in (1, 2, 4)},
    }
    for name, (source, fmt) in corpora.items():
        bodies = bodies_of(source, fmt, work / f"{name}-bundles")
        raw = sum(len(b.encode()) for b in bodies)
        print(f"{name}: {len(bodies)} chunk bodies, {raw / 1e6:.1f} MB")
        order = random.Random(0).sample(range(len(bodies)), min(len(bodies), 5000))
        for way, pack in ways.items():
            size, took, read = pack(bodies)
            t = time.process_time()
            assert all(read(k) == bodies[k] for k in order)
            per_read = (time.process_time() - t) / len(order) * 1e6
            print(f"  {way:<32} {size / raw:5.3f}× the bodies  pack {took:5.2f} s CPU  read {per_read:5.1f} µs")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="another checkout of memdock (say, main's)")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--blocks", action="store_true", help="compare ways of storing chunk bodies instead")
    ap.add_argument("--markdown-mb", type=float, default=0.0, help="with --blocks: markdown besides the notes")
    ap.add_argument("--fts", action="store_true", help="only the chunk texts into FTS5 alone, in each way")
    ap.add_argument("--sent", action="store_true", help="what `memdock add` sends, as the adapter's run takes it")
    ap.add_argument("--tmp", type=Path, default=None, help="where the stores go (a temporary directory)")
    args = ap.parse_args()
    if args.sent:
        if args.baseline is None:
            ap.error("--sent needs --baseline")
        with tempfile.TemporaryDirectory(prefix="sqlite-sent-", dir=args.tmp) as tmp:
            sent(args, Path(tmp))
        return 0
    if args.fts:
        from memdock.chunking import chunk_bundle
        from memdock.importers.pipeline import import_corpus

        with tempfile.TemporaryDirectory(prefix="sqlite-fts-") as tmp:
            work = Path(tmp)
            write_notes(work / "notes.jsonl", args.notes)
            import_corpus([work / "notes.jsonl"], "jsonl", work / "corpus")
            chunk_bundle(work / "corpus", work / "chunks")
            for rep in range(args.reps):
                got = fts_order(work / "chunks", work)
                print(f"rep {rep}: chunk texts into FTS5 alone: " + _fts_cells(got))
        return 0
    if args.blocks:
        with tempfile.TemporaryDirectory(prefix="sqlite-blocks-") as tmp:
            blocks(args, Path(tmp))
        return 0
    if args.baseline is None:
        ap.error("--baseline is needed (or --blocks)")
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
        print("chunk texts into FTS5 alone: " + _fts_cells(got))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
