"""What the tantivy adapter's implied edges cost in CPU, step by step, in one run.

    pip install -e '.[bench]'
    python bench/tantivy_edge_cpu.py [--notes 20000] [--reps 5]

`memdock add -b tantivy` of bench/peers.py's short notes, then the edges the journal's implied entries stand for
(sdk/implied.py), each step of the adapter's edge path timed alone over all of them (CPU seconds, the best of
--reps): making the records (`expand`), rendering their facts, building their documents the long way
(`docs.edge_doc` on a copy with the source's kind) and the short way (`docs.made_edge_doc`), checked equal field for
field. Then tantivy indexing those documents into a new graph index and committing (the process's CPU, tantivy's
indexing thread included, and wall seconds), as the adapter writes them and without their facts' terms: what ranking
the facts from their ends instead of indexing them (issue 31, item 2) would take off the engine.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import on_path

on_path("src", "adapters/common", "adapters/tantivy", "bench")

import tantivy  # noqa: E402
from memdock_tantivy import docs, facts, implied, keys, store  # noqa: E402
from peers import write_notes  # noqa: E402
from tantivy_edges import journal, new_index  # noqa: E402

from memdock.sdk.implied import KEY, expand, explicit  # noqa: E402

SHORT = keys.Keys(store.schema(), compact=True)


def best(reps: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU seconds FN took over REPS calls, and its last result."""
    low, out = float("inf"), None
    for _ in range(reps):
        t = time.process_time()
        out = fn()
        low = min(low, time.process_time() - t)
    return low, out


def indexed(folder: Path, documents: list[tantivy.Document]) -> tuple[float, float]:
    """CPU (every thread of the process) and wall seconds tantivy took to index DOCUMENTS and commit them."""
    w = new_index(folder, store.GRAPH_TEXTS)
    cpu, wall = time.process_time(), time.perf_counter()
    for doc in documents:
        w.add_document(doc)
    w.commit()
    w.wait_merging_threads()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tmp", default=None, help="where stores go (default: the system's temp dir)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tantivy-edge-cpu-", dir=args.tmp))
    try:
        write_notes(work / "notes.jsonl", args.notes)
        add = ["add", str(work / "notes.jsonl"), "-f", "jsonl", "-b", "tantivy", "--data-dir", str(work / "s"), "-q"]
        subprocess.run([sys.executable, "-m", "memdock", *add], check=True, stdout=subprocess.DEVNULL)
        recs = journal(work / "s")
        known = {r["id"]: {"kind": t, **explicit(r)} for t in ("thread", "entity", "entry") for r in recs.get(t, [])}
        entries = [r for r in recs["entry"] if KEY in r]
        steps: list[tuple[str, float]] = []
        cpu, made = best(args.reps, lambda: [implied.Made(e) for entry in entries for e in expand(entry)])
        steps.append(("make the records (expand)", cpu))
        cpu, rendered = best(args.reps, lambda: [facts.render(known.get, e, p) for p in [{}] for e in made])
        steps.append(("render their facts", cpu))
        pairs = list(zip(made, rendered))
        cpu, long = best(
            args.reps,
            lambda: [
                docs.edge_doc({**e, "source_kind": k}, f, ok, SHORT, compact=docs.BINARY) for e, (f, ok, k) in pairs
            ],
        )
        steps.append(("documents, the long way", cpu))
        cpu, short = best(
            args.reps, lambda: [docs.made_edge_doc(e, k, f, ok, SHORT, docs.BINARY) for e, (f, ok, k) in pairs]
        )
        steps.append(("documents, the short way", cpu))
        if [d.to_dict() for d in long] != [d.to_dict() for d in short]:
            raise SystemExit("the short way built other documents than the long way")
        print(f"{args.notes:,} notes, {len(made):,} implied edges; CPU s, best of {args.reps}")
        for label, seconds in steps:
            print(f"  {label:<34} {seconds:6.3f}  {seconds / len(made) * 1e6:5.2f} µs an edge")
        print("tantivy: index the edge documents and commit (process CPU s, wall s)")
        for rep in range(2):
            for label, fact in (("as the adapter writes them", True), ("without their facts' terms", False)):
                documents = [
                    docs.made_edge_doc(e, k, f if fact else "", ok, SHORT, docs.BINARY) for e, (f, ok, k) in pairs
                ]  # an empty fact adds no token: the document without the fact's terms
                cpu, wall = indexed(work / f"g{rep}-{fact}", documents)
                print(f"  {label:<34} {cpu:6.3f}  {wall:6.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
