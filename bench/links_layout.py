"""Bytes and key-lookup CPU of the sqlite adapter's `links` table in other layouts, from the links of a store.

Copies a store's links (rowid, key, code, source, target) into one scratch database per layout, vacuums it, and
prints each layout's bytes (dbstat) per object and per link, and the CPU microseconds of one lookup by key (the
get_edge / links.stored path). The layouts:

- current: the schema's (a rowid table, a unique index on (key, type), indexes on source and on target);
- no_pending: without the `pending` column (always 0 since schema 9);
- key32: no pending, and the key index on the key's top 32 bits only, not unique (a lookup reads `key >> 32`
  through the index and checks the whole key on the row; `+key` keeps the planner on the index);
- clustered: WITHOUT ROWID, clustered by (source, target, code), the rowid a column with an index of its own.

    python bench/links_layout.py ~/.memdock/stores/sqlite/data/memory.sqlite
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from pathlib import Path

_COLUMNS = "key INTEGER NOT NULL, code INTEGER NOT NULL, source INTEGER NOT NULL, target INTEGER NOT NULL"
_ROWID_TABLE = f"CREATE TABLE links(rowid INTEGER PRIMARY KEY, {_COLUMNS}"
_ENDS = ("CREATE INDEX links_source ON links(source)", "CREATE INDEX links_target ON links(target)")
_EXACT = "SELECT rowid FROM links WHERE key = ?1 AND code >> 1 = ?2"
_PREFIX = "SELECT rowid FROM links WHERE key >> 32 = ?3 AND +key = ?1 AND code >> 1 = ?2"

LAYOUTS: dict[str, tuple[tuple[str, ...], str]] = {
    "current": (
        (
            f"{_ROWID_TABLE}, pending INTEGER NOT NULL DEFAULT 0)",
            "CREATE UNIQUE INDEX links_key ON links(key, code >> 1)",
            *_ENDS,
        ),
        _EXACT,
    ),
    "no_pending": ((f"{_ROWID_TABLE})", "CREATE UNIQUE INDEX links_key ON links(key, code >> 1)", *_ENDS), _EXACT),
    "key32": ((f"{_ROWID_TABLE})", "CREATE INDEX links_key ON links(key >> 32)", *_ENDS), _PREFIX),
    "clustered": (
        (
            f"CREATE TABLE links(rowid_ INTEGER NOT NULL, {_COLUMNS}, PRIMARY KEY(source, target, code)) WITHOUT ROWID",
            "CREATE UNIQUE INDEX links_key ON links(key, code >> 1)",
            "CREATE UNIQUE INDEX links_rowid ON links(rowid_)",
            "CREATE INDEX links_target ON links(target)",
        ),
        "SELECT rowid_ FROM links WHERE key = ?1 AND code >> 1 = ?2",
    ),
}


def build(path: Path, ddl: tuple[str, ...], rows: list[tuple[int, int, int, int, int]]) -> sqlite3.Connection:
    """A database at PATH holding ROWS in the layout DDL (the table first, then its indexes), vacuumed."""
    conn = sqlite3.connect(path)
    conn.execute(ddl[0])
    rowid = "rowid_" if "WITHOUT ROWID" in ddl[0] else "rowid"
    conn.executemany(f"INSERT INTO links({rowid}, key, code, source, target) VALUES (?,?,?,?,?)", rows)
    for statement in ddl[1:]:
        conn.execute(statement)
    conn.commit()
    conn.execute("VACUUM")
    return conn


def lookup_us(conn: sqlite3.Connection, query: str, rows: list[tuple[int, int, int, int, int]]) -> float:
    """CPU microseconds of one lookup by (key, type) over ROWS (each found once)."""
    args = [(key, code >> 1, key >> 32) if "?3" in query else (key, code >> 1) for _, key, code, _, _ in rows]
    start = time.process_time()
    for a in args:
        if not conn.execute(query, a).fetchall():
            raise SystemExit(f"lookup of key {a[0]} found nothing")
    return (time.process_time() - start) / len(args) * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", type=Path, help="a sqlite adapter's memory.sqlite")
    ap.add_argument("--lookups", type=int, default=20000, help="links looked up by key per layout")
    args = ap.parse_args()
    src = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    rows = src.execute("SELECT rowid, key, code, source, target FROM links ORDER BY rowid").fetchall()
    if not rows:
        raise SystemExit(f"{args.store}: no links")
    print(f"{len(rows)} links")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (ddl, query) in LAYOUTS.items():
            conn = build(Path(tmp) / f"{name}.sqlite", ddl, rows)
            sizes = dict(conn.execute("SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'links%' GROUP BY name"))
            total = sum(sizes.values())
            each = "  ".join(f"{k} {v / 1e6:.2f}" for k, v in sorted(sizes.items()))
            us = lookup_us(conn, query, rows[: args.lookups])
            print(f"{name:10} {total / 1e6:5.2f} MB  {total / len(rows):5.1f} B/link  ({each})  lookup {us:5.1f} us")
            conn.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
