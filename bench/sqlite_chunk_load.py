"""The sqlite adapter's main thread on a first load of bench/peers.py's synthetic chunks, this checkout beside another.

Each tree's `Ingest` loads the same chunks (parsed beforehand, in groups of 5,000 as a stream hands them over) in
bulk into a new store, in a child process of its own, interleaved with the other tree's; prints that thread's CPU
seconds in the stream (rows, blocks, chunk_fts), in `finish` (with the indexes a load builds at its end) and in the
tail (COMMIT, the FTS5 merge, VACUUM where it runs, the switch to WAL, fsync), with the CPU of the statements that
take the most of it, and the store's pages.

    python bench/sqlite_chunk_load.py --baseline /path/to/other/checkout --chunks 100000 --reps 3
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import on_path

ROOT = Path(__file__).resolve().parents[1]
on_path("src", "adapters/common", "bench")

from synthetic import Vocabulary, write_bundle  # noqa: E402

CHILD = """import json, sys, time, orjson
tree, lines, store = sys.argv[1:4]
sys.path[:0] = [tree + "/adapters/sqlite", tree + "/adapters/common", tree + "/src"]
from pathlib import Path
from memdock_sqlite import bulk, db, facts, implied, ingest
from memdock.sdk import gc_pace
records = [orjson.loads(line) for line in open(lines, "rb")]
groups = [("chunk", records[k : k + 5000]) for k in range(0, len(records), 5000)]
clock, spent = time.thread_time, {}
def timed(call):
    def run(sql, *args):
        t = clock()
        try:
            return call(sql, *args)
        finally:
            key = " ".join(sql.split()[:3])
            spent[key] = spent.get(key, 0.0) + clock() - t
    return run
out = {}
with gc_pace.paced():
    t0 = clock()
    with bulk.load(Path(store)) as conn, db.transaction(conn, "indexing"):
        conn.execute, conn.executemany = timed(conn.execute), timed(conn.executemany)
        derived = implied.Implied(lambda ids: None)
        run = ingest.Ingest(conn, on_commit=derived.on_commit, batch_size=bulk.BATCH)
        run.implied = derived
        for rtype, batch in derived.groups(iter(groups)):
            run.run(rtype, batch)
        derived.release()
        t1 = clock(); out["stream"] = t1 - t0
        run.finish()
        facts.refresh_unresolved(conn)
        t2 = clock(); out["finish"] = t2 - t1
    out["tail"] = clock() - t2
out["statements"] = {k: round(v, 3) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])[:6]}
import sqlite3
out["pages"] = sqlite3.connect(Path(store) / db.DB_NAME).execute("PRAGMA page_count").fetchone()[0]
print(json.dumps(out))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of memdock (say, main's)")
    ap.add_argument("--chunks", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="chunk-load-") as tmp:
        work = Path(tmp)
        write_bundle(work / "bundle", Vocabulary(work), args.chunks, random.Random(11))
        lines = next((work / "bundle").glob("chunk-*.jsonl"))
        print(f"{args.chunks:,} chunks; main-thread CPU seconds; load {Path('/proc/loadavg').read_text().split()[0]}")
        for rep in range(args.reps):
            for name, tree in (("this", ROOT), ("baseline", args.baseline.resolve())):
                store = work / f"store-{name}-{rep}"
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(tree), str(lines), str(store)],
                    check=True,
                    capture_output=True,
                    text=True,
                )
                got = json.loads(done.stdout)
                total = got["stream"] + got["finish"] + got["tail"]
                print(
                    f"rep {rep} {name:8s} total {total:.3f} stream {got['stream']:.3f} finish {got['finish']:.3f} "
                    f"tail {got['tail']:.3f} pages {got['pages']} {got['statements']}"
                )
    print(f"load {Path('/proc/loadavg').read_text().split()[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
