"""How long the memdock command takes to start, beside a bare interpreter, in one run.

    python bench/startup.py [--runs 20]

Medians of: `python -c pass` (the floor), `memdock --version` (target <= 3x the floor) and
`memdock recall --help` (parses a real command: imports its module only).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    rows = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "memdock --version": [sys.executable, "-m", "memdock", "--version"],
        "memdock recall --help": [sys.executable, "-m", "memdock", "recall", "--help"],
    }
    timed(rows["memdock --version"])  # warm the page cache
    medians = {name: statistics.median(timed(argv) for _ in range(args.runs)) for name, argv in rows.items()}
    floor = medians["python -c pass"]
    print(f"{'':26}{'median ms':>10}{'x python':>10}   ({args.runs} runs each)")
    for name, median in medians.items():
        print(f"{name:26}{median * 1000:>10.1f}{median / floor:>10.1f}")


if __name__ == "__main__":
    main()
