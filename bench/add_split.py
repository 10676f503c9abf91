"""Where `memdock add` (or `memdock index`) spends its time, parent and sqlite adapter, from py-spy's samples.

    pip install -e '.[bench]'
    python bench/add_split.py --markdown-mb 20 [--rate 250]     # bench/peers.py's watercooler markdown
    python bench/add_split.py --chunks 100000                    # its synthetic chunks bundle, `memdock index`
    python bench/add_split.py --raw profile.txt                  # samples py-spy wrote before

Runs `py-spy record --subprocesses --format raw` over the command, then sorts every sample into one part of the
index path by the functions on its stack (the first rule in PARTS that matches): import, chunking, entities,
record lines, hashing, ledger, journal, the stream, and on the adapter's side its rows, FTS, text packing and edges.
Shares are of the samples that were work: a thread waiting on a queue or a pipe is counted apart. py-spy counts a
thread that could run but waits for a core as running, so on a loaded box the seconds are more than the CPU
seconds `bench/add_baseline.py` prints; the shares are what to read.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_markdown  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

WAITING = "waiting threads (a queue, a pipe)"
Rule = tuple[str, str, Callable[[str], bool]]
PARTS: list[Rule] = [
    ("parent", "journal: its gzip thread", lambda s: "_compress" in s),
    ("parent", WAITING, lambda s: "Thread._bootstrap" in s),
    ("parent", "cli start (imports, parser)", lambda s: "run_add" not in s and "run_index" not in s),
    ("parent", "journal: spans, sha256 (bundle/writer, bundle/spans)", lambda s: "BundleWriter.write_lines" in s),
    ("parent", "stream to the adapter (engine/stream)", lambda s: "InputStream" in s or "drain (" in s),
    ("parent", "ledger: pending rows, checkpoint commits", lambda s: "Ledger." in s),
    ("parent", "record hash (engine/delta _hash)", lambda s: "_hash (memdock/engine/delta" in s),
    ("parent", "chunking: windows, chunk records and lines", lambda s: "iter_chunks" in s),
    ("parent", "entity extraction", lambda s: "extract_entities" in s),
    ("parent", "structural edges (importers/base structure)", lambda s: "structure (" in s or "_counted" in s),
    ("parent", "import: read and parse the files", lambda s: "import_records" in s),
    ("parent", "record lines: checks, JSON (bundle/lines)", lambda s: "RecordLines" in s),
    ("parent", "bundle read and checks (memdock index)", lambda s: "BundleReader" in s),
    ("parent", "the rest of the pass (engine/delta)", lambda s: "build_delta" in s),
    ("parent", "other", lambda s: True),
    ("adapter", "start (imports)", lambda s: "SqliteAdapter.index" not in s),
    ("adapter", "stream read (sdk/stream)", lambda s: "StreamedInput" in s),
    ("adapter", "edges: rows, facts, links", lambda s: "_write_edges" in s),
    ("adapter", "text packing (packed_text)", lambda s: "packed_text" in s),
    ("adapter", "chunk rows and their FTS", lambda s: "_upsert_chunks" in s or "_index (" in s),
    ("adapter", "entry rows", lambda s: "_upsert_nodes" in s or "_entry_fields" in s),
    ("adapter", "finish (node text, indexes)", lambda s: "Ingest.finish" in s),
    ("adapter", "bundle read (memdock index)", lambda s: "BundleReader" in s),
    ("adapter", "other", lambda s: True),
]


def split(raw: Path) -> dict[str, Counter[str]]:
    """Samples per part, per process ("parent", "adapter"), from py-spy's raw output RAW."""
    out: dict[str, Counter[str]] = {"parent": Counter(), "adapter": Counter()}
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames = stack.split(";")
        procs = [i for i, f in enumerate(frames) if f.startswith("process ")]
        stack = ";".join(frames[procs[-1] :] if procs else frames)  # the innermost process (a `-c` splits at `;`)
        if "shepherd" in stack:
            if "-index-" not in stack or "memdock_sqlite/__main__" not in stack:
                continue  # the capabilities call, or the shepherd waiting for its child
            who = "adapter"
        else:
            who = "parent"
        part = next(label for side, label, test in PARTS if side == who and test(stack))
        out[who][part] += int(n)
    return out


def record(source: Path, fmt: str, store: Path, raw: Path, rate: int) -> None:
    how = ["index", str(source)] if fmt == "chunks" else ["add", str(source), "-f", fmt]
    cmd = [sys.executable, "-m", "memdock", *how, "-b", "sqlite", "--data-dir", str(store), "-q"]
    spy = ["py-spy", "record", "--subprocesses", "--format", "raw", "-r", str(rate), "-o", str(raw), "--", *cmd]
    subprocess.run(spy, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown-mb", type=float, default=20.0)
    ap.add_argument("--chunks", type=int, default=0, help="synthetic chunks (memdock index) instead of markdown")
    ap.add_argument("--rate", type=int, default=100, help="py-spy's samples a second")
    ap.add_argument("--raw", type=Path, help="py-spy raw samples written before: split them, run nothing")
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="add-split-", dir=args.tmp))
    try:
        raw, load = args.raw, ""
        if raw is None:
            raw = work / "samples.txt"
            if args.chunks:
                source, fmt = work / "chunks", "chunks"
                write_bundle(source, Vocabulary(work), args.chunks, random.Random(11))
            else:
                source, fmt = work / "markdown", "watercooler"
                write_markdown(source, args.markdown_mb)
            load = f" (load {os.getloadavg()[0]:.1f} before the run)"
            record(source, fmt, work / "store", raw, args.rate)
        for who, parts in split(raw).items():
            work_samples = sum(n for label, n in parts.items() if label != WAITING)
            print(f"{who}: {work_samples} samples of work, {parts[WAITING]} waiting{load}")
            for label, n in parts.most_common():
                if label != WAITING:
                    print(f"  {100 * n / max(work_samples, 1):5.1f} %  {label}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
