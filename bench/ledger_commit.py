"""The core ledger's share of an index run, this checkout beside another (say, main's) in the same run:
`changed` and `add_pending` (what `build_delta` asks of it), `commit` (what each adapter checkpoint costs), and a
second run's queries by thread (`vanished` and `kept_for_other_sources` over every thread, after a re-run that saw
all records but the last 1 %: what a re-add's prune asks), in CPU seconds of the measuring process.

    python bench/ledger_commit.py [--records 100000] [--slice 20000] [--reps 3] [--baseline ../main]

Ids are hashed as memdock makes them (random order in the ledger's b-trees), 250 a thread. SLICE is the ids one
checkpoint carries (the sqlite adapter's bulk load reports 20,000 at a time). Repetitions alternate between the
checkouts; read the figures side by side, not as absolute seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(records: int, piece: int) -> str:
    from memdock.engine.ledger import Ledger

    items = [
        (f"chunk:{hashlib.sha256(str(i).encode()).hexdigest()[:32]}", hashlib.sha256(b"h%d" % i).digest()[:16])
        for i in range(records)
    ]
    rows = [(rid, h, f"t{i // 250}", "chunk") for i, (rid, h) in enumerate(items)]
    threads = sorted({r[2] for r in rows})
    with tempfile.TemporaryDirectory() as tmp:
        ledger = Ledger(Path(tmp) / "ledger.sqlite")
        ledger.begin_run("bench")
        t0 = time.process_time()
        for s in range(0, records, 2000):
            ledger.changed(rows[s : s + 2000])
            ledger.add_pending(rows[s : s + 2000])
        t1 = time.process_time()
        for s in range(0, records, piece):
            ledger.commit([r[0] for r in rows[s : s + piece]])
        t2 = time.process_time()
        ledger.finish_run()
        ledger.begin_run("bench")
        for s in range(0, records - records // 100, 2000):
            ledger.changed(rows[s : min(s + 2000, records - records // 100)])
        t3 = time.process_time()
        gone = ledger.vanished(threads)
        ledger.kept_for_other_sources(threads)
        t4 = time.process_time()
        ledger.close()
    assert len(gone) == records // 100, len(gone)
    return f"{t1 - t0:.2f} {t2 - t1:.2f} {t4 - t3:.3f}"


def run(tree: Path, records: int, piece: int) -> list[float]:
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); import ledger_commit as b; "
    code += f"print(b.measure({records}, {piece}))"
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout
    return [float(x) for x in out.split()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--slice", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--baseline", type=Path, help="another checkout of memdock, measured in the same run")
    args = ap.parse_args()
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    print(f"{args.records:,} hashed ids, {args.slice:,} a checkpoint, {args.reps} repetitions interleaved")
    print(f"{'checkout':<10} {'rep':>3} {'changed+add_pending s':>22} {'commit s':>9} {'by thread s':>12}")
    for rep in range(1, args.reps + 1):
        for name, tree in trees.items():
            delta, commit, by_thread = run(tree, args.records, args.slice)
            print(f"{name:<10} {rep:>3} {delta:>22.2f} {commit:>9.2f} {by_thread:>12.3f}", flush=True)


if __name__ == "__main__":
    main()
