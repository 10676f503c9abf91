"""Importer and chunker alone on markdown, in MB/s, beside the floor: reading and splitting the same files in Python.

    python bench/markdown_import.py [--markdown-mb 20] [--notes 3000] [--reps 2] [--baseline OTHER_CHECKOUT] [--readd]

Two corpora, both made from the real watercooler threads in ../shared/data: bench/peers.py's folder of
watercooler markdown (--markdown-mb, read with `-f watercooler`), and a folder of --notes plain markdown notes
(`# <title>` and the entry's body, one watercooler entry a note, with `## ` subheadings kept: read as `text`, the
format `memdock add DIR` infers for them). For each, in this process: `import` (`import_corpus` into a corpus
bundle), `chunk` (`chunk_bundle` of that bundle) and `floor` (each file read, decoded and split at its lines,
the least any importer does). With --baseline, the same again from another checkout's src (a `git worktree` of
main, say) in a child process, on the same files, printed after. Best of --reps, in CPU seconds and MB/s of
source bytes per CPU second (on a shared box wall time follows the load; CPU time mostly does not). With --readd,
`memdock add FOLDER` (format inferred, sqlite) of each folder and then again, unchanged: the re-add's share.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
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
    """The fewest CPU seconds of REPS runs (on a shared box wall time follows the load; CPU time mostly not)."""
    seconds = []
    for _ in range(reps):
        t = time.process_time()
        fn()
        seconds.append(time.process_time() - t)
    return min(seconds)


def measure(label: str, folder: Path, fmt: str, size: int, work: Path, reps: int) -> None:
    import_corpus = importlib.import_module("memdock.importers.pipeline").import_corpus
    chunk_bundle = importlib.import_module("memdock.chunking").chunk_bundle

    def do_import() -> None:
        import_corpus([folder], fmt, work / "corpus", overwrite=True)

    def do_chunk() -> None:
        chunk_bundle(work / "corpus", work / "chunks", overwrite=True)

    work.mkdir(parents=True, exist_ok=True)
    mb = size / 1e6
    times = {"floor": best(lambda: floor(folder), reps), "import": best(do_import, reps)}
    times["chunk"] = best(do_chunk, reps)
    times["import+chunk"] = times["import"] + times["chunk"]
    print(f"{label}: {mb:.1f} MB, -f {fmt} (memdock from {Path(inspect.getfile(chunk_bundle)).parents[2]})")
    for name, s in times.items():
        print(f"  {name:13} {s:7.2f} s CPU  {mb / s:8.2f} MB/s  {s / times['floor']:7.1f}x floor")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown-mb", type=float, default=20.0)
    ap.add_argument("--notes", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--baseline", type=Path, help="another checkout of memdock, measured after this one")
    ap.add_argument("--readd", action="store_true", help="also `memdock add` each folder twice (this checkout)")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help=argparse.SUPPRESS)  # the child's
    ap.add_argument("--work", type=Path, help=argparse.SUPPRESS)  # the child's: the corpora already written
    args = ap.parse_args()
    sys.path.insert(0, str(args.src.resolve()))
    work = args.work or Path(tempfile.mkdtemp(prefix="markdown-import-"))
    corpora = []
    try:
        if args.markdown_mb > 0:
            size = args.work and _size(work / "watercooler") or _write_markdown(work / "watercooler", args.markdown_mb)
            corpora.append(("watercooler markdown", work / "watercooler", "watercooler", size))
        if args.notes > 0:
            size = args.work and _size(work / "notes") or write_notes_folder(work / "notes", args.notes)
            corpora.append((f"{args.notes} plain markdown notes", work / "notes", "text", size))
        print(f"== {args.src.resolve().parent}")
        for label, folder, fmt, size in corpora:
            measure(label, folder, fmt, size, work / "out", args.reps)
        if args.readd:
            for label, folder, *_ in corpora:
                readd(label, folder, work / f"store-{folder.name}")
        if args.baseline:
            child = [sys.executable, __file__, "--src", str(args.baseline / "src"), "--work", str(work)]
            child += ["--markdown-mb", str(args.markdown_mb), "--notes", str(args.notes), "--reps", str(args.reps)]
            subprocess.run(child, check=True)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def readd(label: str, folder: Path, store: Path) -> None:
    """`memdock add FOLDER` (format inferred, sqlite) and again unchanged: wall and CPU seconds of each (CPU of the
    whole command, adapter included, from RUSAGE_CHILDREN) and the second over the first."""
    cmd = [sys.executable, "-m", "memdock", "add", str(folder), "--data-dir", str(store), "-q"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    runs = []
    for _ in range(2):
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, wall = used.ru_utime + used.ru_stime, time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        runs.append((time.perf_counter() - wall, used.ru_utime + used.ru_stime - cpu))
    (w1, c1), (w2, c2) = runs
    print(f"re-add, {label}: first add {w1:.2f} s wall {c1:.2f} s CPU; unchanged re-add {w2:.2f} s wall {c2:.2f} s CPU")
    print(f"  re-add x first: {w2 / w1:.3f} wall, {c2 / c1:.3f} CPU (load {os.getloadavg()[0]:.1f})")


def _write_markdown(folder: Path, mb: float) -> int:
    """bench/peers.py's copies of the threads (imported here: peers puts this checkout's src first on the path,
    which a --baseline child must not have)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from peers import write_markdown

    return int(write_markdown(folder, mb))


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.iterdir())


if __name__ == "__main__":
    raise SystemExit(main())
