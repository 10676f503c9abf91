"""Chunk vectors at scale: the sqlite adapter's vector index beside a float32 matrix and sqlite-vec, in one run.

    python bench/vectors.py [--scales 100000] [--queries 200]      # add 1000000 to --scales for the full run

`pip install -e '.[bench]'` brings sqlite-vec and pysqlite3-binary: this machine's Python has a `sqlite3` built
without extension loading, so sqlite-vec is loaded into pysqlite3's SQLite. Every system gets the same random unit
384-d float32 vectors and the same queries, and answers the top 100 by cosine (the adapter's candidate count for
hybrid search). memdock: float32 blobs in a `chunk_vectors` table, as the adapter stores them, searched with its
`VectorIndex` (int8 codes in memory, exact re-scoring from the blobs, loaded on the first query). float32 matrix:
the same table read into one NumPy matrix (row by row into a preallocated array, the cheapest load), one product
per query: exact brute force, what the adapter did before the codes. sqlite-vec: a `vec0` table, brute force inside
SQLite. Each system runs in a process of its own, so its peak RSS is its own: store (insert and commit), first
query (loads happen there), query p50/p99 after it, peak RSS, database size, and how much of the float32 matrix's
top 100 the system returns (1.00 for an exact search).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, on_path

on_path("src")
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))
sys.path.insert(0, str(ROOT / "adapters" / "common"))

DIM = 384
K = 100
BATCH = 10_000
MODEL = "bench-384"


def vectors(n: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    for start in range(0, n, BATCH):
        block = rng.standard_normal((min(BATCH, n - start), DIM), dtype=np.float32)
        yield start, block / np.linalg.norm(block, axis=1, keepdims=True)


def store_blobs(folder: Path, n: int):
    """N vectors as the adapter stores them: (seconds to insert and commit, the open database)."""
    import sqlite3

    db = sqlite3.connect(folder / "memdock.sqlite")
    db.execute("CREATE TABLE chunk_vectors(rowid INTEGER PRIMARY KEY, model TEXT NOT NULL, vec BLOB NOT NULL)")
    db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)")
    t = time.perf_counter()
    for start, block in vectors(n, 1):
        rows = ((start + i + 1, MODEL, block[i].astype("<f4").tobytes()) for i in range(len(block)))
        db.executemany("INSERT INTO chunk_vectors VALUES (?, ?, ?)", rows)
    db.commit()
    return time.perf_counter() - t, db


def memdock_system(folder: Path, n: int) -> tuple[float, Callable[[bytes], list]]:
    from memdock_sqlite.vector_index import VectorIndex

    stored, db = store_blobs(folder, n)
    index = VectorIndex()
    return stored, lambda q: index.search(db, MODEL, "bench", q, K)


def matrix_system(folder: Path, n: int) -> tuple[float, Callable[[bytes], list]]:
    import numpy as np

    stored, db = store_blobs(folder, n)
    held: list = []

    def search(query: bytes) -> list:
        if not held:
            matrix = np.empty((n, DIM), dtype="<f4")
            for i, (vec,) in enumerate(db.execute("SELECT vec FROM chunk_vectors ORDER BY rowid")):
                matrix[i] = np.frombuffer(vec, dtype="<f4")
            held.append(matrix)
        sims = held[0] @ np.frombuffer(query, dtype="<f4")
        top = np.argpartition(-sims, K - 1)[:K]
        top = top[np.argsort(-sims[top])]
        return [(int(i) + 1, float(sims[i])) for i in top]

    return stored, search


def sqlite_vec_system(folder: Path, n: int) -> tuple[float, Callable[[bytes], list]]:
    import sqlite_vec
    from pysqlite3 import dbapi2 as sqlite3

    db = sqlite3.connect(str(folder / "vec.sqlite"))
    db.enable_load_extension(True)
    sqlite_vec.load(db)
    db.enable_load_extension(False)
    db.execute(f"CREATE VIRTUAL TABLE vecs USING vec0(embedding float[{DIM}] distance_metric=cosine)")
    t = time.perf_counter()
    for start, block in vectors(n, 1):
        rows = ((start + i + 1, block[i].astype("<f4").tobytes()) for i in range(len(block)))
        db.executemany("INSERT INTO vecs(rowid, embedding) VALUES (?, ?)", rows)
    db.commit()
    stored = time.perf_counter() - t
    sql = "SELECT rowid, 1 - distance FROM vecs WHERE embedding MATCH ? AND k = ? ORDER BY distance"
    return stored, lambda q: db.execute(sql, (q, K)).fetchall()


SYSTEMS = {"memdock": memdock_system, "float32 matrix": matrix_system, "sqlite-vec": sqlite_vec_system}


def child(system: str, n: int, nq: int, folder: Path) -> None:
    """One system in this process: prints a JSON line of its figures and each query's top K."""
    import numpy as np

    rng = np.random.default_rng(2)
    qs = rng.standard_normal((nq + 1, DIM), dtype=np.float32)
    queries = [(q / np.linalg.norm(q)).astype("<f4").tobytes() for q in qs]
    stored, search = SYSTEMS[system](folder, n)
    t = time.perf_counter()
    search(queries[0])
    first = time.perf_counter() - t
    lat, tops = [], []
    for q in queries[1:]:
        t = time.perf_counter()
        hits = search(q)
        lat.append(time.perf_counter() - t)
        tops.append([int(rid) for rid, _ in hits])
    lat.sort()
    size = sum(f.stat().st_size for f in folder.iterdir())
    print(
        json.dumps(
            {
                "stored": stored,
                "first": first,
                "p50": statistics.median(lat),
                "p99": lat[min(len(lat) - 1, int(0.99 * len(lat)))],
                "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "db_mb": size / 1e6,
                "tops": tops,
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", default="100000", help="comma-separated vector counts (add 1000000 for the full run)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--child", nargs=3, metavar=("SYSTEM", "N", "FOLDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.queries, Path(args.child[2]))
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    print(
        f"{'vectors':>9} {'system':<14} {'store s':>8} {'first q s':>9} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'peak RSS MB':>11} {'db MB':>8} {'∩exact@100':>10}"
    )
    for n in (int(x) for x in args.scales.split(",")):
        results = {}
        for system in SYSTEMS:
            with tempfile.TemporaryDirectory(prefix=f"memdock-bench-vectors-{system}-") as folder:
                cmd = [sys.executable, __file__, "--queries", str(args.queries), "--child", system, str(n), folder]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                results[system] = json.loads(out.strip().splitlines()[-1])
        exact = results["float32 matrix"]["tops"]
        for system, r in results.items():
            agree = statistics.mean(len(set(a) & set(b)) / max(1, len(a)) for a, b in zip(exact, r["tops"]))
            print(
                f"{n:>9,} {system:<14} {r['stored']:>8.1f} {r['first']:>9.2f} {r['p50'] * 1e3:>8.2f} "
                f"{r['p99'] * 1e3:>8.2f} {r['rss_mb']:>11.0f} {r['db_mb']:>8.1f} {agree:>10.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
