"""Recall latency through MemoryService against the adapter called one-shot, same queries, same run.

    python bench/service.py [--queries 300]

LoCoMo (../shared/data/locomo/locomo_dev.json) is imported, chunked and indexed into the sqlite backend;
its questions are the queries. Four ways to answer each, p50 and p99 in milliseconds:
  backend's own    the adapter's search code called in this process on the same database (no protocol)
  worker call      SubprocessBackend.query over a worker process (the protocol, no service)
  MemoryService    the async service: argument checks, capability gate, deadline, worker mode
  one-shot         SubprocessBackend.query starting the adapter process for every call
The target is MemoryService p50 within 2 ms of the backend's own p50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

from memdock_sqlite import packed_text, search, vector_index  # noqa: E402

from memdock import MemoryService  # noqa: E402
from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.connect import open_backend  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"


def pct(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100)[p - 1]


def timed(fn, queries: list[str]) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--limit", type=int, default=10)
    args = ap.parse_args()
    if not DATA.exists():
        print(f"LoCoMo not found at {DATA}", file=sys.stderr)
        return 2
    questions = [qa["question"] for s in json.loads(DATA.read_text()) for qa in s["qa"]][: args.queries]
    with tempfile.TemporaryDirectory(prefix="memdock-bench-service-") as tmp_s:
        tmp = Path(tmp_s)
        import_corpus([DATA], "chat", tmp / "corpus")
        chunk_bundle(tmp / "corpus", tmp / "chunks")
        store = tmp / "store"
        descriptor = Registry().get("sqlite")
        with SubprocessBackend(descriptor, store) as b:
            b.index(tmp / "chunks")

        conn = sqlite3.connect(f"file:{store / 'data' / 'memory.sqlite'}?mode=ro", uri=True)
        packed_text.register(conn)
        index = vector_index.VectorIndex()
        own = timed(
            lambda q: search.run(conn, {"text": q, "limit": args.limit}, embedder=None, vectors=index, identity=None),
            questions,
        )

        with SubprocessBackend(descriptor, store, workers=1) as b:
            b.query("warm up")
            worker = timed(lambda q: b.query(q, limit=args.limit), questions)

        async def through_service() -> list[float]:
            async with MemoryService(open_backend("sqlite", data_dir=store, workers=1), workers=1) as s:
                await s.query("warm up")
                out = []
                for q in questions:
                    t = time.perf_counter()
                    await s.query(q, limit=args.limit)
                    out.append((time.perf_counter() - t) * 1000)
                return out

        service = asyncio.run(through_service())
        with SubprocessBackend(descriptor, store) as b:
            oneshot = timed(lambda q: b.query(q, limit=args.limit), questions[: max(50, args.queries // 5)])

    rows = [
        ("backend's own (in-process)", own),
        ("worker call (no service)", worker),
        ("MemoryService", service),
        ("one-shot adapter", oneshot),
    ]
    print(
        f"{len(questions)} LoCoMo questions against {len(json.loads(DATA.read_text()))} conversations; limit "
        f"{args.limit}"
    )
    print(f"{'':<28} {'p50 ms':>8} {'p99 ms':>8}")
    for name, values in rows:
        print(f"{name:<28} {pct(values, 50):>8.2f} {pct(values, 99):>8.2f}")
    print(
        f"MemoryService p50 over the backend's own: {pct(service, 50) - pct(own, 50):+.2f} ms (target <= 2 ms); "
        f"one-shot / service p50: {pct(oneshot, 50) / pct(service, 50):.0f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
