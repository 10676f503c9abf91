"""Synthetic chunks shaped like the shared corpora, shared by bench/sqlite.py and bench/lexical.py.

Words are drawn with the frequencies of every text in ../shared/data (watercooler, LoCoMo, IRC); each chunk
has ~120 of them, an author, a role and a time. Queries are 1-4 words from the same vocabulary, mid-frequency
words only (a query of stopwords tells nothing).
"""

from __future__ import annotations

import itertools
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from memdock.bundle import BundleReader, BundleWriter
from memdock.ids import content_hash
from memdock.importers.pipeline import import_corpus

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters" / "sqlite"))
from memdock_sqlite.fts import STOPWORDS

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("MEMDOCK_SHARED_DATA") or ROOT.parent / "shared" / "data")  # the env var for a worktree
WORDS_PER_CHUNK = 120
AUTHORS = ["Codex (lee)", "Claude (maya)", "Gemini (sam)", "devon", "ana", "bo"]
ROLES = ["implementer", "critic", "planner", "general"]


class Vocabulary:
    """The corpora's words and their cumulative weights, computed once (`rng.choices(words, freqs)` recomputes
    the cumulative sums on every call: with ~40k words that was most of the generator's time)."""

    def __init__(self, tmp: Path):
        counts: Counter[str] = Counter()
        for fmt, src in (
            ("watercooler", DATA / "watercooler_threads"),
            ("chat", DATA / "locomo" / "locomo_dev.json"),
            ("irc", DATA / "irc" / "dev"),
        ):
            if src.exists():
                import_corpus([src], fmt, tmp / f"v-{fmt}")
                for e in BundleReader(tmp / f"v-{fmt}").records("entry"):
                    counts.update(re.findall(r"[A-Za-z][A-Za-z'-]+", e["body"].lower()))
        if not counts:
            raise SystemExit(f"no corpora under {DATA}; they live in ../shared/data beside the project")
        self.words = [w for w, _ in counts.most_common()]
        self.cum_weights = list(itertools.accumulate(c for _, c in counts.most_common()))

    def text(self, rng: random.Random) -> str:
        k = rng.randint(WORDS_PER_CHUNK // 2, WORDS_PER_CHUNK * 3 // 2)
        return " ".join(rng.choices(self.words, cum_weights=self.cum_weights, k=k))

    def queries(self, n: int, rng: random.Random) -> list[str]:
        pool = [w for w in self.words[50:5000] if w not in STOPWORDS]
        return [" ".join(rng.sample(pool, rng.randint(1, 4))) for _ in range(n)]


def chunks(vocab: Vocabulary, n: int, rng: random.Random) -> Iterator[dict]:
    for i in range(n):
        text = vocab.text(rng)
        yield {
            "id": f"chunk:{i}",
            "entry_id": f"entry:{i}",
            "thread_id": f"thread:{i // 50}",
            "position": 0,
            "text": text,
            "start": 0,
            "end": len(text),
            "token_count": len(text.split()),
            "content_hash": content_hash(text),
            "author": AUTHORS[i % len(AUTHORS)],
            "role": ROLES[i % len(ROLES)],
            "event_time": f"20{20 + i % 6}-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
        }


def write_bundle(path: Path, vocab: Vocabulary, n: int, rng: random.Random) -> list[tuple[str, str]]:
    """A chunks bundle of N synthetic chunks; returns (id, text) of each, for the peers to index the same texts."""
    out = []
    with BundleWriter(path, kind="chunks") as w:
        for rec in chunks(vocab, n, rng):
            w.write("chunk", rec)
            out.append((rec["id"], rec["text"]))
    return out
