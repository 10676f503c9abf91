"""A bulk load (a run kept all or none: `ingest.Ingest(whole=True)`) leaves an entry's text out of node_rows while
its chunks may hold it, and writes it back before anything reads it when they do not (first_load.FirstLoad); it
adds nodes_au and the links' and nodes' indexes once its rows are in (db.LOAD_INDEXES), so a stream's entries
between its chunks leave chunk_fts one segment; a load that neither wrote texts its chunks took over nor freed a
page is not vacuumed. The store it leaves answers as one a run that knew nothing of it leaves."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import bulk, db, ingest


def _entry(i: int, body: str) -> dict:
    return {"id": f"entry:{i}", "thread_id": f"thread:{i % 2}", "position": i, "body": body, "source": "a.md"}


def _chunk(i: int, eid: int, text: str, position: int = 0, start: int | None = None) -> dict:
    chunk = {"id": f"chunk:{i}", "entry_id": f"entry:{eid}", "thread_id": f"thread:{eid % 2}", "position": position}
    if start is not None:
        chunk.update(start=start, end=start + len(text))
    return {**chunk, "text": text}


ENTRIES = [
    _entry(1, "storage replica one"),  # its one chunk is its text
    _entry(2, "storage replica two"),  # its chunk is another text
    _entry(3, "lonely entry three"),  # no chunk
    _entry(4, ""),  # no text
    _entry(5, "first half second half"),  # two chunks spell it
]
CHUNKS = [
    _chunk(1, 1, "storage replica one"),
    _chunk(2, 2, "another text"),
    _chunk(3, 5, "first half ", 0, 0),
    _chunk(4, 5, "second half", 1, 11),
]


def _load(data: Path, parts: list[tuple[str, list[dict]]], *, whole: bool, seen: list[str] | None = None) -> None:
    with bulk.load(data) as conn, db.transaction(conn, "indexing"):
        if seen is not None:
            conn.set_trace_callback(seen.append)
        run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=3, whole=whole)
        for rtype, records in parts:
            run.run(rtype, iter(records))
        run.finish()


def _answers(data: Path) -> dict[str, list]:
    conn = db.open_db(data, write=False)
    assert conn is not None
    out = {
        "nodes": conn.execute("SELECT * FROM nodes ORDER BY rowid").fetchall(),
        "chunks": conn.execute("SELECT * FROM chunks ORDER BY rowid").fetchall(),
        "schema": sorted(conn.execute("SELECT name, sql FROM sqlite_schema WHERE sql IS NOT NULL").fetchall()),
    }
    for word in ("storage", "lonely", "half", "another", "one"):
        for table in ("node_fts", "chunk_fts"):
            sql = f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank, rowid"
            out[f"{table} {word}"] = conn.execute(sql, (word,)).fetchall()
    conn.close()
    return out


def test_a_whole_load_answers_as_a_load_that_writes_every_text(tmp_path):
    parts = [("thread", [{"id": "thread:0"}, {"id": "thread:1"}]), ("entry", ENTRIES), ("chunk", CHUNKS)]
    seen: list[str] = []
    _load(tmp_path / "whole", parts, whole=True, seen=seen)
    _load(tmp_path / "written", parts, whole=False)
    assert _answers(tmp_path / "whole") == _answers(tmp_path / "written")
    conn = sqlite3.connect(tmp_path / "whole" / db.DB_NAME)
    held = conn.execute("SELECT id FROM node_rows WHERE kind = 'entry' AND text IS NULL ORDER BY id").fetchall()
    assert held == [("entry:1",), ("entry:5",)]  # the texts their chunks spell, never written
    inserted = [s for s in seen if s.startswith("INSERT INTO node_rows")]
    assert inserted and all("'storage replica one'" not in s for s in inserted)
    assert any("'storage replica two'" in s for s in seen if s.startswith("UPDATE node_rows SET text"))


def test_a_whole_load_that_falls_back_to_the_database_writes_the_texts_back_first(tmp_path):
    again = [_chunk(1, 1, "storage replica one")]  # a chunk sent again: the database answers from then on
    parts = [("entry", ENTRIES), ("chunk", CHUNKS[:2]), ("chunk", again), ("chunk", CHUNKS[2:])]
    _load(tmp_path / "whole", parts, whole=True)
    _load(tmp_path / "written", parts, whole=False)
    assert _answers(tmp_path / "whole") == _answers(tmp_path / "written")


def test_entries_between_chunks_leave_one_segment_and_no_vacuum(tmp_path):
    parts = [("entry", ENTRIES[:3]), ("chunk", CHUNKS[:2]), ("entry", ENTRIES[3:]), ("chunk", CHUNKS[2:])]
    seen: list[str] = []
    _load(tmp_path, parts, whole=True, seen=seen)
    finish = next(k for k, s in enumerate(seen) if s.startswith("CREATE INDEX IF NOT EXISTS chunks_entry"))
    flushes = [k for k, s in enumerate(seen) if s.startswith("-- REPLACE INTO 'main'.'chunk_fts_data'")]
    assert flushes and min(flushes) > finish  # the chunk terms written out once, as the run ends
    assert "VACUUM" not in seen
    conn = sqlite3.connect(tmp_path / db.DB_NAME)
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    names = {name for (name,) in conn.execute("SELECT name FROM sqlite_schema")}
    assert set(db.LOAD_INDEXES) <= names  # all made again before the file is put in place


def test_a_first_load_knows_the_rowid_of_every_node(tmp_path):
    conn = db.open_writer(tmp_path)
    with db.transaction(conn):
        run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=10)
        run.run("thread", iter([{"id": "thread:0"}, {"id": "thread:1"}]))
        run.run("entry", iter([*ENTRIES, ENTRIES[0]]))  # the last one twice in a batch: one row
        assert run.first is not None
        stored = dict(conn.execute("SELECT id, rowid FROM node_rows"))
        assert run.first.rowids == stored
