"""What the tantivy adapter's English stemmer buys in recall on LoCoMo, in one run.

    pip install -e '.[bench]'
    python bench/tantivy_stemmer.py

The memdock tantivy adapter, loaded in this process (memdock.inprocess), indexes LoCoMo dev as bench/ranking.py's
recall part does (bench/locomo.py's corpus and questions, one store per conversation, chunk header on and off)
twice: as it is, and with its analyzer built without the stemmer (`store.analyzer(stem=False)`, patched in for
the run: the adapter has no setting for it, since its stores must be read with the analyzer they were written
with). Both index and query go through the same analyzer. Prints R@5 and R@10 of the evidence turns over all dev
questions. The stemmer's cost at indexing is bench/peers.py's `tantivy-py-stem` beside `tantivy-py-nostem`.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path

from _common import on_path

on_path("src", "adapters/common", "adapters/tantivy", "bench")

import locomo  # noqa: E402
from memdock_tantivy import store  # noqa: E402

from memdock.inprocess import InProcessBackend  # noqa: E402


def ranked(corpus: locomo.Corpus, questions: list[dict], folder: Path) -> dict[int, list[str]]:
    """Each question's top 10 entries, from one store per conversation under FOLDER."""
    out: dict[int, list[str]] = {}
    for sid, bundle in corpus.bundles.items():
        backend = InProcessBackend.bundled("tantivy", folder / str(sid))
        backend.index(bundle)
        for i, q in enumerate(questions):
            if q["sample"] == sid:
                hits = backend.query(q["text"], limit=10, mode="bm25").hits
                out[i] = list(dict.fromkeys((h.provenance or {}).get("entry_id") or h.id for h in hits))
        backend.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tantivy-stemmer-", dir=args.tmp))
    real = store.analyzer
    print(f"{'system':<40} {'header':>6} {'R@5':>6} {'R@10':>6}")
    try:
        for header in ("on", "off"):
            (work / f"locomo-{header}").mkdir()
            corpus = locomo.Corpus(work / f"locomo-{header}", header, pooled=False)
            questions = locomo.questions_of(corpus, defaultdict(int))
            for stem in (True, False):
                store.analyzer = functools.partial(real, stem=stem)
                top = ranked(corpus, questions, work / f"stores-{header}-{stem}")
                r5, r10 = (
                    statistics.fmean(locomo.recall(top[i], q["evidence"], k) for i, q in enumerate(questions))
                    for k in (5, 10)
                )
                label = f"memdock tantivy, stemmer {'on' if stem else 'off'}"
                print(f"{label:<40} {header:>6} {r5:>6.3f} {r10:>6.3f}   {len(questions)} questions", flush=True)
    finally:
        store.analyzer = real
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
