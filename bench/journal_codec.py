"""The journal's zlib level against its CPU, on a real journal, every level in the same run.

    python bench/journal_codec.py [--notes 20000] [--levels 1,3,6,9]

`memdock add` of bench/peers.py's short notes into a fresh sqlite store, then each part of its journal segment as
stored (format 2, see src/memdock/bundle/spans.py) compressed again at each level with the stdlib's zlib: bytes
and CPU seconds per part and in all, and the bytes over the notes' text. The level a run writes with is
`bundle.writer.COMPRESS_LEVEL`.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from _common import on_path

on_path("src", "bench")

from peers import write_notes  # noqa: E402


def compressed(data: bytes, level: int) -> tuple[int, float]:
    cpu = time.process_time()
    z = zlib.compressobj(level, zlib.DEFLATED, 31)
    size = len(z.compress(data)) + len(z.flush())
    return size, time.process_time() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--levels", default="1,3,6,9")
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    work = Path(tempfile.mkdtemp(prefix="journal-codec-", dir=args.tmp))
    try:
        source = work / "notes.jsonl"
        text = sum(len(t.encode()) for _, t in write_notes(source, args.notes))
        store = work / "store"
        cmd = [sys.executable, "-m", "memdock", "add", str(source), "-f", "jsonl", "-b", "sqlite", "--data-dir"]
        subprocess.run([*cmd, str(store), "-q"], check=True, stdout=subprocess.DEVNULL)
        parts = sorted((store / "journal").glob("*/*.jsonl.gz"))
        print(f"{args.notes:,} notes, {text / 1e6:.2f} MB of text; journal parts as stored, zlib level by level")
        print(f"{'part':<24}{'stored MB':>10}" + "".join(f"{f'L{lv} MB':>10}{f'L{lv} cpu s':>11}" for lv in levels))
        totals = {lv: [0, 0.0] for lv in levels}
        for part in parts:
            data = gzip.decompress(part.read_bytes())
            row = f"{part.name:<24}{len(data) / 1e6:>10.2f}"
            for lv in levels:
                size, cpu = compressed(data, lv)
                totals[lv][0] += size
                totals[lv][1] += cpu
                row += f"{size / 1e6:>10.2f}{cpu:>11.3f}"
            print(row)
        print(f"{'all (× text)':<34}" + "".join(f"{t[0] / text:>10.2f}{t[1]:>11.3f}" for t in totals.values()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
