"""The LeanRAG adapter beside sqlite (and graphiti, where installed) on the same watercooler entries.

    MEMDOCK_LEANRAG_PATH=../LeanRAG python bench/leanrag.py [--entries 30] [--queries 30]

Needs `memdock adapters install leanrag` and a LeanRAG checkout at 8714977. The LLM is the tests'
deterministic stand-in on loopback (tests/leanrag/leanrag_fake_llm.py over real HTTP), the embedder the local
all-MiniLM-L6-v2, so the figures are LeanRAG's own cost (prompts, parsing, UMAP and Gaussian-mixture
clustering, SQLite) plus HTTP round trips, not a model's thinking time. Printed per backend: index wall
time, seconds per chunk, LLM calls per chunk, LeanRAG's time split (LLM, embedding, clustering, store:
summed call time), then query p50 and p99 through a worker. graphiti runs with its own stand-in.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("tests/leanrag", "bench")

from graphiti import DATA, latency, subset  # noqa: E402  (bench/graphiti.py: the same subset and latency helpers)
from leanrag_fake_llm import FakeLLM  # noqa: E402  (tests/leanrag/leanrag_fake_llm.py)
from support.openai_loopback import OpenAILoopback  # noqa: E402

from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=30)
    ap.add_argument("--queries", type=int, default=30)
    args = ap.parse_args()
    checkout = os.environ.get("MEMDOCK_LEANRAG_PATH") or str(ROOT.parent / "LeanRAG")
    data = (
        Path(os.environ["MEMDOCK_SHARED_DATA"]) / "watercooler_threads" / "project"
        if os.environ.get("MEMDOCK_SHARED_DATA")
        else DATA
    )
    if not data.is_dir():
        sys.exit(f"needs the watercooler corpus at {data} (or set MEMDOCK_SHARED_DATA)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-leanrag-"))
    import_corpus(sorted(data.glob("*.md")), "watercooler", tmp / "corpus")
    chunk_bundle(tmp / "corpus", tmp / "chunks")
    bundle, queries = subset(tmp / "chunks", tmp / "subset", args.entries)
    queries = (queries * (args.queries // max(1, len(queries)) + 1))[: args.queries]
    registry = Registry(use_entry_points=False)
    from graphiti import respond  # tests/graphiti/fake_llm.py, put on the path by bench/graphiti.py

    fake = FakeLLM()
    rows = []
    with OpenAILoopback(chat=fake) as llm, OpenAILoopback(chat=respond) as gllm:
        runs = [
            ("sqlite", {}),
            ("leanrag", {"leanrag_path": checkout, "llm_base_url": llm.base_url, "llm_model": "loopback"}),
        ]
        if registry.get("graphiti").venv.exists():
            runs.append(
                ("graphiti", {"llm_base_url": gllm.base_url, "llm_model": "loopback", "embedding_model": "hash-64"})
            )
        else:
            print("graphiti: not installed here (memdock adapters install graphiti), left out", flush=True)
        for name, cfg in runs:
            b = SubprocessBackend(
                registry.get(name),
                tmp / f"store-{name}",
                config=cfg,
                workers=1,
                timeouts={"index": 86400, "idle": 3600},
            )
            t = time.perf_counter()
            result = b.index(bundle)
            wall = time.perf_counter() - t
            p50, p99 = latency(b, queries)
            b.close()
            chunks = result.indexed.get("chunk", 0)
            rows.append((name, wall, chunks, result.details, p50, p99))
            print(f"{name}: indexed {result.indexed} in {wall:.2f}s", flush=True)
    print(f"\n{args.entries} watercooler entries, {len(queries)} queries (entry titles), loopback LLMs")
    print(
        f"{'backend':9} {'chunks':>6} {'index s':>8} {'s/chunk':>8} {'llm/chunk':>9} {'llm s':>7} {'embed s':>8} "
        f"{'cluster s':>9} {'store s':>8} {'q p50 ms':>9} {'q p99 ms':>9}"
    )
    for name, wall, chunks, details, p50, p99 in rows:
        s = details.get("time") or {}
        per = details.get("llm_calls_per_chunk", "-")
        print(
            f"{name:9} {chunks:6} {wall:8.2f} {wall / max(1, chunks):8.3f} {per!s:>9} {s.get('llm_s', 0):7.2f} "
            f"{s.get('embedding_s', 0):8.2f} {s.get('clustering_s', 0):9.2f} "
            f"{s.get('store_s', s.get('database_s', 0)):8.2f} "
            f"{p50:9.2f} {p99:9.2f}"
        )
        if name == "leanrag":
            print(
                f"  leanrag: {s.get('llm_calls')} LLM calls ({dict(fake.calls)}), graph {details.get('graph')}, "
                f"extraction {details.get('seconds_per_chunk')} s per chunk"
            )


if __name__ == "__main__":
    main()
