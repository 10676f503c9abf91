"""The parent's tail of a first `memdock index` / `memdock add`: from the adapter's first checkpoint (a first sqlite
load reports them all once its file is in place, its work done) to the ledger's last commit, in this checkout and in
another (--baseline), interleaved, in one run.

Each run is the CLI in a process of its own (PYTHONPATH the tree's src) with timers around the engine's steps:
`end` the stream's end line written, `first` the adapter's first checkpoint read (the call's thread), `done` the
ledger's commit of the adapter's answer (`IndexRun.indexed`) returned, `pre` what `Ledger.prewrite` took (this
checkout writes the held rows while the adapter finishes, between `end` and `first`). The tail, `done - first`, is
the parent working alone; `done - end` the whole wait after the stream (the adapter's tail, then the parent's);
wall is the whole process. The corpora are bench/peers.py's, as bench/add_baseline.py's.

    python bench/ledger_tail.py --baseline /path/to/other/checkout --chunks 100000 --reps 3
    python bench/ledger_tail.py --baseline /path/to/other/checkout --notes 20000 --reps 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from peers import write_notes  # noqa: E402
from synthetic import Vocabulary, write_bundle  # noqa: E402

PARENT = """import json, sys, time
out, sys.argv = sys.argv[1], ["memdock", *sys.argv[2:]]
from memdock.cli.main import main
from memdock.engine import index as I, ledger as L, stream as S
t = {}

def timed(cls, name, key, first=False):
    fn = getattr(cls, name, None)
    if fn is None:
        return
    def wrapper(*a, **k):
        start = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            if not (first and key in t):
                t[key] = time.perf_counter()
            if key == "pre_end":
                t["pre"] = t["pre_end"] - start
    setattr(cls, name, wrapper)

timed(S.InputStream, "end", "end")
timed(S.InputStream, "on_checkpoint", "first", first=True)
timed(I.IndexRun, "indexed", "done")
timed(L.Ledger, "prewrite", "pre_end")
start = time.perf_counter()
code = main()
t["exit"] = time.perf_counter()
json.dump({k: (v - start if k != "pre" else v) for k, v in t.items()}, open(out, "w"))
sys.exit(code)
"""


def run(tree: Path, source: Path, fmt: str, store: Path) -> dict[str, float]:
    """One first index of SOURCE into STORE from TREE's src: the engine's step times (seconds from the CLI's start)."""
    out = store.with_name(store.name + ".json")
    how = ["index", str(source)] if fmt == "chunks" else ["add", str(source), "-f", fmt]
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    wall = time.perf_counter()
    cmd = [sys.executable, "-c", PARENT, str(out), *how, "--data-dir", str(store), "-q"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    t = json.loads(out.read_text())
    t["wall"] = time.perf_counter() - wall
    out.unlink()
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of memdock (say, an older commit)")
    ap.add_argument("--chunks", type=int, default=0, help="synthetic chunks, `memdock index`; 0: the notes instead")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ledger-tail-", dir=args.tmp))
    try:
        if args.chunks > 0:
            source, fmt = work / "chunks", "chunks"
            write_bundle(source, Vocabulary(work), args.chunks, random.Random(11))
        else:
            source, fmt = work / "notes.jsonl", "jsonl"
            write_notes(source, args.notes)
        print(f"{args.chunks or args.notes} {fmt}, a first index into sqlite, {args.reps} repetitions")
        trees = {"this": ROOT, "baseline": args.baseline.resolve()}
        tails: dict[str, list[float]] = {name: [] for name in trees}
        afters: dict[str, list[float]] = {name: [] for name in trees}
        for rep in range(args.reps):
            for name, tree in trees.items():
                load = os.getloadavg()[0]
                store = work / f"{name}-{rep}"
                t = run(tree, source, fmt, store)
                tails[name].append(t["done"] - t["first"])
                afters[name].append(t["done"] - t["end"])
                print(
                    f"rep {rep} {name:8} wall {t['wall']:6.2f} s  end {t['end']:5.2f}  first checkpoint "
                    f"{t['first']:5.2f}  ledger done {t['done']:5.2f}  end to done {t['done'] - t['end']:5.3f} s  "
                    f"tail {t['done'] - t['first']:5.3f} s  "
                    f"prewrite {t.get('pre', 0.0):5.3f} s  load {load:.1f}",
                    flush=True,
                )
                shutil.rmtree(store)
        for what, values in (("tail", tails), ("end to done", afters)):
            mid = {name: sorted(v)[len(v) // 2] for name, v in values.items()}
            print(f"median {what}: this {mid['this']:.3f} s, baseline {mid['baseline']:.3f} s")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
