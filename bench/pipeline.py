"""The user's whole path on a generated text corpus: import → chunk → index, MB/s per stage, on sqlite and tantivy.

    python bench/pipeline.py [--mb 100] [--backends sqlite,tantivy]

The corpus is markdown files of ~1 MB, one thread each, sections of 40-160 words under `## ` headings (one
entry per section), words drawn as in bench/synthetic.py. Each stage is the library call behind the CLI
command (`import_corpus`, `chunk_bundle`, `SubprocessBackend.index`); MB/s is corpus MB over the stage's
seconds. Store size includes memdock's ledger and journal, and is shown split into them. The peer is raw
tantivy-py indexing the same entries' texts from memory in this process (`lexical.tantivy_index`); each index
stage is also given as entries per second and as a share of tantivy-py's rate.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import on_path

on_path("src", "bench")

from lexical import tantivy_index  # noqa: E402
from synthetic import Vocabulary  # noqa: E402

from memdock.bundle import BundleReader  # noqa: E402
from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402
from memdock.registry import Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402

FILE_BYTES = 1_000_000


def write_corpus(folder: Path, vocab: Vocabulary, total: int, rng: random.Random) -> int:
    folder.mkdir(parents=True)
    written, n = 0, 0
    while written < total:
        parts, size, section = [f"# Notes {n}\n"], 0, 0
        while size < FILE_BYTES and written + size < total:
            words = rng.choices(vocab.words, cum_weights=vocab.cum_weights, k=rng.randint(40, 160))
            block = f"\n## Section {section}: {' '.join(words[:4])}\n\n{' '.join(words)}\n"
            parts.append(block)
            size += len(block)
            section += 1
        data = "".join(parts).encode()
        (folder / f"notes-{n:05d}.md").write_bytes(data)
        written += len(data)
        n += 1
    return written


def size_of(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def parts(store: Path) -> str:
    """Where the store's bytes are: journal, ledger (with its WAL) and the adapter's data dir, in MB."""
    ledger = sum(f.stat().st_size for f in store.glob("ledger.sqlite*"))
    return (
        f"journal {size_of(store / 'journal') / 1e6:.1f}, ledger {ledger / 1e6:.1f}, "
        f"data {size_of(store / 'data') / 1e6:.1f}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=100.0, help="corpus size in MB (default 100; 5 for a quick run)")
    ap.add_argument("--backends", default="sqlite,tantivy")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    backends = args.backends.split(",")
    if "tantivy" in backends and not Registry().get("tantivy").venv.exists():
        print(
            "the tantivy adapter is not installed (memdock adapters install tantivy); leaving it out", file=sys.stderr
        )
        backends.remove("tantivy")
    with tempfile.TemporaryDirectory(prefix="memdock-bench-pipeline-") as tmp_s:
        tmp = Path(tmp_s)
        vocab = Vocabulary(tmp)
        total = write_corpus(tmp / "text", vocab, int(args.mb * 1e6), random.Random(7))
        mb = total / 1e6
        stages: list[tuple[str, float, str]] = []
        t = time.perf_counter()
        import_corpus([tmp / "text"], "text", tmp / "corpus")
        stages.append(("import", time.perf_counter() - t, f"{BundleReader(tmp / 'corpus').count('entry'):,} entries"))
        entries = [(e["id"], e["body"]) for e in BundleReader(tmp / "corpus").records("entry")]
        _, tantivy_s = tantivy_index(entries, tmp / "tantivy-py")
        t = time.perf_counter()
        chunk_bundle(tmp / "corpus", tmp / "chunks")
        stages.append(("chunk", time.perf_counter() - t, f"{BundleReader(tmp / 'chunks').count('chunk'):,} chunks"))
        for name in backends:
            store = tmp / f"store-{name}"
            backend = SubprocessBackend(Registry().get(name), store, timeouts={"index": 7200})
            t = time.perf_counter()
            backend.index(tmp / "chunks")
            stages.append(
                (
                    f"index ({name})",
                    time.perf_counter() - t,
                    f"store {size_of(store) / 1e6:.1f} MB, {size_of(store) / total:.1f}× the text ({parts(store)})",
                )
            )
            backend.close()
        print(f"corpus: {mb:.1f} MB of markdown in {len(list((tmp / 'text').iterdir()))} files")
        print(f"{'stage':<16} {'seconds':>8} {'MB/s':>7}  notes")
        for stage, secs, note in stages:
            print(f"{stage:<16} {secs:>8.1f} {mb / secs:>7.2f}  {note}")
        for name in backends:
            whole = sum(s for st, s, _ in stages if st in ("import", "chunk", f"index ({name})"))
            print(f"{'whole (' + name + ')':<16} {whole:>8.1f} {mb / whole:>7.2f}")
        peer = len(entries) / tantivy_s
        print(f"\nraw tantivy-py indexed the {len(entries):,} entries' texts in {tantivy_s:.1f} s: {peer:,.0f} docs/s")
        for stage, secs, _ in stages:
            if stage.startswith("index"):
                rate = len(entries) / secs
                print(f"{stage:<16} {rate:>8,.0f} entries/s, {rate / peer:.3f}× tantivy-py (target >= 0.25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
