"""The bytes of the sqlite store's links and nodes' attrs, laid out as schema 11 and 12 do and as they could be.

Indexes bench/peers.py's short notes with `memdock add` (this checkout's sqlite adapter), or reads a store given,
then prints, from its own links and attrs:
- the links and their indexes in bytes (each layout loaded into a database of its own, VACUUMed): schema 11's
  (a unique index of the whole key and type, a `pending` column), schema 12's (an index of the key's top 24 bits),
  one keyed by key and type (WITHOUT ROWID), and schema 12's without the contains rows (what deriving them could
  at most save);
- the CPU of inserting the links with their three indexes in place, against indexes built after (best of --reps);
- an entry's attrs in bytes as schema 11 packs them (zlib with the kind's dictionary) and as the store holds them
  (schema 12: raw deflate with the dictionary and the node's id), and the CPU of reading every node's attrs
  through the store's `nodes` view (best of --reps; give --store a schema-11 store for its figure).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))
sys.path.insert(0, str(ROOT / "bench"))
from memdock_sqlite import db, packed_text  # noqa: E402

Link = tuple[int, int, int, int, int]  # rowid, key, code, source, target
_TABLE = "CREATE TABLE links(rowid INTEGER PRIMARY KEY, key INTEGER, code INTEGER, source INTEGER, target INTEGER"
_ENDS = ["CREATE INDEX s ON links(source)", "CREATE INDEX t ON links(target)"]
LAYOUTS: dict[str, tuple[str, str, list[str], Callable[[Link], tuple]]] = {
    "schema 11": (
        _TABLE + ", pending INTEGER)",
        "INSERT INTO links VALUES (?,?,?,?,?,0)",
        ["CREATE UNIQUE INDEX k ON links(key, code >> 1)", *_ENDS],
        lambda r: r,
    ),
    "schema 12": (
        _TABLE + ")",
        "INSERT INTO links VALUES (?,?,?,?,?)",
        ["CREATE INDEX k ON links(key >> 40)", *_ENDS],
        lambda r: r,
    ),
    "keyed by key and type (WITHOUT ROWID)": (
        "CREATE TABLE links(key INTEGER, type INTEGER, seq INTEGER, timed INTEGER, source INTEGER, target INTEGER, "
        "PRIMARY KEY(key, type)) WITHOUT ROWID",
        "INSERT INTO links VALUES (?,?,?,?,?,?)",
        _ENDS,
        lambda r: (r[1], r[2] >> 1, r[0], r[2] & 1, r[3], r[4]),
    ),
}


def _store(notes: int, work: Path) -> Path:
    import peers

    source = work / "notes.jsonl"
    peers.write_notes(source, notes)
    store = work / "store"
    cmd = [sys.executable, "-m", "memdock", "add", str(source), "-f", "jsonl", "-b", "sqlite", "--data-dir", str(store)]
    subprocess.run([*cmd, "-q"], check=True, stdout=subprocess.DEVNULL)
    return store


def _bytes(create: str, insert: str, indexes: list[str], rows: list[tuple]) -> int:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"PRAGMA page_size = {db.PAGE_SIZE}")
    conn.execute(create)
    conn.executemany(insert, rows)
    for statement in indexes:
        conn.execute(statement)
    conn.commit()
    conn.execute("VACUUM")
    return int(conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name <> 'sqlite_schema'").fetchone()[0])


def _insert_cpu(rows: list[Link], indexes_first: bool) -> float:
    create, insert, indexes, _ = LAYOUTS["schema 12"]
    conn = sqlite3.connect(":memory:")
    conn.execute(create)
    for statement in indexes if indexes_first else []:
        conn.execute(statement)
    conn.execute("BEGIN")
    started = time.process_time()
    for k in range(0, len(rows), 2000):
        conn.executemany(insert, rows[k : k + 2000])
    for statement in [] if indexes_first else indexes:
        conn.execute(statement)
    conn.execute("COMMIT")
    return time.process_time() - started


def _best(reps: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(reps))


def links_report(conn: sqlite3.Connection, reps: int) -> None:
    rows: list[Link] = conn.execute("SELECT rowid, key, code, source, target FROM links ORDER BY rowid").fetchall()
    print(f"{len(rows):,} links")
    for name, (create, insert, indexes, shape) in LAYOUTS.items():
        size = _bytes(create, insert, indexes, [shape(r) for r in rows])
        print(f"  {name:<45} {size / 1e6:6.2f} MB  {size / len(rows):5.1f} bytes a link")
    create, insert, indexes, _ = LAYOUTS["schema 12"]
    others = [r for r in rows if r[2] >> 1 != 0]
    size = _bytes(create, insert, indexes, others)
    print(f"  {'schema 12 without the contains rows':<45} {size / 1e6:6.2f} MB  ({len(others):,} links)")
    during, after = _best(reps, lambda: _insert_cpu(rows, True)), _best(reps, lambda: _insert_cpu(rows, False))
    print(f"  insert with the 3 indexes in place {during:.3f} CPU s, indexes built after {after:.3f} CPU s")


def attrs_report(store: Path, conn: sqlite3.Connection, reps: int) -> None:
    zdict = packed_text.Dictionaries(conn).of_kind("entry")
    rows = conn.execute(
        "SELECT n.attrs, r.attrs FROM nodes n JOIN node_rows r ON r.rowid = n.rowid WHERE n.kind = 'entry'"
    )
    pairs = rows.fetchall()
    as_11 = [packed_text.pack(text, zdict, packed_text.ATTRS_MIN, 11, 2) for text, _ in pairs]
    print(f"{len(pairs):,} entries' attrs: {sum(len(a.encode()) for a, _ in pairs) / len(pairs):.1f} bytes as text")
    stored = sum(len(s if isinstance(s, bytes) else s.encode()) for _, s in pairs) / len(pairs)
    print(
        f"  packed as schema 11 packs them (zlib, the kind's dictionary) {sum(map(len, as_11)) / len(pairs):5.1f} bytes"
    )
    print(f"  as this store holds them (schema {_version(conn)})                      {stored:5.1f} bytes")

    def read() -> float:
        reader = db.open_db(store / "data", write=False)
        assert reader is not None
        started = time.process_time()
        count = len(reader.execute("SELECT attrs FROM nodes").fetchall())
        took = time.process_time() - started
        reader.close()
        return took / count

    print(f"  every node's attrs read through the nodes view: {_best(reps, read) * 1e6:.2f} CPU us a row")


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--store", type=Path, help="a store already indexed (default: index --notes into a temp dir)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="links-layout-") as tmp:
        store = args.store or _store(args.notes, Path(tmp))
        conn = db.open_db(store / "data", write=False)
        assert conn is not None
        try:
            links_report(conn, args.reps)
            attrs_report(store, conn, args.reps)
        finally:
            conn.close()
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
