"""The graphiti adapter beside sqlite on the same watercooler entries: where index time goes, and query latency.

    python bench/graphiti.py [--entries 60] [--queries 50]

Needs `memdock adapters install graphiti`. The LLM and embedder are the tests' deterministic stand-in on
loopback (tests/graphiti/fake_llm.py over real HTTP), so the figures are graphiti's and FalkorDB's own cost
plus HTTP round trips, not a model's thinking time. Printed per backend: index wall time and seconds per
episode; for graphiti the split between LLM calls, embedding calls and database queries (summed call time;
calls overlap, so the parts can exceed the wall); then query p50 and p99 through a worker, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("tests/graphiti", "tests", "src")

from fake_llm import respond  # noqa: E402
from support.openai_loopback import OpenAILoopback  # noqa: E402

from memdock.bundle import BundleReader, BundleWriter  # noqa: E402
from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "watercooler_threads" / "project"


def subset(chunks: Path, out: Path, entries: int) -> tuple[Path, list[str]]:
    """The first ENTRIES entries (with their threads and chunks) of a chunks bundle, and their titles as queries."""
    r = BundleReader(chunks)
    keep = [e for _, e in zip(range(entries), r.records("entry"))]
    ids, threads = {e["id"] for e in keep}, {e["thread_id"] for e in keep}
    with BundleWriter(out, "chunks") as w:
        for t in r.records("thread"):
            if t["id"] in threads:
                w.write("thread", t)
        for e in keep:
            w.write("entry", e)
        for c in r.records("chunk"):
            if c["entry_id"] in ids:
                w.write("chunk", c)
    return out, [e.get("title") or e["body"][:60] for e in keep]


def latency(b: SubprocessBackend, queries: list[str]) -> tuple[float, float]:
    times = []
    for q in queries:
        t = time.perf_counter()
        b.query(q, limit=10)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), statistics.quantiles(times, n=100)[98]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=60)
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the watercooler corpus at {DATA}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-graphiti-"))
    import_corpus(sorted(DATA.glob("*.md")), "watercooler", tmp / "corpus")
    chunk_bundle(tmp / "corpus", tmp / "chunks")
    bundle, queries = subset(tmp / "chunks", tmp / "subset", args.entries)
    queries = (queries * (args.queries // max(1, len(queries)) + 1))[: args.queries]
    registry = Registry(use_entry_points=False)
    with OpenAILoopback(chat=respond) as llm:
        config = {"llm_base_url": llm.base_url, "llm_model": "loopback", "embedding_model": "hash-64"}
        rows = []
        for name, cfg in (("sqlite", {}), ("graphiti", config)):
            b = SubprocessBackend(registry.get(name), tmp / f"store-{name}", config=cfg, workers=1)
            t = time.perf_counter()
            result = b.index(bundle)
            wall = time.perf_counter() - t
            p50, p99 = latency(b, queries)
            b.close()
            rows.append((name, wall, result.details.get("time"), p50, p99))
            print(f"{name}: indexed {result.indexed} in {wall:.2f}s", flush=True)
    n = args.entries
    print(
        f"\n{n} watercooler entries, {len(queries)} queries (entry titles), loopback LLM: {len(llm.requests)} HTTP "
        "requests"
    )
    print(
        f"{'backend':10} {'index s':>8} {'s/entry':>8} {'llm s':>7} {'embed s':>8} {'db s':>6} "
        f"{'calls llm/emb/db':>18} {'q p50 ms':>9} {'q p99 ms':>9}"
    )
    for name, wall, split, p50, p99 in rows:
        s = split or {}
        calls = (
            f"{s.get('llm_calls', '-')}/{s.get('embedding_calls', '-')}/{s.get('database_calls', '-')}" if s else "-"
        )
        print(
            f"{name:10} {wall:8.2f} {wall / n:8.3f} {s.get('llm_s', 0):7.2f} {s.get('embedding_s', 0):8.2f} "
            f"{s.get('database_s', 0):6.2f} {calls:>18} {p50:9.2f} {p99:9.2f}"
        )


if __name__ == "__main__":
    main()
