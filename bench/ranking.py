"""Why memdock's top 10 differs from plain BM25's, rule by rule, with what each rule costs and buys, in one run.

    pip install -e '.[bench]' && memdock adapters install tantivy
    python bench/ranking.py [--notes 20000] [--queries 300] [--locomo/--no-locomo]

Part 1, agreement: the short-note corpus of bench/peers.py (real LoCoMo and IRC text, one JSONL file), imported
and chunked once as `memdock add -f jsonl` does, then indexed by each variant below; the queries are
bench/peers.py's. Each row prints its share of raw tantivy-py's top 10 two ways:
- `∩tv@10`: shared ids over the longer list, as bench/peers.py and bench/lexical.py count it;
- `∩tv@10 ties`: a hit also agrees when tantivy-py scores it as high as its own 10th hit. Short notes with rare
  query words tie a lot (tantivy stores document lengths in 256 buckets, so notes of close length score the same),
  and which of the tied notes make the cut follows the order the engine happened to store them in; the row
  "tantivy-py, notes stored in reverse" is tantivy-py against itself with only that order changed.
Variants: the memdock tantivy adapter as it is, and with the graph's records in the chunks' index (the layout
before schema 2: threads, entries, entities and edges added to a plain tantivy-py index of the chunks, so the
document count and average length are the whole store's); memdock sqlite with nothing configured, with answer
expansion off (`neighbour_weight` 0), and with that and its coverage order off too (a patch of the adapter loaded
in this process: BM25 alone orders the chunks); beside them SQLite FTS5 alone (bench/lexical.py's row: the engine under
memdock sqlite, its tokenizer, no memdock rule) and bm25s.

Part 2, recall: LoCoMo dev (bench/locomo.py's corpus and questions, one store per conversation, chunk header on
and off), R@5 and R@10 of the evidence turns for the same memdock variants. bench/locomo.py rotates sqlite's
settings over the conversations; here every variant is a fixed rule, so the figure is over all dev questions.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import on_path

on_path("src", "bench")

from lexical import HEAP, bm25s_row, fts5_row, overlap  # noqa: E402
from peers import read_notes, write_notes  # noqa: E402
from synthetic import Vocabulary  # noqa: E402

from memdock.bundle import BundleReader  # noqa: E402
from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.inprocess import InProcessBackend  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

DEPTH = 1000  # how far down tantivy-py's ranking a tied hit is looked for
Ranked = list[tuple[str, float]]
PLAIN_BM25 = "memdock sqlite, coverage order off (bench-only patch)"
VARIANTS = {  # name: (backend, config)
    "memdock tantivy": ("tantivy", {}),
    "memdock sqlite": ("sqlite", {}),
    "memdock sqlite, answer expansion off": ("sqlite", {"neighbour_weight": 0}),
    PLAIN_BM25: ("sqlite", {"neighbour_weight": 0}),
}


def tantivy_py(docs: list[tuple[str, str]], extra: list[str] = ()) -> Callable[[str, int], Ranked]:
    """Raw tantivy-py over DOCS (id, text), as bench/peers.py builds it; EXTRA texts go in a second field of the
    same index (records that are not chunks) and are never searched."""
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("text", stored=False, tokenizer_name="en_stem")
    sb.add_text_field("other", stored=False, tokenizer_name="en_stem")
    index = tantivy.Index(sb.build())
    writer = index.writer(HEAP, 0)
    for did, text in docs:
        writer.add_document(tantivy.Document(id=did, text=text))
    for i, text in enumerate(extra):
        writer.add_document(tantivy.Document(id=f"other:{i}", other=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def search(q: str, k: int) -> Ranked:
        hits = searcher.search(index.parse_query(re.sub(r"[^\w\s]", " ", q), ["text"]), k).hits
        return [(searcher.doc(addr)["id"][0], s) for s, addr in hits]

    return search


def graph_texts(bundle: Path) -> list[str]:
    """What the tantivy adapter indexes for the records that are not chunks: names, bodies and one text per edge."""
    reader = BundleReader(bundle)
    out = [e["body"] for e in reader.records("entry")]
    out += [t.get("title", "") for t in reader.records("thread")]
    out += [f"{e['entity_type']} {e['name']}" for e in reader.records("entity")]
    out += [f"{e['type']} {e['source_id']} {e['target_id']}" for e in reader.records("edge")]
    return out


def slug(label: str) -> str:
    return re.sub(r"\W+", "-", label)


def tie_overlap(tops: list[list[str]], refs: list[Ranked]) -> float:
    """Shared hits over the longer list, where a hit tantivy-py scores as high as its own 10th also counts."""
    shares = []
    for top, ref in zip(tops, refs):
        if not ref[:10]:
            shares.append(1.0 if not top else 0.0)
            continue
        cut = ref[min(9, len(ref) - 1)][1] * (1 - 1e-6)
        scored = dict(ref)
        agree = sum(1 for h in top if scored.get(h, -1.0) >= cut)
        shares.append(agree / max(len(top), min(10, len(ref))))
    return statistics.fmean(shares)


def plain_bm25() -> Callable[[], None]:
    """memdock sqlite's ranking with its first key, the share of the query a chunk holds (memdock_sqlite.scoring
    .coverage), made the same for every chunk, so BM25 alone orders them; returns the undo. sqlite has no setting
    for this (its ranking belongs to another change), hence a patch of the adapter loaded in this process."""
    from memdock_sqlite import scoring

    real = scoring.coverage
    scoring.coverage = lambda conn, weights, levels: {rid: 1.0 for level in levels for rid, _ in level.rows}

    def undo() -> None:
        scoring.coverage = real

    return undo


def memdock_search(label: str, bundle: Path, store: Path) -> tuple[SubprocessBackend, Any]:
    name, config = VARIANTS[label]
    if label == PLAIN_BM25:
        backend: SubprocessBackend = InProcessBackend.bundled(name, store, config=config)
        undo = plain_bm25()
        backend.close = lambda: undo()  # type: ignore[method-assign]
    else:
        backend = SubprocessBackend(Registry().get(name), store, workers=1, config=config, timeouts={"index": 7200})
    backend.index(bundle)

    def search(q: str, filters: dict | None = None) -> list[str]:
        hits = backend.query(q, limit=10, filters=filters, mode="bm25").hits
        return list(dict.fromkeys((h.provenance or {}).get("entry_id") or h.id for h in hits))

    return backend, search


def agreement(n: int, nq: int, tmp: Path) -> None:
    source = tmp / "notes.jsonl"
    write_notes(source, n)
    docs = read_notes(source)
    import_corpus([source], "jsonl", tmp / "corpus")
    chunk_bundle(tmp / "corpus", tmp / "chunks")
    queries = Vocabulary(tmp).queries(nq, random.Random(7))
    ref_search = tantivy_py(docs)
    refs = [ref_search(q, DEPTH) for q in queries]
    ref_tops = [[i for i, _ in r[:10]] for r in refs]
    rows: dict[str, list[list[str]]] = {}
    reverse = tantivy_py(docs[::-1])
    rows["tantivy-py, notes stored in reverse"] = [[i for i, _ in reverse(q, 10)] for q in queries]
    shared = tantivy_py(docs, graph_texts(tmp / "chunks"))
    rows["tantivy-py, graph records in the chunks' index"] = [[i for i, _ in shared(q, 10)] for q in queries]
    rows["sqlite FTS5 alone (memdock sqlite's tokenizer)"] = fts5_row(docs, tmp / "fts5", queries).tops
    rows["bm25s"] = bm25s_row(docs, tmp / "bm25s", queries).tops
    for label in VARIANTS:
        backend, search = memdock_search(label, tmp / "chunks", tmp / slug(label))
        rows[label] = [search(q) for q in queries]
        backend.close()
    print(f"\n{n:,} short notes ({sum(len(x) for _, x in docs) / 1e6:.1f} MB), {nq} queries: agreement with tantivy-py")
    ties = sum(1 for r in refs if len(r) > 10 and r[10][1] >= r[9][1] * (1 - 1e-6))
    print(f"queries whose 10th and 11th tantivy-py hits tie: {ties} of {nq}")
    print(f"{'system':<56} {'∩tv@10':>7} {'∩tv@10 ties':>12}")
    for label, tops in rows.items():
        print(f"{label:<56} {overlap(tops, ref_tops):>7.3f} {tie_overlap(tops, refs):>12.3f}", flush=True)


def locomo_recall(tmp: Path) -> None:
    import locomo

    print("\nLoCoMo dev, one store per conversation: recall of the evidence turns")
    print(f"{'system':<56} {'header':>6} {'R@5':>6} {'R@10':>6}")
    for header in ("on", "off"):
        corpus = locomo.Corpus(tmp / f"locomo-{header}", header, pooled=False)
        questions = locomo.questions_of(corpus, defaultdict(int))
        for label in VARIANTS:
            ranked: dict[int, list[str]] = {}
            for sid, bundle in corpus.bundles.items():
                backend, search = memdock_search(label, bundle, tmp / f"lc-{header}-{slug(label)}-{sid}")
                for i, q in enumerate(questions):
                    if q["sample"] == sid:
                        ranked[i] = search(q["text"])
                backend.close()
            r5, r10 = (
                statistics.fmean(locomo.recall(ranked[i], q["evidence"], k) for i, q in enumerate(questions))
                for k in (5, 10)
            )
            print(f"{label:<56} {header:>6} {r5:>6.3f} {r10:>6.3f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--locomo", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdock-ranking-", dir=args.tmp) as tmp_s:
        tmp = Path(tmp_s)
        (tmp / "locomo-on").mkdir()
        (tmp / "locomo-off").mkdir()
        agreement(args.notes, args.queries, tmp)
        if args.locomo:
            locomo_recall(tmp)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
