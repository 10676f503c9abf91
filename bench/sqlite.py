"""The sqlite adapter at 10k, 100k and 1M chunks: index throughput, query latency through worker mode,
and the same queries run in-process on the same database (the floor the protocol adds to).

    python bench/sqlite.py [--scales 10000,100000,1000000] [--queries 1000]

Chunks are synthetic but shaped like the shared corpora: ~120 words each, drawn with the word frequencies
of every text in ../shared/data (watercooler, LoCoMo, IRC), with authors, roles and times. Queries are
1-4 words drawn from the same vocabulary, mid-frequency words more often (a query of stopwords tells nothing).
Index throughput is the whole `SubprocessBackend.index` path: ledger, delta bundle, adapter, commits.
"""

from __future__ import annotations

import argparse
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))

from memdock.bundle import BundleReader, BundleWriter  # noqa: E402
from memdock.ids import content_hash  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402
from memdock_sqlite import fts, search  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
WORDS_PER_CHUNK = 120


def vocabulary(tmp: Path) -> tuple[list[str], list[int]]:
    counts: Counter[str] = Counter()
    for fmt, src in (("watercooler", DATA / "watercooler_threads"), ("chat", DATA / "locomo" / "locomo_dev.json"),
                     ("irc", DATA / "irc" / "dev")):
        if src.exists():
            import_corpus([src], fmt, tmp / f"v-{fmt}")
            for e in BundleReader(tmp / f"v-{fmt}").records("entry"):
                counts.update(re.findall(r"[A-Za-z][A-Za-z'-]+", e["body"].lower()))
    if not counts:
        raise SystemExit(f"no corpora under {DATA}; they live in ../shared/data beside the project")
    words, freqs = zip(*counts.most_common())
    return list(words), list(freqs)


def write_bundle(path: Path, n: int, words: list[str], freqs: list[int], rng: random.Random) -> None:
    authors = ["Codex (lee)", "Claude (maya)", "Gemini (sam)", "devon", "ana", "bo"]
    roles = ["implementer", "critic", "planner", "general"]
    with BundleWriter(path, kind="chunks") as w:
        for i in range(n):
            text = " ".join(rng.choices(words, freqs, k=rng.randint(WORDS_PER_CHUNK // 2, WORDS_PER_CHUNK * 3 // 2)))
            w.write("chunk", {
                "id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": f"thread:{i // 50}", "position": 0,
                "text": text, "start": 0, "end": len(text), "token_count": len(text.split()),
                "content_hash": content_hash(text), "author": authors[i % len(authors)], "role": roles[i % len(roles)],
                "event_time": f"20{20 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
            })


def queries(words: list[str], n: int, rng: random.Random) -> list[str]:
    pool = [w for w in words[50:5000] if w not in fts.STOPWORDS]
    return [" ".join(rng.sample(pool, rng.randint(1, 4))) for _ in range(n)]


def pct(values: list[float], p: float) -> float:
    return statistics.quantiles(values, n=100)[int(p) - 1] if len(values) > 1 else values[0]


def inprocess(db: Path, texts: list[str]) -> list[float]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    lat = []
    for text in texts:
        t = time.perf_counter()
        ranked = search.bm25_ranking(conn, fts.match_expression(text), None, 10)
        marks = ",".join("?" * len(ranked))
        conn.execute(f"SELECT * FROM chunks WHERE rowid IN ({marks})", [r[0] for r in ranked]).fetchall()
        lat.append((time.perf_counter() - t) * 1000)
    conn.close()
    return lat


def bench(n: int, words: list[str], freqs: list[int], nq: int, tmp: Path) -> dict:
    rng = random.Random(n)
    bundle = tmp / f"chunks-{n}"
    t = time.perf_counter()
    write_bundle(bundle, n, words, freqs, rng)
    write_s = time.perf_counter() - t
    backend = SubprocessBackend(Registry().get("sqlite"), tmp / f"store-{n}", workers=1, timeouts={"index": 7200})
    t = time.perf_counter()
    backend.index(bundle)
    index_s = time.perf_counter() - t
    texts = queries(words, nq, rng)
    for text in texts[:20]:
        backend.query(text)
    worker = []
    for text in texts:
        t = time.perf_counter()
        backend.query(text, limit=10)
        worker.append((time.perf_counter() - t) * 1000)
    backend.close()
    db = tmp / f"store-{n}" / "data" / "memory.sqlite"
    direct = inprocess(db, texts)
    return {"n": n, "write_s": write_s, "index_s": index_s, "rate": n / index_s, "db_mb": db.stat().st_size / 1e6,
            "worker_p50": pct(worker, 50), "worker_p99": pct(worker, 99),
            "direct_p50": pct(direct, 50), "direct_p99": pct(direct, 99)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", default="10000,100000", help="comma-separated chunk counts (add 1000000 for the full run)")
    ap.add_argument("--queries", type=int, default=1000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdock-bench-sqlite-") as tmp_s:
        tmp = Path(tmp_s)
        words, freqs = vocabulary(tmp)
        print(f"vocabulary: {len(words)} words; {args.queries} queries of 1-4 words; latency in ms")
        print(f"{'chunks':>9} {'index s':>8} {'chunks/s':>9} {'db MB':>7} {'worker p50':>11} {'p99':>7} "
              f"{'in-process p50':>15} {'p99':>7}")
        for n in (int(x) for x in args.scales.split(",")):
            r = bench(n, words, freqs, args.queries, tmp)
            print(f"{r['n']:>9} {r['index_s']:>8.1f} {r['rate']:>9.0f} {r['db_mb']:>7.0f} {r['worker_p50']:>11.2f} "
                  f"{r['worker_p99']:>7.2f} {r['direct_p50']:>15.2f} {r['direct_p99']:>7.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
