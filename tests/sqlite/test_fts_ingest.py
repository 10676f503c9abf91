"""New rows reach the FTS tables from ingest (no insert triggers): re-indexed, changed and repeated records leave
every FTS table consistent with its content table, and a schema-1 database (which indexed through triggers) is
upgraded in place, its rows still found."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, ingest

FTS = ("node_fts", "chunk_fts", "fact_fts")
V1_TRIGGERS = """
CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO node_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
END;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_fts(rowid, header, body) VALUES (new.rowid, new.header, new.body);
END;
CREATE TRIGGER edges_ai AFTER INSERT ON edges BEGIN
    INSERT INTO fact_fts(rowid, fact) VALUES (new.rowid, new.fact);
END;
"""


def write(conn: sqlite3.Connection, rtype: str, records: list[dict]) -> None:
    ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=3).run(rtype, iter(records))


def entries(words: str, n: int = 5) -> list[dict]:
    return [
        {"id": f"entry:{i}", "thread_id": "thread:t", "position": i, "title": f"note {i}", "body": f"{words} {i}"}
        for i in range(n)
    ]


def chunks(words: str, n: int = 5) -> list[dict]:
    return [
        {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": "thread:t", "position": 0, "text": f"{words} {i}"}
        for i in range(n)
    ]


def edges(n: int = 5) -> list[dict]:
    return [
        {"id": f"edge:{i}", "type": "follows", "source_id": f"entry:{i + 1}", "target_id": f"entry:{i}"}
        for i in range(n - 1)
    ]


def fill(conn: sqlite3.Connection, words: str) -> None:
    write(conn, "thread", [{"id": "thread:t", "title": "the thread"}])
    write(conn, "entry", entries(words))
    write(conn, "chunk", chunks(words))
    write(conn, "edge", edges())


def consistent(conn: sqlite3.Connection) -> None:
    for table in FTS:  # raises "database disk image is malformed" when the index and its content disagree
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', 1)")


def found(conn: sqlite3.Connection, table: str, word: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (word,)).fetchone()[0]


def test_indexing_again_with_changed_text_replaces_what_fts_finds(tmp_path):
    conn = db.open_writer(tmp_path)
    fill(conn, "billing webhook")
    consistent(conn)
    assert (found(conn, "node_fts", "webhook"), found(conn, "chunk_fts", "webhook")) == (5, 5)
    assert found(conn, "fact_fts", "follows") == 4
    fill(conn, "lunch order")
    consistent(conn)
    assert (found(conn, "node_fts", "webhook"), found(conn, "chunk_fts", "webhook")) == (0, 0)
    assert (found(conn, "node_fts", "lunch"), found(conn, "chunk_fts", "lunch")) == (5, 5)
    assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 5


def test_a_record_repeated_in_one_batch_is_stored_and_indexed_once_as_its_last_version(tmp_path):
    conn = db.open_writer(tmp_path)
    first, last = chunks("alpha", 1)[0], chunks("omega", 1)[0]
    write(conn, "chunk", [first, last])
    consistent(conn)
    assert conn.execute("SELECT body FROM chunks").fetchall() == [("omega 0",)]
    assert (found(conn, "chunk_fts", "alpha"), found(conn, "chunk_fts", "omega")) == (0, 1)


def test_a_schema_1_database_is_upgraded_and_its_rows_still_found(tmp_path):
    conn = db.open_writer(tmp_path)
    conn.executescript(V1_TRIGGERS + "PRAGMA user_version = 1;")
    conn.execute("INSERT INTO nodes(id, kind, name, text) VALUES ('thread:old', 'thread', 'old thread', 'kept words')")
    conn.close()

    conn = db.open_writer(tmp_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'")}
    assert not triggers & {"nodes_ai", "chunks_ai", "edges_ai"}
    fill(conn, "billing webhook")
    consistent(conn)
    assert found(conn, "node_fts", "kept") == 1
    assert found(conn, "chunk_fts", "webhook") == 5
