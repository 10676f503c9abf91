"""Lexical search side by side on the same chunks, in one run: memdock on sqlite and on tantivy (through a
worker and through `memdock.Memory`), SQLite FTS5 alone (the engine under memdock sqlite), raw tantivy-py, and
bm25s.

    pip install -e '.[bench]' && memdock adapters install tantivy
    python bench/lexical.py [--scales 10000,100000[,1000000]] [--queries 500]

For each scale it prints index chunks/s, query p50/p99 in ms, store size, and overlap@10: the share of each
system's top 10 that raw tantivy-py (`∩tv`) and bm25s (`∩bm25s`) also rank in their top 10, averaged over
the queries. memdock's index time is the whole `SubprocessBackend.index` path (ledger, delta bundle, adapter
process, commits); the peers index the same texts from memory in this process. Store sizes include
memdock's ledger. Chunks and queries come from bench/synthetic.py.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import ROOT, on_path

on_path("src", "bench")

from synthetic import Vocabulary, write_bundle  # noqa: E402

from memdock import Memory  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

WARMUP = 20
HEAP = 128_000_000


def pct(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100)[p - 1]


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def timed(search: Callable[[str], list[str]], texts: list[str]) -> tuple[list[float], list[list[str]]]:
    for text in texts[:WARMUP]:
        search(text)
    lat, tops = [], []
    for text in texts:
        t = time.perf_counter()
        tops.append(search(text))
        lat.append((time.perf_counter() - t) * 1000)
    return lat, tops


class Row:
    def __init__(
        self, name: str, index_s: float | None, n: int, store: int | None, lat: list[float], tops: list[list[str]]
    ):
        self.name, self.index_s, self.n, self.store, self.lat, self.tops = name, index_s, n, store, lat, tops


def memdock_rows(name: str, bundle: Path, store: Path, n: int, texts: list[str]) -> list[Row]:
    backend = SubprocessBackend(Registry().get(name), store, workers=1, timeouts={"index": 7200})
    t = time.perf_counter()
    backend.index(bundle)
    index_s = time.perf_counter() - t
    lat, tops = timed(lambda q: [h.id for h in backend.query(q, limit=10).hits], texts)
    backend.close()
    rows = [Row(f"memdock {name} (worker)", index_s, n, size_of(store), lat, tops)]
    with Memory(name, data_dir=store) as memory:
        lat, tops = timed(lambda q: [h.id for h in memory.recall(q, limit=10).hits], texts)
    rows.append(Row(f"memdock {name} (Memory)", None, n, None, lat, tops))
    return rows


def tantivy_index(docs: list[tuple[str, str]], folder: Path) -> tuple[Any, float]:
    """Raw tantivy-py indexing DOCS (id, text) into FOLDER: the index and the seconds it took."""
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(
        "text", stored=True, tokenizer_name="en_stem"
    )  # defaults: positions, for phrase words like "well-known"
    schema = sb.build()
    folder.mkdir()
    t = time.perf_counter()
    index = tantivy.Index(schema, path=str(folder))
    writer = index.writer(HEAP, 0)
    for cid, text in docs:
        writer.add_document(tantivy.Document(id=cid, text=text))
    writer.commit()
    writer.wait_merging_threads()
    return index, time.perf_counter() - t


def tantivy_row(docs: list[tuple[str, str]], folder: Path, texts: list[str]) -> Row:
    index, index_s = tantivy_index(docs, folder)
    index.reload()
    searcher = index.searcher()

    def search(q: str) -> list[str]:
        hits = searcher.search(index.parse_query(re.sub(r"[^\w\s]", " ", q), ["text"]), 10).hits  # "ubuntu's" is syntax
        return [searcher.doc(addr)["id"][0] for _, addr in hits]

    lat, tops = timed(search, texts)
    return Row("tantivy-py (raw)", index_s, len(docs), size_of(folder), lat, tops)


def fts5_row(docs: list[tuple[str, str]], folder: Path, texts: list[str]) -> Row:
    """SQLite FTS5 alone, in this process: the engine under memdock sqlite, with its tokenizer and layout (a content
    table and an external-content FTS5 table, rows inserted a thousand at a time) and FTS5's BM25 top 10."""
    import sqlite3

    sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))

    sys.path.insert(0, str(ROOT / "adapters" / "common"))
    from memdock_sqlite.fts import match_expression

    folder.mkdir()
    db = sqlite3.connect(folder / "fts5.db", isolation_level=None)
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "cache_size = -65536"):
        db.execute(f"PRAGMA {pragma}")
    db.execute("CREATE TABLE chunks(rowid INTEGER PRIMARY KEY, id TEXT, body TEXT)")
    db.execute(
        "CREATE VIRTUAL TABLE chunk_fts USING fts5(body, content='chunks', content_rowid='rowid', "
        "tokenize='porter unicode61 remove_diacritics 2')"
    )
    t = time.perf_counter()
    for start in range(0, len(docs), 1000):
        db.execute("BEGIN")
        batch = [(start + i + 1, cid, text) for i, (cid, text) in enumerate(docs[start : start + 1000])]
        db.executemany("INSERT INTO chunks(rowid, id, body) VALUES (?, ?, ?)", batch)
        db.execute("INSERT INTO chunk_fts(rowid, body) SELECT rowid, body FROM chunks WHERE rowid > ?", (start,))
        db.execute("COMMIT")
    index_s = time.perf_counter() - t
    sql = (
        "SELECT c.id FROM chunk_fts JOIN chunks c ON c.rowid = chunk_fts.rowid WHERE chunk_fts MATCH ? "
        "ORDER BY bm25(chunk_fts) LIMIT 10"
    )

    def search(q: str) -> list[str]:
        match = match_expression(q)
        return [cid for (cid,) in db.execute(sql, [match])] if match else []

    lat, tops = timed(search, texts)
    db.close()
    return Row("sqlite FTS5 alone", index_s, len(docs), size_of(folder), lat, tops)


def bm25s_row(docs: list[tuple[str, str]], folder: Path, texts: list[str]) -> Row:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    t = time.perf_counter()
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([text for _, text in docs], stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    index_s = time.perf_counter() - t
    retriever.save(str(folder))
    lat, tops = timed(bm25s_search(retriever, stemmer, [cid for cid, _ in docs]), texts)
    return Row("bm25s", index_s, len(docs), size_of(folder), lat, tops)


def bm25s_search(retriever: Any, stemmer: Any, ids: list[str]) -> Callable[[str], list[str]]:
    """A bm25s index's top 10 ids for a query (its stopwords and stemmer), hits that scored only."""
    import bm25s

    def search(q: str) -> list[str]:
        tokens = bm25s.tokenize([q], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        found, scores = retriever.retrieve(tokens, k=10, show_progress=False, n_threads=1)
        return [ids[i] for i, s in zip(found[0], scores[0]) if s > 0]

    return search


def overlap(a: list[list[str]], b: list[list[str]]) -> float:
    """Shared hits over the longer list (a query with fewer than 10 matches can still agree fully)."""
    return statistics.fmean(len(set(x) & set(y)) / max(len(x), len(y)) if x or y else 1.0 for x, y in zip(a, b))


def run_scale(n: int, vocab: Vocabulary, nq: int, tmp: Path, systems: list[str]) -> list[Row]:
    rng = random.Random(n)
    bundle = tmp / f"chunks-{n}"
    t = time.perf_counter()
    docs = write_bundle(bundle, vocab, n, rng)
    print(
        f"\n{n:,} chunks ({sum(len(x) for _, x in docs) / 1e6:.1f} MB of text; bundle written in "
        f"{time.perf_counter() - t:.1f} s), {nq} queries",
        flush=True,
    )
    texts = vocab.queries(nq, rng)
    rows: list[Row] = []
    for name in systems:
        started = time.perf_counter()
        if name in ("sqlite", "tantivy"):
            rows += memdock_rows(name, bundle, tmp / f"store-{name}-{n}", n, texts)
        elif name == "tantivy-py":
            rows.append(tantivy_row(docs, tmp / f"tantivy-py-{n}", texts))
        elif name == "bm25s":
            rows.append(bm25s_row(docs, tmp / f"bm25s-{n}", texts))
        elif name == "fts5":
            rows.append(fts5_row(docs, tmp / f"fts5-{n}", texts))
        print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return rows


def report(rows: list[Row]) -> None:
    ref = {r.name: r for r in rows}
    tv, bm = ref.get("tantivy-py (raw)"), ref.get("bm25s")
    raw_rate = tv.n / tv.index_s if tv and tv.index_s else None
    print(
        f"{'system':<26} {'index chunks/s':>14} {'× tv':>6} {'p50 ms':>8} {'p99 ms':>8} {'store MB':>9} "
        f"{'B/chunk':>8} {'∩tv@10':>7} {'∩bm25s@10':>10}"
    )
    for r in rows:
        rate = r.n / r.index_s if r.index_s else None
        print(
            f"{r.name:<26} {f'{rate:,.0f}' if rate else '':>14} "
            f"{f'{rate / raw_rate:.2f}' if rate and raw_rate else '':>6} "
            f"{pct(r.lat, 50):>8.2f} {pct(r.lat, 99):>8.2f} "
            f"{f'{r.store / 1e6:.1f}' if r.store else '':>9} {f'{r.store / r.n:,.0f}' if r.store else '':>8} "
            f"{overlap(r.tops, tv.tops) if tv else float('nan'):>7.2f} "
            f"{overlap(r.tops, bm.tops) if bm else float('nan'):>10.2f}",
            flush=True,
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--scales", default="10000,100000", help="comma-separated chunk counts (add 1000000 for the full run)"
    )
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--systems", default="sqlite,fts5,tantivy,tantivy-py,bm25s", help="comma-separated subset")
    args = ap.parse_args()
    systems = args.systems.split(",")
    if "tantivy" in systems and not Registry().get("tantivy").venv.exists():
        print(
            "the tantivy adapter is not installed (memdock adapters install tantivy); leaving it out", file=sys.stderr
        )
        systems.remove("tantivy")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    with tempfile.TemporaryDirectory(prefix="memdock-bench-lexical-") as tmp_s:
        tmp = Path(tmp_s)
        vocab = Vocabulary(tmp)
        print(f"vocabulary: {len(vocab.words):,} words; queries of 1-4 words; latency per query, top 10")
        for n in (int(x) for x in args.scales.split(",")):
            report(run_scale(n, vocab, args.queries, tmp, systems))
    return 0


if __name__ == "__main__":
    sys.exit(main())
