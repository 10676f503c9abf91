"""The same watercooler entries through sqlite, graphiti, mem0 (extraction on and off), OpenMemory and MemU, in one
run.

    python bench/frameworks.py [--entries 40] [--queries 50] [--only sqlite,mem0-infer,...]

Every model call goes to one deterministic stand-in on loopback (real HTTP, no thinking time): graphiti's
structured-output requests are answered by tests/graphiti/fake_llm.py, mem0's extraction prompt by
tests/mem0/fake_mem0_llm.py, MemU's extraction and category summary prompts by tests/memu/fake_memu_llm.py,
embeddings by a hashed bag of words (64-d). OpenMemory is the tests' loopback
server (tests/openmemory/fake_openmemory.py, no mem0 behind it), so its row measures the adapter and HTTP only.
Printed per backend: index wall time, seconds and LLM calls per entry (counted at the stand-in), and query
p50/p99 through a worker already started, in milliseconds. A backend whose adapter is not installed is skipped,
saying so.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("bench", "tests/memu", "tests/openmemory", "tests/mem0", "tests/graphiti", "tests", "src")

from fake_llm import respond as graphiti_respond  # noqa: E402
from fake_mem0_llm import EXTRACTOR_MARK, MemoryExtractor  # noqa: E402
from fake_memu_llm import MemUStandIn  # noqa: E402
from fake_openmemory import FakeOpenMemory  # noqa: E402
from graphiti import latency, subset  # noqa: E402  (bench/graphiti.py)
from support.openai_loopback import OpenAILoopback  # noqa: E402

from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DATA = (
    Path(os.environ.get("MEMDOCK_SHARED_DATA") or ROOT.parent / "shared" / "data") / "watercooler_threads" / "project"
)
BACKENDS = ("sqlite", "graphiti", "mem0-infer", "mem0-raw", "openmemory", "memu")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=40)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--only", default=",".join(BACKENDS), help="comma-separated subset of " + ", ".join(BACKENDS))
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the watercooler corpus at {DATA}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-frameworks-"))
    import_corpus(sorted(DATA.glob("*.md")), "watercooler", tmp / "corpus")
    chunk_bundle(tmp / "corpus", tmp / "chunks")
    bundle, queries = subset(tmp / "chunks", tmp / "subset", args.entries)
    queries = (queries * (args.queries // max(1, len(queries)) + 1))[: args.queries]
    registry = Registry(use_entry_points=False)
    mem0_extractor = MemoryExtractor()
    memu = MemUStandIn()

    def chat(body: dict) -> str | dict:
        system = str((body.get("messages") or [{}])[0].get("content", ""))
        if memu.answers(body):
            return memu(body)
        return mem0_extractor(body) if EXTRACTOR_MARK in system else graphiti_respond(body)

    rows, n = [], args.entries
    with OpenAILoopback(chat=chat) as llm, FakeOpenMemory() as openmemory:
        models = {"llm_base_url": llm.base_url, "llm_model": "loopback", "embedding_model": "hash-64"}
        configs = {
            "sqlite": ("sqlite", {}),
            "graphiti": ("graphiti", models),
            "mem0-infer": ("mem0", {**models, "embedding_dim": 64, "infer": True}),
            "mem0-raw": ("mem0", {**models, "embedding_dim": 64, "infer": False}),
            "openmemory": ("openmemory", {"server_url": openmemory.url}),
            "memu": ("memu", models),
        }
        for label in [b for b in args.only.split(",") if b]:
            adapter, cfg = configs[label]
            d = registry.get(adapter)
            if d.runtime.get("requirements") and not d.venv.exists():
                print(f"{label}: skipped, not installed (memdock adapters install {adapter})", flush=True)
                continue
            b = SubprocessBackend(d, tmp / f"store-{label}", config=cfg, workers=1)
            chats = sum(1 for p in llm.paths() if p.endswith("/chat/completions"))
            t = time.perf_counter()
            result = b.index(bundle)
            wall = time.perf_counter() - t
            calls = sum(1 for p in llm.paths() if p.endswith("/chat/completions")) - chats
            b.query(queries[0], limit=10)  # the worker's start (importing mem0 or MemU, opening a store) is not a query
            p50, p99 = latency(b, queries)
            b.close()
            rows.append((label, wall, calls, p50, p99))
            print(f"{label}: indexed {result.indexed} in {wall:.2f}s", flush=True)
    print(f"\n{n} watercooler entries, {len(queries)} queries (entry titles), loopback LLM and embedder")
    print(f"{'backend':12} {'index s':>8} {'s/entry':>8} {'LLM calls/entry':>16} {'q p50 ms':>9} {'q p99 ms':>9}")
    for label, wall, calls, p50, p99 in rows:
        print(f"{label:12} {wall:8.2f} {wall / n:8.3f} {calls / n:16.2f} {p50:9.2f} {p99:9.2f}")


if __name__ == "__main__":
    main()
