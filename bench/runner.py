"""Runner overhead: bare interpreter start vs a one-shot null-adapter call vs worker-mode queries.

    python bench/runner.py [--oneshot 30] [--queries 1000] [--flood MB]

--flood MB also times the event channel against tests/adapters/hostile-stdout-flood: MB x 80,000 short garbage
lines on stdout, then 100 MiB without a newline, reporting the parent's CPU seconds for each (it was quadratic).

Targets: one-shot <= 3x the bare `python -I -c pass`; worker-mode overhead p50 <= 1 ms, p99 <= 5 ms.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import on_path

on_path("src")

from memdock.registry import AdapterDescriptor, Registry  # noqa: E402
from memdock.runner.backend import SubprocessBackend  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--oneshot", type=int, default=30)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--flood", type=int, default=0, help="MB of garbage stdout lines for the channel figure (0: skip)")
    args = ap.parse_args()
    null = Registry().get("null")
    store = Path(tempfile.mkdtemp(prefix="memdock-bench-runner-"))

    bare = []
    for _ in range(args.oneshot):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t)

    one = SubprocessBackend(null, store)
    one.get_capabilities()
    shots = []
    for _ in range(args.oneshot):
        t = time.perf_counter()
        one.query("hello")
        shots.append(time.perf_counter() - t)

    pooled = SubprocessBackend(null, store, workers=1)
    pooled.query("warm up")
    lat = []
    for i in range(args.queries):
        t = time.perf_counter()
        pooled.query(f"question {i}")
        lat.append(time.perf_counter() - t)
    pooled.close()

    b50, s50 = statistics.median(bare), statistics.median(shots)
    print(f"{'':34}{'p50 ms':>10}{'p99 ms':>10}")
    print(f"{'python -I -c pass':34}{b50 * 1e3:>10.1f}{pct(bare, 99) * 1e3:>10.1f}")
    print(
        f"{'one-shot null query (runner)':34}{s50 * 1e3:>10.1f}{pct(shots, 99) * 1e3:>10.1f}   = {s50 / b50:.2f}x "
        "bare start (target <= 3x)"
    )
    print(
        f"{f'worker-mode null query (x{args.queries})':34}{statistics.median(lat) * 1e3:>10.3f}"
        f"{pct(lat, 99) * 1e3:>10.3f}   (targets p50 <= 1 ms, p99 <= 5 ms)"
    )
    if args.flood:
        flood(args.flood, store)


def flood(mb: int, store: Path) -> None:
    hostile = AdapterDescriptor.load(
        Path(__file__).resolve().parents[1] / "tests" / "adapters" / "hostile-stdout-flood"
    )
    for garbage_mb, long_bytes, what in (
        (mb, 0, f"{mb * 80_000:,} short garbage lines"),
        (0, 100 << 20, "100 MiB, no newline"),
    ):
        b = SubprocessBackend(
            hostile,
            store / f"flood-{garbage_mb}",
            config={"garbage_mb": garbage_mb, "long_bytes": long_bytes},
            retries=0,
            timeouts={"query": 3600, "idle": 3600},
        )
        before = resource.getrusage(resource.RUSAGE_SELF)
        b.query("x")
        after = resource.getrusage(resource.RUSAGE_SELF)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        print(
            f"stdout flood, {what}: parent CPU {cpu:.2f} s; dropped {b.last_call.quarantined:,} lines, "
            f"{b.last_call.dropped_bytes:,} bytes"
        )


if __name__ == "__main__":
    main()
