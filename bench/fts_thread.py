"""FTS5's inserts beside Python work: on the same thread, on a thread of their own, in a process of their own.

    python bench/fts_thread.py [--chunks 100000] [--reps 2] [--rounds 15]

Why a bulk load of the sqlite adapter keeps chunk_fts's inserts on its main thread. The texts are
bench/synthetic.py's chunks (those of bench/peers.py's chunks-only part). For each batch of 20,000 the main thread
does "Python work" standing for what the adapter's main thread does besides the inserts (each chunk's row built and
hashed: here a tuple and a sha256 of its text, ROUNDS times), then hands the batch to the index, one of these ways:

- `inline`: inserted on the same thread, `executemany` (the adapter's way: the work waits for the inserts);
- `thread`: inserted by a second thread with its own connection to a file of its own, `executemany`;
- `thread-json`: the same, one `INSERT ... SELECT ... FROM json_each(?)` a batch, the batch as one JSON array;
- `process`: inserted by a second process (multiprocessing, spawn), the batch sent pickled through a pipe.

Each way ends with the index merged (`optimize`) and committed. Prints each way's wall seconds, the CPU seconds of
this process and of its children, and, for scale, the work alone and the inserts alone. SQLite lets go of the GIL
while it steps a statement, but `executemany` takes it back for every row it binds, so a thread inserting beside a
thread running Python waits for the GIL at every row.
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import queue
import random
import resource
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters" / "sqlite"))
from memdock_sqlite import db
from synthetic import Vocabulary, write_bundle

BATCH = 20000
INSERT = "INSERT INTO chunk_fts(rowid, header, body) VALUES (?, ?, ?)"
INSERT_JSON = (
    "INSERT INTO chunk_fts(rowid, header, body) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)"
)
Rows = list[tuple[int, str, str]]


def open_index(path: Path) -> sqlite3.Connection:
    """A new database at PATH with the adapter's chunk_fts, no journal, no fsync, a transaction open."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute(f"PRAGMA page_size = {db.PAGE_SIZE}")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute(
        "CREATE VIRTUAL TABLE chunk_fts USING fts5(body, header, content='chunks', content_rowid='rowid', "
        f"tokenize='{db.TOKENIZE}')"
    )
    conn.execute(f"INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('hashsize', {db.FTS_HASH_BYTES})")
    conn.execute("BEGIN")
    return conn


def close_index(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES ('optimize')")
    conn.execute("COMMIT")
    conn.close()


def work(rows: Rows, rounds: int) -> int:
    """Python work on ROWS, ROUNDS times: a tuple and a sha256 per row."""
    n = 0
    for _ in range(rounds):
        for rowid, header, body in rows:
            n += len((rowid, header, hashlib.sha256(body.encode()).digest()))
    return n


def _child(pipe: Connection, path: str) -> None:
    conn = open_index(Path(path))
    while (rows := pipe.recv()) is not None:
        conn.executemany(INSERT, rows)
    close_index(conn)
    pipe.send("done")


class Index:
    """Where a way's batches go: `add` each, then `close`."""

    def __init__(self, way: str, path: Path):
        self.way = way
        if way == "inline":
            self.conn = open_index(path)
        elif way.startswith("thread"):
            self.queue: queue.Queue[Any] = queue.Queue(2)
            self.thread = threading.Thread(target=self._run, args=(path,))
            self.thread.start()
        else:
            ctx = multiprocessing.get_context("spawn")
            self.pipe, theirs = ctx.Pipe()
            self.process = ctx.Process(target=_child, args=(theirs, str(path)))
            self.process.start()

    def _run(self, path: Path) -> None:
        conn = open_index(path)
        while (rows := self.queue.get()) is not None:
            if self.way == "thread-json":
                conn.execute(INSERT_JSON, (rows,))
            else:
                conn.executemany(INSERT, rows)
        close_index(conn)

    def add(self, rows: Rows) -> None:
        if self.way == "inline":
            self.conn.executemany(INSERT, rows)
        elif self.way == "thread":
            self.queue.put(rows)
        elif self.way == "thread-json":
            self.queue.put(orjson.dumps(rows))
        else:
            self.pipe.send(rows)

    def close(self) -> None:
        if self.way == "inline":
            close_index(self.conn)
        elif self.way.startswith("thread"):
            self.queue.put(None)
            self.thread.join()
        else:
            self.pipe.send(None)
            self.pipe.recv()
            self.process.join()


def cpu() -> tuple[float, float]:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], None]) -> tuple[float, float, float]:
    """Wall, own CPU and children's CPU seconds of FN."""
    (own0, kids0), t = cpu(), time.perf_counter()
    fn()
    wall, (own1, kids1) = time.perf_counter() - t, cpu()
    return wall, own1 - own0, kids1 - kids0


def run_way(way: str, batches: list[Rows], rounds: int, folder: Path) -> tuple[float, float, float]:
    path = folder / f"{way}.sqlite"
    path.unlink(missing_ok=True)

    def go() -> None:
        index = None if way == "work" else Index("inline" if way == "inserts" else way, path)
        for rows in batches:
            if way != "inserts":
                work(rows, rounds)
            if index is not None:
                index.add(rows)
        if index is not None:
            index.close()

    return timed(go)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=15, help="times the Python work goes over each batch")
    ap.add_argument("--ways", default="work,inserts,inline,thread,thread-json,process")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        texts = write_bundle(folder / "chunks", Vocabulary(folder), args.chunks, random.Random(11))
        rows = [(i + 1, "", text) for i, (_, text) in enumerate(texts)]
        batches = [rows[k : k + BATCH] for k in range(0, len(rows), BATCH)]
        ways = args.ways.split(",")
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(args.reps):
            for way in ways:
                got = run_way(way, batches, args.rounds, folder)
                best[way] = min(best.get(way, got), got)
        print(f"{args.chunks:,} chunks, {args.rounds} rounds of work a batch, best of {args.reps}, load {_load()}")
        print(f"{'way':<14}{'wall s':>9}{'own CPU s':>11}{'children CPU s':>16}")
        for way in ways:
            wall, own, kids = best[way]
            print(f"{way:<14}{wall:>9.2f}{own:>11.2f}{kids:>16.2f}")
    return 0


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


if __name__ == "__main__":
    sys.exit(main())
