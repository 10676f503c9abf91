"""Importer and chunker alone on markdown, in MB/s, beside the floor: reading and splitting the same files in Python.

    python bench/markdown_import.py [--markdown-mb 20] [--notes 3000] [--reps 2]

Two corpora, both made from the real watercooler threads in ../shared/data: bench/peers.py's folder of
watercooler markdown (--markdown-mb, read with `-f watercooler`), and a folder of --notes plain markdown notes
(`# <title>` and the entry's body, one watercooler entry a note, with `## ` subheadings kept: read as `text`, the
format `memdock add DIR` infers for them). For each, in this process: `import` (`import_corpus` into a corpus
bundle), `chunk` (`chunk_bundle` of that bundle) and `floor` (each file read, decoded and split at its lines,
the least any importer does). Best of --reps, in MB/s of source bytes.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from peers import DATA, write_markdown  # noqa: E402

from memdock.chunking import chunk_bundle  # noqa: E402
from memdock.importers.pipeline import import_corpus  # noqa: E402

_ENTRY_SPLIT = re.compile(r"\n---\nEntry: [^\n]*\n")


def write_notes_folder(folder: Path, n: int) -> int:
    """N plain markdown notes, one watercooler entry each (cycled over the real threads); returns the bytes."""
    bodies = []
    for p in sorted((DATA / "watercooler_threads").rglob("*.md")):
        for part in _ENTRY_SPLIT.split(p.read_text())[1:]:
            head, _, body = part.partition("\n\n")
            title = next((h[7:] for h in head.splitlines() if h.startswith("Title: ")), p.stem)
            bodies.append(f"# {title}\n\n{re.sub(r'<!-- Entry-ID: [^>]*-->', '', body).strip()}\n")
    folder.mkdir(parents=True)
    written = 0
    for k in range(n):
        text = bodies[k % len(bodies)]
        (folder / f"note{k:05d}.md").write_text(text)
        written += len(text.encode())
    return written


def floor(folder: Path) -> None:
    for p in sorted(folder.rglob("*.md")):
        p.read_bytes().decode("utf-8").splitlines()


def best(fn: Callable[[], object], reps: int) -> float:
    seconds = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        seconds.append(time.perf_counter() - t)
    return min(seconds)


def measure(label: str, folder: Path, fmt: str, size: int, work: Path, reps: int) -> None:
    def do_import() -> None:
        import_corpus([folder], fmt, work / "corpus", overwrite=True)

    def do_chunk() -> None:
        chunk_bundle(work / "corpus", work / "chunks", overwrite=True)

    mb = size / 1e6
    times = {"floor": best(lambda: floor(folder), reps), "import": best(do_import, reps)}
    times["chunk"] = best(do_chunk, reps)
    times["import+chunk"] = times["import"] + times["chunk"]
    print(f"{label}: {mb:.1f} MB, -f {fmt}")
    for name, s in times.items():
        print(f"  {name:13} {s:7.2f} s  {mb / s:8.2f} MB/s  {s / times['floor']:7.1f}x floor")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown-mb", type=float, default=20.0)
    ap.add_argument("--notes", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="markdown-import-"))
    try:
        if args.markdown_mb > 0:
            size = write_markdown(work / "watercooler", args.markdown_mb)
            measure("watercooler markdown", work / "watercooler", "watercooler", size, work, args.reps)
        if args.notes > 0:
            size = write_notes_folder(work / "notes", args.notes)
            measure(f"{args.notes} plain markdown notes", work / "notes", "text", size, work, args.reps)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
