"""The sqlite adapter at 10k, 100k and 1M chunks: index throughput, query latency through worker mode,
and the same queries run in-process on the same database (the floor the protocol adds to).

    python bench/sqlite.py [--scales 10000,100000,1000000] [--queries 1000]

Chunks are synthetic but shaped like the shared corpora: ~120 words each, drawn with the word frequencies
of every text in ../shared/data (watercooler, LoCoMo, IRC), with authors, roles and times. Queries are
1-4 words drawn from the same vocabulary, mid-frequency words more often (a query of stopwords tells nothing).
Index throughput is the whole `SubprocessBackend.index` path: ledger, delta bundle, adapter, commits.
The first --agreement queries are also run without narrowing (see adapters/sqlite/memdock_sqlite/candidates.py):
`unnarrowed p50` is their latency that way, `narrowed` the share of them the budget narrowed, and `kept` the
share of the unnarrowed top 10 the narrowed search returned, for narrowed queries of one word and of more.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src")
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))
sys.path.insert(0, str(ROOT / "adapters" / "common"))
sys.path.insert(0, str(ROOT / "bench"))

from memdock_sqlite import candidates, fts, packed_text, search, vector_index  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] if len(values) > 1 else values[0]


def inprocess(db: Path, texts: list[str], agreement: int) -> dict[str, list[float]]:
    """In this process, on the same database: the adapter's own search code (the floor under worker mode); FTS5's
    BM25 top 10 with its rows alone (what SQLite itself costs); and, for the first AGREEMENT queries, the search
    without narrowing (candidates.py's budget lifted: every chunk holding a query word BM25-scored, as before
    narrowing existed), with the share of its top 10 the narrowed search keeps, for queries of one word and of
    several that were narrowed."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    packed_text.register(conn)
    index = vector_index.VectorIndex()
    out: dict[str, list[float]] = {"adapter": [], "bare": [], "whole": [], "one word": [], "several words": []}
    budget = candidates.BUDGET
    for i, text in enumerate(texts):
        t = time.perf_counter()
        narrowed = search.run(conn, {"text": text, "limit": 10}, embedder=None, vectors=index, identity=None)
        out["adapter"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        ranked = candidates.bm25_ranking(conn, fts.match_expression(text), None, 10)
        marks = ",".join("?" * len(ranked))
        conn.execute(f"SELECT * FROM chunks WHERE rowid IN ({marks})", [r[0] for r in ranked]).fetchall()
        out["bare"].append((time.perf_counter() - t) * 1000)
        if i < agreement:
            candidates.BUDGET = 10**12
            t = time.perf_counter()
            whole = search.run(conn, {"text": text, "limit": 10}, embedder=None, vectors=index, identity=None)
            out["whole"].append((time.perf_counter() - t) * 1000)
            candidates.BUDGET = budget
            if "reason" in narrowed:
                a, b = {h["id"] for h in narrowed["hits"]}, {h["id"] for h in whole["hits"]}
                kind = "one word" if len(fts.terms(text)) == 1 else "several words"
                out[kind].append(len(a & b) / max(len(a), len(b), 1))
    conn.close()
    return out


def bench(n: int, vocab: Vocabulary, nq: int, tmp: Path, agreement: int) -> dict:
    rng = random.Random(n)
    bundle = tmp / f"chunks-{n}"
    t = time.perf_counter()
    write_bundle(bundle, vocab, n, rng)
    write_s = time.perf_counter() - t
    backend = SubprocessBackend(Registry().get("sqlite"), tmp / f"store-{n}", workers=1, timeouts={"index": 7200})
    t = time.perf_counter()
    backend.index(bundle)
    index_s = time.perf_counter() - t
    texts = vocab.queries(nq, rng)
    for text in texts[:20]:
        backend.query(text)
    worker = []
    for text in texts:
        t = time.perf_counter()
        backend.query(text, limit=10)
        worker.append((time.perf_counter() - t) * 1000)
    backend.close()
    db = tmp / f"store-{n}" / "data" / "memory.sqlite"
    measured = inprocess(db, texts, agreement)
    direct, bare, whole = measured["adapter"], measured["bare"], measured["whole"]
    one, several = measured["one word"], measured["several words"]
    return {
        "n": n,
        "write_s": write_s,
        "index_s": index_s,
        "rate": n / index_s,
        "db_mb": db.stat().st_size / 1e6,
        "worker_p50": pct(worker, 50),
        "worker_p99": pct(worker, 99),
        "direct_p50": pct(direct, 50),
        "direct_p99": pct(direct, 99),
        "bare_p50": pct(bare, 50),
        "bare_p99": pct(bare, 99),
        "whole_p50": pct(whole, 50) if whole else float("nan"),
        "narrowed": (len(one) + len(several)) / max(len(whole), 1),
        "kept_one": statistics.fmean(one) if one else float("nan"),
        "kept_several": statistics.fmean(several) if several else float("nan"),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--scales", default="10000,100000", help="comma-separated chunk counts (add 1000000 for the full run)"
    )
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument(
        "--agreement", type=int, default=200, help="queries also run without narrowing, to compare (slow at 1M)"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdock-bench-sqlite-") as tmp_s:
        tmp = Path(tmp_s)
        vocab = Vocabulary(tmp)
        print(f"vocabulary: {len(vocab.words)} words; {args.queries} queries of 1-4 words; latency in ms")
        print(
            f"{'chunks':>9} {'index s':>8} {'chunks/s':>9} {'db MB':>7} {'worker p50':>11} {'p99':>7} "
            f"{'in-process p50':>15} {'p99':>7} {'bm25 alone p50':>15} {'p99':>7} {'unnarrowed p50':>15} "
            f"{'narrowed':>9} {'kept, 1 word':>13} {'kept, more':>11}"
        )
        for n in (int(x) for x in args.scales.split(",")):
            r = bench(n, vocab, args.queries, tmp, args.agreement)
            print(
                f"{r['n']:>9} {r['index_s']:>8.1f} {r['rate']:>9.0f} {r['db_mb']:>7.0f} {r['worker_p50']:>11.2f} "
                f"{r['worker_p99']:>7.2f} {r['direct_p50']:>15.2f} {r['direct_p99']:>7.2f} {r['bare_p50']:>15.2f} "
                f"{r['bare_p99']:>7.2f} {r['whole_p50']:>15.2f} {r['narrowed']:>9.0%} {r['kept_one']:>13.2f} "
                f"{r['kept_several']:>11.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
