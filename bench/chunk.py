"""Chunking throughput (MB/s) against langchain-text-splitters and semchunk, and memory at 1x vs 20x.

    pip install langchain-text-splitters semchunk   # the peers (the `bench` extra)
    python bench/chunk.py [--scale 20]

All three cut the same texts (every entry of ../shared/data/watercooler_threads,
LoCoMo and IRC, repeated to scale) into windows of 900 tokens with 100 overlap,
counting tokens with the same stdlib approximation. Peak memory of
`memdock chunk` over a corpus bundle is measured at 1x and at --scale x.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, on_path

on_path("src")

from memdock.bundle import BundleReader, BundleWriter  # noqa: E402
from memdock.chunking import ApproxTokenizer, Splitter  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def texts(tmp: Path) -> list[str]:
    out = []
    for fmt, src in (
        ("watercooler", DATA / "watercooler_threads"),
        ("chat", DATA / "locomo" / "locomo_dev.json"),
        ("irc", DATA / "irc" / "dev"),
    ):
        import_corpus([src], fmt, tmp / fmt)
        out += [e["body"] for e in BundleReader(tmp / fmt).records("entry")]
    # IRC and chat turns are one line each; join them per 50 so windows have something to cut
    merged, buf = [], []
    for t in out:
        buf.append(t)
        if len(buf) == 50:
            merged.append("\n".join(buf))
            buf = []
    return merged + (["\n".join(buf)] if buf else [])


def timed(fn, docs: list[str]) -> tuple[float, int]:
    t = time.perf_counter()
    n = sum(len(fn(d)) for d in docs)
    return time.perf_counter() - t, n


def peak_rss_child(corpus: Path, out: Path) -> int:
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT / 'src')!r})\n"
        "from memdock.chunking import chunk_bundle\n"
        f"chunk_bundle({str(corpus)!r}, {str(out)!r})\n"
        "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])"
    )
    return (
        int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()[-1])
        // 1024
    )


def scaled_corpus(src: Path, out: Path, times: int) -> None:
    r = BundleReader(src)
    with BundleWriter(out, "corpus", validate=False) as w:
        for k in range(times):
            for rtype in ("thread", "entry"):
                for rec in r.records(rtype):
                    rec = dict(rec, id=f"{rec['id']}~{k}")
                    if rtype == "entry":
                        rec["thread_id"] = f"{rec['thread_id']}~{k}"
                    w.write(rtype, rec)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=20)
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"shared corpora not found at {DATA}")
    tmp = Path(tempfile.mkdtemp(prefix="memdock-bench-chunk-"))
    try:
        docs = texts(tmp)
        mb = sum(len(d.encode()) for d in docs) / 1e6
        tok = ApproxTokenizer()
        ours = Splitter(tok, max_tokens=900, overlap=100)
        rows = [("memdock Splitter", lambda d: ours.split(d))]
        try:
            from langchain_text_splitters import RecursiveCharacterTextSplitter

            lc = RecursiveCharacterTextSplitter(chunk_size=900, chunk_overlap=100, length_function=tok.count)
            rows.append(("langchain RecursiveCharacterTextSplitter", lc.split_text))
        except ImportError:
            print("langchain-text-splitters not installed")
        try:
            import semchunk

            sc = semchunk.chunkerify(tok.count, 900)
            rows.append(("semchunk", lambda d: sc(d, overlap=100)))
        except ImportError:
            print("semchunk not installed")
        print(f"{len(docs)} documents, {mb:.2f} MB, windows of 900 tokens with 100 overlap")
        print(f"{'':44}{'MB/s':>8}{'chunks':>9}")
        for name, fn in rows:
            secs, n = timed(fn, docs)
            print(f"{name:44}{mb / secs:>8.2f}{n:>9}")
        base = tmp / "watercooler"
        scaled_corpus(base, tmp / "x1", 1)
        scaled_corpus(base, tmp / f"x{args.scale}", args.scale)
        one = peak_rss_child(tmp / "x1", tmp / "k1")
        many = peak_rss_child(tmp / f"x{args.scale}", tmp / f"k{args.scale}")
        print(f"peak RSS of chunk_bundle over watercooler: 1x {one} MB, {args.scale}x {many} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
