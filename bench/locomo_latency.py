"""Query p50 through `Memory.recall` on LoCoMo-sized stores (one conversation each), BM25 and hybrid, in one run.

    OMP_NUM_THREADS=1 python bench/locomo_latency.py STORES_DIR [--bm25-only] [--hybrid-config JSON]

STORES_DIR holds one memdock store per conversation (as bench/locomo.py builds them; `--keep-embedded` keeps the
embedded ones in .scratch/locomo-emb-on). Every LoCoMo question is asked of its own conversation's store; the
first question per store is a warm-up (worker start, model load) and is not counted. `--bm25-only` asks bm25 alone
with nothing configured, for stores built without embeddings and a box without the embedding extras.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src")

from memdock import Memory  # noqa: E402

DATA = Path(os.environ.get("MEMDOCK_LOCOMO", ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"))


def p50s(stores: Path, mode: str, config: dict | None) -> tuple[float, float, int]:
    lat: list[float] = []
    for sample in json.loads(DATA.read_text()):
        store = stores / sample["sample_id"]
        if not store.exists():
            continue
        with Memory(data_dir=store, config=config, deadline=300) as m:
            questions = [qa["question"] for qa in sample["qa"]]
            m.recall(questions[0], mode=mode)
            for q in questions[1:]:
                t = time.perf_counter()
                m.recall(q, limit=10, mode=mode)
                lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return statistics.median(lat), lat[int(len(lat) * 0.99)], len(lat)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("stores", type=Path)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--bm25-only", action="store_true", help="bm25 with nothing configured; no hybrid run")
    ap.add_argument(
        "--bm25-config", action="append", default=[], metavar="JSON", help="also bm25 with this adapter config"
    )
    ap.add_argument(
        "--hybrid-config", action="append", default=[], metavar="JSON", help="also hybrid with this config added"
    )
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    emb = {"embedding_provider": "sentence-transformers", "embedding_model": args.model, "embedding_threads": 1}
    runs: list[tuple[str, dict | None]] = [("bm25", None)] if args.bm25_only else [("bm25", emb), ("hybrid", emb)]
    runs += [("bm25", json.loads(spec)) for spec in args.bm25_config]
    runs += [("hybrid", emb | json.loads(spec)) for spec in args.hybrid_config]
    for mode, cfg in runs:
        p50, p99, n = p50s(args.stores, mode, cfg)
        extra = {k: v for k, v in (cfg or {}).items() if k not in emb}
        said = f" {json.dumps(extra)}" if extra else ""
        print(f"Memory.recall {mode:<6} p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  ({n} queries){said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
