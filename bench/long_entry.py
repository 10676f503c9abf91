"""Chunking one long entry with no newline: peak RSS and time of `memdock chunk`.

    python bench/long_entry.py --mb 30 --style punct     # "ab,cd.ef;" repeated: no whitespace at all
    python bench/long_entry.py --mb 5 --style words      # words and spaces, no newline
    python bench/long_entry.py --mb 5 --style letters    # one run of "a": a single approximate token

The entry is imported with `--max-entry-bytes` raised above it; `memdock chunk` then runs as the child of a small
wrapper process, whose RUSAGE_CHILDREN ru_maxrss is the figure (the child inherits nothing of this process).
A tiny corpus chunked the same way gives the baseline.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

WRAPPER = (
    "import resource, subprocess, sys, time; t = time.monotonic(); "
    "subprocess.run([sys.executable, '-m', 'memdock', 'chunk', sys.argv[1], '-o', sys.argv[2], '-q'], check=True, "
    "stdout=subprocess.DEVNULL); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.monotonic() - t)"
)


def body(size: int, style: str) -> str:
    if style == "punct":
        return ("ab,cd.ef;" * (size // 9 + 1))[:size]
    if style == "letters":
        return "a" * size
    rng = random.Random(1)
    words = ["alpha", "beta", "gamma", "delta", "release", "migration", "cache", "staging", "x1", "database,", "done."]
    parts, n = [], 0
    while n < size:
        w = rng.choice(words)
        parts.append(w)
        n += len(w) + 1
    return " ".join(parts)[:size]


def chunk_peak(root: Path, name: str, text: str) -> tuple[float, float]:
    (root / f"{name}.jsonl").write_text(json.dumps({"thread_id": "t", "id": name, "body": text}) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "memdock",
            "import",
            str(root / f"{name}.jsonl"),
            "-f",
            "jsonl",
            "-q",
            "-o",
            str(root / f"{name}-corpus"),
            "--max-entry-bytes",
            str(len(text) + 1),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    out = subprocess.run(
        [sys.executable, "-c", WRAPPER, str(root / f"{name}-corpus"), str(root / f"{name}-chunks")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return int(out[0]) / 1024, float(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=5.0)
    ap.add_argument("--style", choices=["punct", "words", "letters"], default="punct")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="memdock-bench-") as tmp:
        root = Path(tmp)
        base, _ = chunk_peak(root, "tiny", "hello world")
        peak, seconds = chunk_peak(root, "long", body(int(args.mb * 1e6), args.style))
    print(
        f"{args.mb:g} MB entry ({args.style}): chunk peak RSS {peak:.0f} MB (baseline {base:.0f} MB), {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
