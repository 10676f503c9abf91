"""Payload throughput and memory: raw orjson JSONL (the baseline) vs BundleWriter/BundleReader with validation.

    python bench/payload.py                    # 200,000 chunk records, both engines, plus peak RSS at 1,000,000
    python bench/payload.py --records 20000 --rss-records 100000

Records are ~1.5 KB chunks; 10 % carry a 384-d vector (inline JSON floats in
the baseline, the float32 matrix in the bundle). Each figure is the median of
three runs, printed side by side; ratios are what to read on a noisy machine.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _common import on_path

on_path("src")

from memdock.bundle import BundleReader, BundleWriter  # noqa: E402
from memdock.ids import content_hash  # noqa: E402

RUNS = 3

WORDS = [
    "memory",
    "thread",
    "entry",
    "chunk",
    "graph",
    "adapter",
    "payload",
    "schema",
    "backend",
    "query",
    "index",
    "decision",
    "plan",
    "review",
]


def make_records(n: int, seed: int = 7):
    rnd = random.Random(seed)
    base_text = " ".join(rnd.choice(WORDS) for _ in range(200))[:1300]
    for i in range(n):
        text = f"{i} {base_text}"
        rec = {
            "id": f"chunk:{i:012d}",
            "entry_id": f"entry:{i // 3:012d}",
            "thread_id": f"thread:{i // 300:08d}",
            "position": i % 3,
            "text": text,
            "header": "Thread title — agent (planner, Plan) 2025-12-09T02:35:37Z",
            "start": 0,
            "end": len(text),
            "token_count": 260,
            "content_hash": content_hash(text),
            "author": "agent",
            "role": "planner",
            "entry_type": "Plan",
            "event_time": "2025-12-09T02:35:37Z",
        }
        vec = [rnd.random() for _ in range(384)] if i % 10 == 0 else None
        yield rec, vec


def bench_raw(records, path: Path):
    t = time.perf_counter()
    with open(path, "wb") as f:
        for rec, vec in records:
            f.write(orjson.dumps(rec | {"vector": vec} if vec else rec, option=orjson.OPT_APPEND_NEWLINE))
    w = time.perf_counter() - t
    t = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
            n += 1
    return w, time.perf_counter() - t, n


def bench_bundle(records, path: Path, engine: str):
    import os

    os.environ["MEMDOCK_VALIDATOR"] = engine
    from memdock.validation import get_engine

    get_engine.cache_clear()
    t = time.perf_counter()
    with BundleWriter(path, "chunks") as w:
        for rec, vec in records:
            w.write("chunk", rec)
            if vec:
                w.write_embedding(rec["id"], vec, "bench-384")
    wt = time.perf_counter() - t
    t = time.perf_counter()
    r = BundleReader(path)
    n = sum(1 for _ in r.records("chunk"))
    n_emb = sum(1 for _ in r.records("embedding"))
    m = r.embeddings()
    m.row(0)
    m.close()
    return wt, time.perf_counter() - t, n, n_emb


def bundle_once(sample, path: Path, engine: str, k: int) -> tuple[float, float]:
    shutil.rmtree(path, ignore_errors=True)
    bw, br, cnt, _ = bench_bundle(sample, path, engine)
    assert cnt == k
    return bw, br


def median_of(measure, *args) -> tuple[float, ...]:
    """Each figure MEASURE(*ARGS) returns, as its median over RUNS runs (this box is noisy; one run can be off by
    a third)."""
    results = [measure(*args) for _ in range(RUNS)]
    return tuple(statistics.median(r[i] for r in results) for i in range(len(results[0])))


def rss_child(mode: str, n: int, path: str) -> None:
    if mode == "write":
        with BundleWriter(path, "chunks") as w:
            for rec, vec in make_records(n):
                w.write("chunk", rec)
                if vec:
                    w.write_embedding(rec["id"], vec, "bench-384")
    else:
        r = BundleReader(path)
        for _ in r.records("chunk"):
            pass
        for _ in r.records("embedding"):
            pass
    print(peak_rss_mb())


def peak_rss_mb() -> int:
    """VmHWM of this process image (ru_maxrss would include the parent's peak, kept across exec on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--rss-records", type=int, default=1_000_000)
    ap.add_argument("--child", nargs=3, metavar=("MODE", "N", "PATH"))
    args = ap.parse_args()
    if args.child:
        rss_child(args.child[0], int(args.child[1]), args.child[2])
        return
    tmp = Path(tempfile.mkdtemp(prefix="memdock-bench-"))
    try:
        n = args.records
        data = list(make_records(n))
        size_mb = sum(len(orjson.dumps(r)) for r, _ in data) / 1e6
        print(f"{n:,} chunk records, {size_mb / n * 1e6:.0f} B avg without vectors, 10 % with a 384-d vector")
        rw, rr, _ = median_of(bench_raw, data, tmp / "raw.jsonl")
        print(f"{'':28}{'write rec/s':>14}{'read rec/s':>14}{'write ×raw':>12}{'read ×raw':>11}")
        print(f"{'raw orjson JSONL (baseline)':28}{n / rw:>14,.0f}{n / rr:>14,.0f}{1.0:>12.2f}{1.0:>11.2f}")
        engines = ["jsonschema-rs", "jsonschema"]
        for engine in engines:
            try:
                __import__("jsonschema_rs") if engine == "jsonschema-rs" else None
            except ImportError:
                print(f"{'bundle + ' + engine:28}  (not installed)")
                continue
            sample = data if engine == "jsonschema-rs" else data[: max(1, n // 10)]
            k = len(sample)
            bw, br = median_of(bundle_once, sample, tmp / f"bundle-{engine}", engine, k)
            rw_k, rr_k = rw * k / n, rr * k / n
            label = "bundle + " + engine + ("" if k == n else f" ({k:,})")
            print(f"{label:28}{k / bw:>14,.0f}{k / br:>14,.0f}{rw_k / bw:>12.2f}{rr_k / br:>11.2f}")
        del data
        if args.rss_records:
            path = tmp / "rss-bundle"
            out = {}
            for mode in ("write", "read"):
                res = subprocess.run(
                    [sys.executable, __file__, "--child", mode, str(args.rss_records), str(path)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                out[mode] = int(res.stdout.strip().splitlines()[-1])
            print(f"peak RSS at {args.rss_records:,} records: writer {out['write']} MB, reader {out['read']} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
