"""Retrieval on REALTALK, a second set no memdock setting was tuned on: memdock sqlite with its defaults beside bm25s.

    # REALTALK is not in the project: bring its repository (github.com/danny911kr/REALTALK) and export data/
    git clone https://github.com/danny911kr/REALTALK ../REALTALK    # or: git -C SNAPSHOT archive HEAD data | tar x
    pip install -e '.[bench]'             # bm25s and PyStemmer; add the embeddings extra for --hybrid
    OMP_NUM_THREADS=1 python bench/realtalk.py [--data ../REALTALK] [--hybrid] [--split-by-conversation]

How it measures: the same way as bench/locomo.py, through its helpers (bench/realtalk_data.py rewrites each
REALTALK chat into the LoCoMo layout first). Every chat gets its own store (`chat` import, header on, nothing
configured), every turn is one chunk, and recall@k is the share of a question's evidence turns among the turns
behind the top k hits. REALTALK's questions come in three categories, numbered as LoCoMo's 1-3 (multi-hop,
temporal, open-domain); there are no single-hop or adversarial ones. The peer is bm25s (English stopwords,
Snowball stemmer) over "speaker: text" turns, and with --hybrid bm25s + all-MiniLM-L6-v2 fused by reciprocal rank
(k=10) beside memdock hybrid. Nothing is tuned: memdock runs with defaults, the peers as bench/locomo.py runs them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from _common import ROOT, on_path

on_path("src", "bench")

import locomo  # noqa: E402
from locomo_stats import interval, paired  # noqa: E402
from realtalk_data import RealtalkError, find_chats, write_samples  # noqa: E402

DEFAULT = ROOT.parent / "REALTALK"
KS = locomo.KS


def load(data: Path, tmp: Path, stats: dict[str, int]) -> tuple[locomo.Corpus, list[dict]]:
    """The chats at DATA imported and chunked one bundle per chat (locomo.Corpus), and the questions with
    evidence (locomo.questions_of; a question whose evidence names no turn is counted in STATS and left out)."""
    locomo.DATA = write_samples(find_chats(data), tmp / "realtalk.json", stats)
    corpus = locomo.Corpus(tmp, "on", pooled=False)
    return corpus, locomo.questions_of(corpus, stats)


def groups(questions: list[dict]) -> list[str]:
    present = sorted({q["category"] for q in questions})
    return [locomo.CATEGORIES.get(c, f"category {c}") for c in present] + ["overall"]


def values(questions: list[dict], scores: list[dict[int, float]], group: str, k: int) -> list[float]:
    return [s[k] for q, s in zip(questions, scores) if group in ("overall", locomo.CATEGORIES.get(q["category"]))]


def print_table(questions: list[dict], systems: dict[str, list[dict[int, float]]]) -> None:
    """R@5 / R@10 per category and overall, then each figure's bootstrap 95 % interval."""
    names = groups(questions)
    width = max(len(n) for n in systems) + 2
    print(f"{'system':<{width}}" + "".join(f"{g:>18}" for g in names))
    counts = [len(values(questions, [{0: 0.0}] * len(questions), g, 0)) for g in names]
    print(f"{'(n)':<{width}}" + "".join(f"{n:>18}" for n in counts))
    for name, scores in systems.items():
        cells = [tuple(statistics.fmean(values(questions, scores, g, k)) for k in KS) for g in names]
        print(f"{name:<{width}}" + "".join(f"{r5:>10.3f} /{r10:>6.3f}" for r5, r10 in cells))
    for k in KS:
        print(f"\n{'95% interval R@' + str(k):<{width}}" + "".join(f"{g:>18}" for g in names))
        for name, scores in systems.items():
            spans = [interval(values(questions, scores, g, k)) for g in names]
            print(f"{name:<{width}}" + "".join(f"{f'{lo:.3f}..{hi:.3f}':>18}" for lo, hi in spans))


def print_paired(questions: list[dict], label: str, idea: list[dict[int, float]], base: list[dict]) -> None:
    names = groups(questions)
    for k in KS:
        print(f"{'paired diff R@' + str(k):<{len(label) + 2}}" + "".join(f"{g:>24}" for g in names))
        cells = [paired(values(questions, idea, g, k), values(questions, base, g, k)) for g in names]
        print(f"{label:<{len(label) + 2}}" + "".join(f"{f'{d:+.3f} [{lo:+.3f},{hi:+.3f}]':>24}" for d, lo, hi in cells))


def measure(data: Path, hybrid: bool, model: str) -> tuple[list[dict], dict[str, list], dict[str, int], list[str]]:
    """Each system's top-10 turns per question, the evidence fixes, and memdock's index and query times."""
    stats: dict[str, int] = defaultdict(int)
    raw: dict[str, list] = {}
    timing: list[str] = []
    with tempfile.TemporaryDirectory(prefix="memdock-realtalk-") as tmp_s:
        tmp = Path(tmp_s)
        corpus, questions = load(data, tmp, stats)
        peers = locomo.run_peers(questions, locomo.speaker_turns(corpus), hybrid, model)
        systems: list[tuple[str, dict, str]] = [("memdock bm25, defaults", {}, "bm25")]
        if hybrid:
            emb = {"embedding_provider": "sentence-transformers", "embedding_model": model, "embedding_threads": 1}
            systems.append(("memdock hybrid, defaults", emb, "hybrid"))
        for name, config, mode in systems:
            stores, took = locomo.index_stores(corpus.bundles, tmp / mode, config)
            raw[name], lat = locomo.run_sqlite(stores, questions, config, mode)
            timing.append(
                f"{name}: {len(corpus.entry_of)} turns in {len(stores)} stores indexed in {took:.1f}s wall; "
                f"query p50 {statistics.median(lat):.2f} ms wall"
            )
        raw["bm25s (speaker: text)"] = peers["bm25s"]
        if hybrid:
            raw["bm25s+MiniLM rrf (speaker: text)"] = peers["bm25s+MiniLM rrf"]
    return questions, raw, dict(stats), timing


PAIRS = [
    ("memdock bm25 defaults - bm25s", "memdock bm25, defaults", "bm25s (speaker: text)"),
    ("memdock hybrid - memdock bm25 (defaults)", "memdock hybrid, defaults", "memdock bm25, defaults"),
    ("memdock hybrid - bm25s+MiniLM rrf", "memdock hybrid, defaults", "bm25s+MiniLM rrf (speaker: text)"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="a REALTALK checkout, its data/ folder, or one chat")
    ap.add_argument("--hybrid", action="store_true", help="also memdock hybrid and bm25s+MiniLM fused by rank")
    ap.add_argument("--model", default="all-MiniLM-L6-v2", help="embedding model directory or gt- package name")
    ap.add_argument("--split-by-conversation", action="store_true", help="R@10 per chat: mean and spread")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    try:
        questions, raw, stats, timing = measure(args.data, args.hybrid, args.model)
    except RealtalkError as exc:
        print(f"REALTALK not read: {exc}\n(bring github.com/danny911kr/REALTALK beside the project or pass --data)")
        return 2
    scores = {name: locomo.per_question(questions, ranked) for name, ranked in raw.items()}
    chats = len({q["sample"] for q in questions})
    print(f"REALTALK: {len(questions)} questions with evidence over {chats} chats; evidence fixes: {stats}")
    print("one store per chat; cells are R@5 / R@10; nothing tuned on this set\n")
    print_table(questions, scores)
    print("\nPAIRED (same questions): mean difference [bootstrap 95% interval]")
    for label, idea, base in PAIRS:
        if idea in scores and base in scores:
            print_paired(questions, label, scores[idea], scores[base])
    if args.split_by_conversation:
        locomo.by_conversation(questions, scores, list(dict.fromkeys(q["sample"] for q in questions)))
    print("\n" + "\n".join(timing))
    print(f"load average at the end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
