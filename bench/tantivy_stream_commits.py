"""What committing every N records costs a streamed `memdock add` into tantivy: CPU, segments and store bytes.

    pip install -e '.[bench]' && memdock adapters install tantivy
    OMP_NUM_THREADS=1 python bench/tantivy_stream_commits.py [--notes 20000] [--every 10000,25000,50000,100000]

bench/peers.py's short notes, added with `memdock add -f jsonl -b tantivy --config batch_size=N` for each N, the
Ns interleaved in each repetition. A stream commits every N records once its input is whole (its held edges and
entries), and once at its end; each commit makes a segment per index it touched, with its own term dictionary.
Printed per N: CPU seconds of the add (its process and the adapter's), the segments of each index, the adapter's
data dir and the whole store in MB and × the text.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import on_path

on_path("src", "bench")

from add_baseline import cpu_seconds  # noqa: E402
from lexical import size_of  # noqa: E402
from peers import write_notes  # noqa: E402


def segments(index: Path) -> int:
    return len(json.loads((index / "meta.json").read_text())["segments"])


def add(notes: Path, store: Path, every: int) -> dict[str, float]:
    cmd = [sys.executable, "-m", "memdock", "add", str(notes), "-f", "jsonl", "-b", "tantivy"]
    cmd += ["--data-dir", str(store), "--config", f"batch_size={every}", "-q"]
    before = cpu_seconds()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    data = store / "data"
    return {
        "cpu": cpu_seconds() - before,
        "graph": segments(data / "index"),
        "chunks": segments(data / "chunks"),
        "data": size_of(data),
        "store": size_of(store),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--every", default="10000,25000,50000,100000")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    every = [int(n) for n in args.every.split(",")]
    with tempfile.TemporaryDirectory(prefix="tantivy-commits-", dir=args.tmp) as tmp:
        work = Path(tmp)
        text = sum(len(t.encode()) for _, t in write_notes(work / "notes.jsonl", args.notes))
        print(f"{args.notes:,} notes ({text / 1e6:.2f} MB of text), {args.reps} repetitions, Ns interleaved")
        print(
            f"{'N':>8} {'rep':>4} {'cpu s':>7} {'graph segs':>10} {'chunk segs':>10} {'data MB':>8} {'×text':>6} "
            f"{'store ×text':>11}"
        )
        for rep, n in ((rep, n) for rep in range(args.reps) for n in every):
            got = add(work / "notes.jsonl", work / f"s-{n}-{rep}", n)
            print(
                f"{n:>8} {rep:>4} {got['cpu']:7.2f} {got['graph']:>10} {got['chunks']:>10} "
                f"{got['data'] / 1e6:8.2f} {got['data'] / text:6.2f} {got['store'] / text:11.2f}"
            )
            shutil.rmtree(work / f"s-{n}-{rep}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
