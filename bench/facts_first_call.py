"""What sqlite's `search_facts` costs when its links' facts are ranked from their ends (schema 9): the first call
on a connection, a warm call, and the first call after one remembered entry on the same connection.

    memdock adapters install tantivy  # not needed: sqlite only
    python bench/facts_first_call.py [--notes 1000,20000] [--reps 3]

For each size, bench/peers.py's notes (real text, hashed ids) are added with `memdock add -f jsonl` into a fresh
sqlite store; the adapter's own modules then answer one `search_facts` in this process, timed in CPU seconds
(`time.process_time`): on a fresh read connection (what a one-shot `memdock search facts` pays), on a connection
that has answered before (a worker's), and right after one entry is written through the adapter's ingest on that
connection, as an import writes it: with the links its `implied_edges` stand for (before schema 14 any write made
the next call read every link's parts again; from 14 a write that only adds is followed: graph_log.py). The
one-shot CLI's wall seconds are printed beside them. Run from another checkout's tree (a copy of this file in its
bench/) to measure that checkout's adapter.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import on_path

ROOT = on_path("src", "bench", "adapters/sqlite", "adapters/common")

from memdock_sqlite import db, graph, implied, ingest  # noqa: E402
from peers import write_notes  # noqa: E402

from memdock.sdk.implied import KEY  # noqa: E402
from memdock.sdk.implied import implied as implied_edges  # noqa: E402

QUESTION = {"text": "Caroline support group", "limit": 10}


def cpu(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def remember(conn: Any, n: int) -> None:
    """One entry written as an import writes it (through the adapter's ingest on CONN): appended to the first
    thread, following its last entry and mentioning the entity most entries mention, so the write adds links too."""
    thread, last, position = conn.execute(
        "SELECT thread_id, id, position FROM node_rows WHERE kind = 'entry' ORDER BY thread_id, position DESC LIMIT 1"
    ).fetchone()
    entity = conn.execute(
        "SELECT n.id FROM links l JOIN node_rows n ON n.rowid = l.target WHERE n.kind = 'entity' "
        "GROUP BY n.id ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()[0]
    entry = {
        "id": f"entry:bench-{n}",
        "thread_id": thread,
        "position": position + 1,
        "body": f"Caroline: a zebra at the support group {n}",
        "author": "user",
        KEY: implied_edges(last, [entity]),
    }
    derived = implied.Implied(lambda ids: None)
    run = ingest.Ingest(conn, on_commit=derived.on_commit, batch_size=2)
    run.implied = derived
    with db.transaction(conn):
        for rtype, records in derived.groups(iter([("entry", [entry])])):
            run.run(rtype, iter(records))
        derived.release()
        run.finish()


def one_shot(store: Path) -> float:
    cmd = [sys.executable, "-m", "memdock", "search", "facts", QUESTION["text"], "-n", "10", "--data-dir", str(store)]
    t = time.perf_counter()
    subprocess.run(cmd + ["-b", "sqlite"], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def measure(store: Path, reps: int) -> dict[str, list[float]]:
    data = store / "data"
    out: dict[str, list[float]] = {"first": [], "warm": [], "after write": [], "one-shot wall": []}
    for _ in range(reps):
        out["first"].append(cpu(lambda: graph.search_facts(db.open_db(data, write=False), QUESTION)))
        out["one-shot wall"].append(one_shot(store))
    writer = db.open_writer(data)
    graph.search_facts(writer, QUESTION)
    for n in range(reps):
        out["warm"].append(cpu(lambda: graph.search_facts(writer, QUESTION)))
        remember(writer, n)
        out["after write"].append(cpu(lambda: graph.search_facts(writer, QUESTION)))
    writer.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", default="1000,20000", help="store sizes, comma-separated")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"{'notes':>7} {'links':>7} | {'first call CPU s':>16} {'warm CPU s':>10} {'after a write':>13} | one-shot s")
    for n in (int(x) for x in args.notes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            source, store = Path(tmp) / "notes.jsonl", Path(tmp) / "store"
            write_notes(source, n)
            add = [sys.executable, "-m", "memdock", "add", str(source), "-f", "jsonl", "-b", "sqlite"]
            subprocess.run([*add, "--data-dir", str(store), "-q"], check=True, stdout=subprocess.DEVNULL)
            links = db.open_db(store / "data", write=False).execute("SELECT count(*) FROM links").fetchone()[0]
            got = {k: statistics.median(v) for k, v in measure(store, args.reps).items()}
            print(
                f"{n:>7} {links:>7} | {got['first']:>16.3f} {got['warm']:>10.4f} {got['after write']:>13.3f} | "
                f"{got['one-shot wall']:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
