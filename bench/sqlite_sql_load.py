"""The sqlite adapter's first load against the same load done in SQL: how much of the adapter's time is its Python.

    python bench/sqlite_sql_load.py [--notes 20000] [--reps 3]

Each repetition runs `memdock add notes.jsonl -f jsonl` on bench/peers.py's notes into a new store (the adapter's
CPU seconds: RUSAGE_CHILDREN of the run less the parent's own, as bench/add_baseline.py counts them), then loads the
records that store's journal segment holds (what the adapter was sent, line for line) into a new database of the
adapter's schema (`memdock_sqlite.db.DDL`) in one process with no per-record Python: each batch of 2,000 lines is
one JSON array bound to `INSERT ... SELECT ... FROM json_each(?)` statements that make the node, chunk and link rows
(the links' keys by one registered function, the adapter's own `implied_links.keys` rule), the chunks' bodies into
compressed blocks (`text_blocks.place`, the adapter's code), chunk_fts and node_fts as the adapter fills them, then
FTS5's merge and a VACUUM, with the bulk load's settings (no journal, no fsync). What it leaves out of the
adapter's work, so its figure is a floor and not a port: the attrs dictionaries (attrs stay JSON text), the derived
content hash (the hash is kept as sent), the checks that make the adapter fall back to the database (an id sent
twice, a chunk before its entry), checkpoints. Printed: CPU seconds of both, the ratio, and each one's database
bytes, and the prototype's CPU by stage; its node, chunk and link rows are counted against the adapter's store, so
a load that lost rows shows. (Text blocks are cut per batch of 2,000 here, so there are more of them.)
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "adapters" / "sqlite"))

from add_baseline import add  # noqa: E402
from memdock_sqlite import db, implied_links, packed_text, text_blocks  # noqa: E402
from peers import write_notes  # noqa: E402

from memdock.bundle import BundleReader  # noqa: E402

BATCH = 2000
TIME = "(julianday({v}) - 2440587.5) * 86400.0"
WHEN = "value->>'event_time'"
_ENTRY_KNOWN = ("id", "thread_id", "position", "author", "role", "entry_type", "title", "body", "event_time")
_CHUNK_KNOWN = (
    *("id", "entry_id", "thread_id", "position", "text", "header", "start", "end", "token_count"),
    *("author", "role", "entry_type", "event_time", "content_hash"),
)


def _removed(col: str, known: tuple[str, ...]) -> str:
    return f"json_remove({col}, {', '.join(repr('$.' + k) for k in known)})"


NODE = """INSERT INTO node_rows(id, kind, name, text, thread_id, position, author, role, entry_type, event_time,
  event_ts, attrs, indexed) """
THREADS = (
    NODE + "SELECT value->>'id', 'thread', coalesce(value->>'title', ''), "
    "substr(iif(value->>'topic' <> '', ' ' || (value->>'topic'), '') || iif(value->>'status' <> '', ' ' || "
    "(value->>'status'), '') || iif(value->>'ball' <> '', ' ' || (value->>'ball'), ''), 2), "
    f"value->>'id', NULL, NULL, NULL, NULL, value->>'event_time', {TIME.format(v=WHEN)}, "
    f"{_removed('value', ('id', 'title', 'topic', 'event_time'))}, 0 FROM json_each(?)"
)
ENTITIES = (
    NODE + "SELECT value->>'id', 'entity', value->>'name', (value->>'entity_type') || ' ' || (value->>'name') || "
    "coalesce(' ' || (SELECT group_concat(a.value, ' ') FROM json_each(value->'aliases') a), ''), NULL, NULL, "
    "NULL, NULL, "
    f"value->>'entity_type', NULL, NULL, {_removed('value', ('id', 'entity_type', 'name'))}, 0 FROM json_each(?)"
)
ENTRIES = (
    NODE + "SELECT value->>'id', 'entry', coalesce(value->>'title', ''), value->>'body', value->>'thread_id', "
    "value->>'position', value->>'author', value->>'role', value->>'entry_type', value->>'event_time', "
    f"{TIME.format(v=WHEN)}, "
    f"{_removed('value', (*_ENTRY_KNOWN, 'implied_edges'))}, 0 FROM json_each(?)"
)
_CHUNK_COLUMNS = """id, entry_id, thread_id, position, header, body, start, "end", token_count, author, role,
  entry_type, event_time, event_ts, content_hash, attrs"""
STAGE = f"CREATE TEMP TABLE stage(k INTEGER PRIMARY KEY, {_CHUNK_COLUMNS})"
CHUNKS = f"""INSERT INTO stage(k, {_CHUNK_COLUMNS})
SELECT k, c->>'id', c->>'entry_id', iif(c->>'thread_id' = n.thread_id, '', c->>'thread_id'), c->>'position', h,
  iif(h <> '' AND substr(c->>'text', 1, length(h) + 1) = h || char(10), substr(c->>'text', length(h) + 2),
      c->>'text'),
  c->>'start', c->>'end', c->>'token_count', coalesce(c->>'author', n.author), coalesce(c->>'role', n.role),
  coalesce(c->>'entry_type', n.entry_type), coalesce(c->>'event_time', n.event_time),
  {TIME.format(v="coalesce(c->>'event_time', n.event_time)")}, c->>'content_hash', {_removed("c", _CHUNK_KNOWN)}
FROM (SELECT key AS k, value AS c, coalesce(value->>'header', '') AS h FROM json_each(?))
LEFT JOIN node_rows n ON n.id = c->>'entry_id'"""
_STAGED = _CHUNK_COLUMNS.replace("body,", "p.value->>2,").replace("id,", "s.id,", 1)
PLACED = f"""INSERT INTO chunk_rows(rowid, {_CHUNK_COLUMNS}, block, span)
SELECT ?1 + s.k, {_STAGED}, p.value->>0, p.value->>1 FROM stage s JOIN json_each(?2) p ON p.key = s.k ORDER BY s.k"""
JOINED = """UPDATE node_rows SET text = NULL WHERE rowid IN
  (SELECT n.rowid FROM stage s JOIN node_rows n ON n.id = s.entry_id WHERE n.text = s.body)"""
LINKS = """INSERT INTO links(key, code, source, target)
SELECT link_key('contains', e.thread_id, e.id), 0, t.rowid, e.rowid
  FROM json_each(?1) j JOIN node_rows e ON e.id = j.value->>'id' JOIN node_rows t ON t.id = e.thread_id
UNION ALL
SELECT link_key('follows', e.id, p.id), 2 + (e.event_time IS NOT NULL), e.rowid, p.rowid
  FROM json_each(?1) j JOIN node_rows e ON e.id = j.value->>'id'
  JOIN node_rows p ON p.id = j.value->'implied_edges'->>'follows'
UNION ALL
SELECT link_key('mentions', e.id, x.id), 6 + (e.event_time IS NOT NULL), e.rowid, x.rowid
  FROM json_each(?1) j JOIN node_rows e ON e.id = j.value->>'id'
  JOIN json_each(j.value->'implied_edges'->'mentions') m JOIN node_rows x ON x.id = m.value"""


def link_key(kind: str, source: str, target: str) -> int:
    """The adapter's key of one edge (implied_links.keys)."""
    return implied_links.keys([({}, kind, source, target)])[0][0]


def lines(segment: Path, rtype: str) -> list[bytes]:
    """The lines of RTYPE the segment gives back, as they were sent (read outside the timing)."""
    reader = BundleReader(segment, validate=False, sealed=True)
    if rtype not in reader.record_types():
        return []
    return [line.rstrip(b"\n") for _, line in reader.records_with_lines(rtype)]


def batches(items: list[bytes]) -> Iterator[str]:
    for k in range(0, len(items), BATCH):
        yield (b"[" + b",".join(items[k : k + BATCH]) + b"]").decode()


class Stages:
    """CPU seconds by stage of one load."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        started = time.process_time()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.process_time() - started


def load(segment_lines: dict[str, list[bytes]], path: Path, stage: Stages) -> None:
    """The notes' records into a new database at PATH, as described above, timed by STAGE."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")
    conn.execute("PRAGMA synchronous = OFF")
    packed_text.register(conn)
    text_blocks.register(conn)
    conn.create_function("link_key", 3, link_key, deterministic=True)
    conn.executescript(db.DDL)
    conn.execute("BEGIN")
    for rtype, sql in (("thread", THREADS), ("entity", ENTITIES), ("entry", ENTRIES)):
        for batch in batches(segment_lines[rtype]):
            with stage("node rows from JSON"):
                conn.execute(sql, (batch,))
            if rtype == "entry":
                with stage("links from JSON (keys by a Python function)"):
                    conn.execute(LINKS, (batch,))
    conn.execute(STAGE)
    last = 0
    for batch in batches(segment_lines["chunk"]):
        with stage("chunk fields from JSON"):
            conn.execute("DELETE FROM stage")
            conn.execute(CHUNKS, (batch,))
            staged = conn.execute("SELECT header, body FROM stage ORDER BY k").fetchall()
        with stage("text blocks (text_blocks.place)"):
            placed = text_blocks.place(conn, [body for _, body in staged])
        with stage("chunk rows"):
            conn.execute(PLACED, (last + 1, orjson.dumps(placed).decode()))
        with stage("chunk_fts"):
            rows = [(last + 1 + k, header, body) for k, (header, body) in enumerate(staged)]
            conn.executemany("INSERT INTO chunk_fts(rowid, header, body) VALUES (?,?,?)", rows)
        with stage("entries' texts left to their chunks"):
            conn.execute(JOINED)
        last += len(staged)
    with stage("node_fts"):
        conn.execute(
            "INSERT INTO node_fts(rowid, name, text) SELECT rowid, name, iif(kind = 'entry' AND EXISTS "
            "(SELECT 1 FROM chunk_rows c WHERE c.entry_id = node_rows.id), '', text) FROM node_rows"
        )
        conn.execute(
            "UPDATE node_rows SET indexed = iif(kind = 'entry' AND EXISTS "
            "(SELECT 1 FROM chunk_rows c WHERE c.entry_id = node_rows.id), 2, 1)"
        )
        conn.execute("UPDATE node_rows SET text = pack(text) WHERE typeof(text) = 'text'")
        conn.execute("COMMIT")
    with stage("FTS5 merge"):
        db.merge_fts(conn)
    with stage("VACUUM"):
        conn.execute("VACUUM")
    conn.close()


TABLES = ("node_rows", "chunk_rows", "links")


def counts(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sql-load-", dir=args.tmp))
    try:
        source = work / "notes.jsonl"
        text_bytes = sum(len(t.encode()) for _, t in write_notes(source, args.notes))
        print(
            f"{args.notes} notes, {text_bytes / 1e6:.2f} MB of text; CPU seconds, load average beside each; SQLite "
            f"{sqlite3.sqlite_version}"
        )
        stage = Stages()
        for rep in range(args.reps):
            store = work / f"store-{rep}"
            load_before = os.getloadavg()[0]
            _, cpu, parent, _ = add(ROOT, source, "jsonl", "sqlite", store)
            adapter_db = db.db_path(store / "data")
            segment = next(p for p in sorted((store / "journal").iterdir()) if p.is_dir())
            got = {t: lines(segment, t) for t in ("thread", "entity", "entry", "chunk")}
            path = work / f"sql-{rep}.sqlite"
            started, wall = time.process_time(), time.perf_counter()
            load(got, path, stage)
            sql_cpu, sql_wall = time.process_time() - started, time.perf_counter() - wall
            mine, theirs = counts(path), counts(adapter_db)
            print(
                f"rep {rep}: adapter {cpu - parent:5.2f} s ({adapter_db.stat().st_size / text_bytes:.2f}x text)   "
                f"in SQL {sql_cpu:5.2f} s, wall {sql_wall:5.2f} s ({path.stat().st_size / text_bytes:.2f}x text)   "
                f"SQL / adapter {sql_cpu / (cpu - parent):.2f}   load {load_before:.1f}-{os.getloadavg()[0]:.1f}",
                flush=True,
            )
            if mine != theirs:
                print(f"  rows differ: in SQL {mine}, adapter {theirs}")
            shutil.rmtree(store)
            path.unlink()
        print(f"in SQL, by stage (CPU seconds, mean of {args.reps}):")
        for name, seconds in sorted(stage.seconds.items(), key=lambda kv: -kv[1]):
            print(f"  {seconds / args.reps:6.3f}  {name}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
