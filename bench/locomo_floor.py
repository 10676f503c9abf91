"""The floor of the retrieval signals available offline on LoCoMo dev: what bm25 and MiniLM could reach at best.

    pip install -e '.[bench,embeddings]'
    OMP_NUM_THREADS=1 HF_HUB_OFFLINE=1 python bench/locomo_floor.py [--categories multi-hop,open-domain]

For every evidence turn memdock's bm25 defaults leave outside the top 10, its rank by the question's MiniLM cosine
(all-MiniLM-L6-v2 over "speaker: text", as bench/locomo.py's peers embed it) among its conversation's turns, and
among the named speaker's turns where the question names one of the two speakers. Then recall of oracles, each an
upper bound a real system cannot reach without knowing the answer:
- "better of two": per question, the better R@k of memdock bm25's top k and MiniLM's top k;
- "best fusion": per question, the best of a weighted reciprocal-rank fusion of the two rankings over a grid of
  weights and constants (bm25's ranking: its top 10, then its top 100 for the ranks after);
- "named speaker by MiniLM": a question naming one speaker ranks that speaker's turns alone by cosine (the others
  all turns by cosine);
- "any of the above": per question, the best of all of them;
- "one fusion per category": each category's questions fused with the weight and constant best for that category
  (in-sample), what a rule that knew every question's category without error could reach.
If even the last stays under a target, no fusion of these two signals reaches it.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from _common import on_path

on_path("src", "bench")

from locomo import (  # noqa: E402
    CATEGORIES,
    KS,
    Corpus,
    embed_cached,
    index_stores,
    questions_of,
    recall,
    run_sqlite,
    speaker_turns,
    turns_behind,
)

from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

TARGETS = {"overall": (0.72, 0.82), "multi-hop": (None, 0.55), "temporal": (None, 0.88), "open-domain": (None, 0.45)}
WEIGHTS = [i / 10 for i in range(11)]
RRF_KS = (1, 10, 60)
DEEP = 100


def deep_ranked(stores: dict[str, Path], questions: list[dict], top: list[list[str]]) -> list[list[str]]:
    """bm25's ranking past the page: the defaults' top 10, then the turns of a query for DEEP hits in its order."""
    out: dict[int, list[str]] = {}
    for sid, store in stores.items():
        backend = SubprocessBackend(Registry().get("sqlite"), store, workers=1, config={}, timeouts={"query": 600})
        for i, q in enumerate(questions):
            if q["sample"] == sid:
                hits = backend.query(q["text"], limit=DEEP, mode="bm25").hits
                out[i] = list(dict.fromkeys(top[i] + turns_behind(hits)))
        backend.close()
    return [out[i] for i in range(len(questions))]


def speakers_of(corpus: Corpus) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """Each turn's speaker (by entry id) and each conversation's two speakers."""
    by_turn: dict[str, str] = {}
    pair: dict[str, tuple[str, str]] = {}
    for sample in corpus.samples:
        sid, conv = sample["sample_id"], sample["conversation"]
        pair[sid] = (conv["speaker_a"], conv["speaker_b"])
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                for turn in turns:
                    eid = corpus.entry_of.get((sid, turn["dia_id"]))
                    if eid:
                        by_turn[eid] = turn["speaker"]
    return by_turn, pair


def named_speaker(question: str, pair: tuple[str, str]) -> str | None:
    """The one speaker whose first name the question writes (capitalised); None for both or neither."""
    named = [s for s in pair if re.search(rf"\b{re.escape(s.split()[0])}\b", question)]
    return named[0] if len(named) == 1 else None


def cosine_rankings(questions: list[dict], turns: dict[str, list[tuple[str, str]]], model: str) -> list[list[str]]:
    """Per question, its conversation's turns by the question's MiniLM cosine, best first."""
    import numpy as np

    qvecs = embed_cached([q["text"] for q in questions], model)
    mats = {
        sid: (np.stack(embed_cached([t for _, t in docs], model)), [e for e, _ in docs]) for sid, docs in turns.items()
    }
    out = []
    for q, v in zip(questions, qvecs):
        mat, entries = mats[q["sample"]]
        out.append([entries[j] for j in np.argsort(-(mat @ v), kind="stable")])
    return out


def fused(a: list[str], b: list[str], w: float, k: int) -> list[str]:
    """Weighted reciprocal-rank fusion: (1 - w) / (k + rank in A) + w / (k + rank in B), best first."""
    value: dict[str, float] = defaultdict(float)
    for weight, ranking in ((1 - w, a), (w, b)):
        for r, e in enumerate(ranking, 1):
            value[e] += weight / (k + r)
    return sorted(value, key=lambda e: -value[e])


def best_of(evidence: set[str], rankings: list[list[str]]) -> dict[int, float]:
    return {k: max(recall(r, evidence, k) for r in rankings) for k in KS}


def oracles(questions: list[dict], bm25: list, deep: list, cos: list, speaker_cos: list) -> dict[str, list]:
    """Per system, each question's {k: recall}; the oracles pick per question (and per k) what reaches most."""
    out: dict[str, list] = defaultdict(list)
    each: dict[tuple[float, int], list] = defaultdict(list)
    for q, top, d, c, s in zip(questions, bm25, deep, cos, speaker_cos):
        ev = q["evidence"]
        fusions = [fused(d, c, w, k) for w in WEIGHTS for k in RRF_KS]
        for (w, rrf_k), f in zip([(w, k) for w in WEIGHTS for k in RRF_KS], fusions):
            each[(w, rrf_k)].append({k: recall(f, ev, k) for k in KS})
        out["memdock bm25 defaults"].append({k: recall(top, ev, k) for k in KS})
        out["MiniLM, all turns"].append({k: recall(c, ev, k) for k in KS})
        out["MiniLM, named speaker's turns"].append({k: recall(s, ev, k) for k in KS})
        out["oracle: better of two"].append(best_of(ev, [top, c]))
        out["oracle: best fusion"].append(best_of(ev, [top, *fusions]))
        out["oracle: any of the above"].append(best_of(ev, [top, c, s, *fusions]))
    (w, rrf_k), scores = max(each.items(), key=lambda item: statistics.mean(v[10] for v in item[1]))
    out[f"one fusion for all, w={w:g} k={rrf_k} (in-sample)"] = scores
    out["one fusion per category (category known, in-sample)"] = per_category(questions, each)
    return out


def per_category(questions: list[dict], each: dict[tuple[float, int], list]) -> list:
    """Each question scored by the fusion best over its own category's questions: what any rule that reads a
    question's category off the question (a classifier that never errs) could reach with these two signals."""
    best: dict[int, tuple[float, int]] = {}
    for cat in {q["category"] for q in questions}:
        rows = [i for i, q in enumerate(questions) if q["category"] == cat]
        best[cat] = max(each, key=lambda wk: statistics.mean(each[wk][i][10] for i in rows))
    return [each[best[q["category"]]][i] for i, q in enumerate(questions)]


def print_recall(questions: list[dict], systems: dict[str, list]) -> None:
    groups = [*CATEGORIES.values(), "overall"]
    width = max(len(n) for n in systems) + 2
    print(f"{'R@5 / R@10':<{width}}" + "".join(f"{g:>16}" for g in groups))
    for name, scores in systems.items():
        cells = []
        for g in groups:
            vals = [s for q, s in zip(questions, scores) if g == "overall" or CATEGORIES[q["category"]] == g]
            cells.append(f"{statistics.mean(v[5] for v in vals):.3f} / {statistics.mean(v[10] for v in vals):.3f}")
        print(f"{name:<{width}}" + "".join(f"{c:>16}" for c in cells))
    print(f"{'target':<{width}}" + "".join(f"{_target(g):>16}" for g in groups))


def _target(group: str) -> str:
    r5, r10 = TARGETS.get(group, (None, None))
    return f"{r5 or '-'} / {r10 or '-'}" if r10 else ""


def _spread(ranks: list[int]) -> str:
    if not ranks:
        return "none"
    cuts = " ".join(f"<={c} {sum(r <= c for r in ranks) / len(ranks):.2f}" for c in (10, 20, 50, 100))
    quart = statistics.quantiles(ranks, n=4) if len(ranks) > 1 else [ranks[0]] * 3
    return f"n {len(ranks)}, median {statistics.median(ranks):g} (quartiles {quart[0]:g}..{quart[2]:g}); {cuts}"


def missed_ranks(questions: list[dict], bm25: list, deep: list, cos: list, ctx: tuple, categories: list[int]) -> None:
    """For the evidence turns outside bm25's top 10: their rank by cosine among all turns and the speaker's."""
    by_turn, pair = ctx
    for cat in categories:
        all_r, spk_r, deep_r, not_named, other = [], [], [], 0, 0
        for q, top, d, c in zip(questions, bm25, deep, cos):
            if q["category"] != cat:
                continue
            speaker = named_speaker(q["text"], pair[q["sample"]])
            for e in q["evidence"] - set(top[:10]):
                all_r.append(c.index(e) + 1)
                deep_r.append(d.index(e) + 1 if e in d else 10**6)
                if speaker is None:
                    not_named += 1
                elif by_turn[e] != speaker:
                    other += 1
                else:
                    spk_r.append([t for t in c if by_turn[t] == speaker].index(e) + 1)
        print(f"\n{CATEGORIES[cat]}: {len(all_r)} evidence turns outside bm25's top 10")
        print(f"  rank by cosine among the conversation's turns: {_spread(all_r)}")
        print(f"  rank by cosine among the named speaker's turns: {_spread(spk_r)}")
        print(f"  (question names no single speaker: {not_named}; turn by the other speaker: {other})")
        in_deep = [r for r in deep_r if r <= DEEP + 10]
        print(f"  among bm25's first {DEEP} hits: {len(in_deep)} of {len(deep_r)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="embedding model directory or gt- package name")
    ap.add_argument("--categories", default="multi-hop,open-domain", help="categories whose missed turns to rank")
    args = ap.parse_args()
    names = {v: k for k, v in CATEGORIES.items()}
    bad = [c for c in args.categories.split(",") if c not in names]
    if bad:
        raise SystemExit(f"--categories: unknown {bad}; expected some of {', '.join(names)}")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="memdock-locomo-floor-") as tmp_s:
        tmp = Path(tmp_s)
        corpus = Corpus(tmp, "on", pooled=False)
        questions = questions_of(corpus, defaultdict(int))
        stores, _ = index_stores(corpus.bundles, tmp / "bm25", {})
        bm25, _ = run_sqlite(stores, questions, {}, "bm25")
        deep = deep_ranked(stores, questions, bm25)
    by_turn, pair = speakers_of(corpus)
    cos = cosine_rankings(questions, speaker_turns(corpus), args.model)
    speaker_cos = []
    for q, c in zip(questions, cos):
        speaker = named_speaker(q["text"], pair[q["sample"]])
        speaker_cos.append([e for e in c if by_turn[e] == speaker] if speaker else c)
    named = sum(named_speaker(q["text"], pair[q["sample"]]) is not None for q in questions)
    print(f"LoCoMo dev: {len(questions)} questions, {named} naming one speaker; cells are R@5 / R@10")
    print_recall(questions, oracles(questions, bm25, deep, cos, speaker_cos))
    missed_ranks(questions, bm25, deep, cos, (by_turn, pair), [names[c] for c in args.categories.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
