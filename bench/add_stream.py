"""`memdock add` with its adapter reading the pass's records as they are made (the default) beside the same add
with the adapter reading the sealed journal segment after the pass (`MEMDOCK_INDEX_STREAM=0`), interleaved, in
one run, on the same checkout.

Prints wall and CPU seconds of each (CPU: the whole add, parent and adapter, from RUSAGE_CHILDREN), and the
load average. On a box with a core to spare, the streamed add's wall time approaches the larger of the pass's
and the adapter's own times, where the other is their sum; on a box whose cores are all busy (a load average at or
above its core count) there is no core to overlap on, and wall time follows the load.

    python bench/add_stream.py --backend sqlite --reps 3
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_markdown, write_notes  # noqa: E402


def cpu_seconds() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def add(source: Path, fmt: str, backend: str, store: Path, streamed: bool) -> tuple[float, float]:
    """Wall and CPU seconds of one `memdock add` into a new store."""
    shutil.rmtree(store, ignore_errors=True)
    env = {**os.environ, "MEMDOCK_INDEX_STREAM": "1" if streamed else "0"}
    args = [sys.executable, "-m", "memdock", "add", str(source), "-f", fmt, "-b", backend, "--data-dir", str(store)]
    cpu, start = cpu_seconds(), time.monotonic()
    subprocess.run([*args, "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    return time.monotonic() - start, cpu_seconds() - cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="sqlite")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--markdown-mb", type=float, default=0.0, help="megabytes of markdown; 0: the notes instead")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="add-stream-", dir=args.tmp))
    try:
        if args.markdown_mb:
            source, fmt = work / "markdown", "watercooler"
            write_markdown(source, args.markdown_mb)
        else:
            source, fmt = work / "notes.jsonl", "jsonl"
            write_notes(source, args.notes)
        what = f"{args.markdown_mb:g} MB of markdown" if args.markdown_mb else f"{args.notes} notes"
        print(f"{what}, `memdock add -b {args.backend}`, {args.reps} repetitions, streamed and not, interleaved")
        print("| rep | streamed wall s | streamed CPU s | sealed wall s | sealed CPU s | load |")
        print("|---|---:|---:|---:|---:|---:|")
        for rep in range(args.reps):
            order = (True, False) if rep % 2 == 0 else (False, True)
            got = {s: add(source, fmt, args.backend, work / "store", s) for s in order}
            load = os.getloadavg()[0]
            (sw, sc), (pw, pc) = got[True], got[False]
            print(f"| {rep} | {sw:.2f} | {sc:.2f} | {pw:.2f} | {pc:.2f} | {load:.1f} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
