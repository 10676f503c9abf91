"""Chunks' attrs on sqlite: the bytes they take and what a query with a metadata filter (`params.where`) costs, on a
store made by this checkout and one made by another (--baseline), interleaved, in one run.

Each tree's `memdock add` makes its store from bench/peers.py's 20k notes (each note's chunk carries
`metadata.source_id`); then each tree's own adapter, in a process of its own (InProcessBackend: no subprocess per
query), answers the same queries on its store: every query word once with `where` naming QUERIES/10 notes'
source ids (--ids), and once with no filter, on one connection (a second pass, timed: as a service answers), then every
filtered query again on a connection of its own (as one `memdock query` process does). Printed: the chunks' attrs'
bytes (stored, a chunk), the store's size, the CPU seconds of each set of queries (the process's own, RUSAGE_SELF,
the queries only), and whether both trees answered every query with the same hits, whole.

    python bench/sqlite_attrs.py --baseline /path/to/other/checkout --reps 3
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
from pathlib import Path

from _common import on_path

ROOT = on_path("bench")

from add_baseline import add  # noqa: E402
from peers import write_notes  # noqa: E402

# Run by each tree's python (PYTHONPATH its src): its own adapter answers QUERIES on STORE; prints JSON.
DRIVER = """import json, resource, sys
from memdock.inprocess import InProcessBackend
store, plan = sys.argv[1], json.loads(sys.argv[2])
def cpu():
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime
def ask(backend, word, where):
    return backend.call("query", {"text": word, "limit": 10, **({"where": where} if where else {})})["hits"]
out = {"answers": []}
backend = InProcessBackend.bundled("sqlite", store)
for name, where in (("filtered", plan["where"]), ("plain", None)):
    for _ in range(2):  # the first pass warms the page cache and the adapter's imports: timed, the second
        started = cpu()
        answers = [ask(backend, word, where) for word in plan["words"]]
        out[name] = cpu() - started
    out["answers"] += answers
backend.close()
started = cpu()
for word in plan["words"]:  # each query on a connection of its own, as a `memdock query` process has
    backend = InProcessBackend.bundled("sqlite", store)
    out["answers"].append(ask(backend, word, plan["where"]))
    backend.close()
out["cold"] = cpu() - started
print(json.dumps(out))
"""

STORED = (  # a chunk's attrs stored as a template's mark and what lies between (chunk_attrs.py) begin with 1 to 8
    "SELECT count(*), sum(length(CAST(attrs AS BLOB))), count(*) FILTER (WHERE unicode(attrs) BETWEEN 1 AND 8) "
    "FROM chunk_rows"
)


def stored_attrs(store: Path) -> tuple[int, int, int]:
    """(chunks, bytes of their stored attrs, how many are stored with a template) in STORE."""
    import sqlite3

    conn = sqlite3.connect(f"file:{store / 'data' / 'memory.sqlite'}?mode=ro", uri=True)
    try:
        chunks, size, templated = conn.execute(STORED).fetchone()
    finally:
        conn.close()
    return chunks, size or 0, templated


def answer(tree: Path, store: Path, plan: dict, home: Path | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), **({"MEMDOCK_HOME": str(home)} if home else {}))
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(store), json.dumps(plan)], check=True, capture_output=True, env=env
    )
    return json.loads(done.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="another checkout of memdock (say, main's)")
    ap.add_argument("--baseline-home", type=Path, default=None, help="MEMDOCK_HOME for the baseline's runs")
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--queries", type=int, default=60, help="query words (each asked filtered and not)")
    ap.add_argument("--ids", type=int, default=0, help="source ids the filter names (default: QUERIES/10)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sqlite-attrs-", dir=args.tmp))
    try:
        source = work / "notes.jsonl"
        docs = write_notes(source, args.notes)
        text_bytes = sum(len(t.encode()) for _, t in docs)
        rnd = random.Random(7)
        pool = sorted({w.lower() for _, t in docs[:2000] for w in t.split() if w.isalpha() and len(w) > 3})
        words = rnd.sample(pool, args.queries)
        ids = [eid.removeprefix("entry:") for eid, _ in rnd.sample(docs, args.ids or max(1, args.queries // 10))]
        plan = {"words": words, "where": {"source_id": ids}}
        print(f"{args.notes} notes, {text_bytes / 1e6:.2f} MB; {len(words)} words, filtered on {len(ids)} source ids")
        trees = {"this": ROOT, "baseline": args.baseline.resolve()}
        homes = {"this": None, "baseline": args.baseline_home}
        answers: dict[str, list] = {}
        for rep in range(args.reps):
            for name, tree in trees.items():
                store = work / f"{name}-{rep}"
                add(tree, source, "jsonl", "sqlite", store, homes[name])
                chunks, size, templated = stored_attrs(store)
                load = os.getloadavg()[0]
                got = answer(tree, store, plan, homes[name])
                answers.setdefault(name, got["answers"])
                store_bytes = sum(p.stat().st_size for p in store.rglob("*") if p.is_file())
                print(
                    f"rep {rep} {name:8} chunk attrs {size / chunks:5.1f} B a chunk ({size / text_bytes:.3f}x text, "
                    f"{templated}/{chunks} templated)  store {store_bytes / text_bytes:5.2f}x  cpu: filtered "
                    f"{got['filtered']:6.3f} s, plain {got['plain']:6.3f} s, filtered one connection each "
                    f"{got['cold']:6.3f} s  load {load:.1f}",
                    flush=True,
                )
                shutil.rmtree(store)
        same = answers["this"] == answers["baseline"]
        print(f"answers identical (every hit, whole): {same}")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
