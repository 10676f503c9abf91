"""New rows reach the FTS tables from ingest (no insert triggers): re-indexed, changed and repeated records leave
every FTS table consistent with its content table, and a schema-1 database (which indexed through triggers) is
upgraded in place, its rows still found."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, ingest

FTS = ("node_fts", "chunk_fts", "fact_fts")
V1_SCHEMA = """
DROP VIEW nodes; DROP TRIGGER nodes_ad; DROP TRIGGER nodes_au; DROP INDEX nodes_unindexed;
ALTER TABLE node_rows RENAME TO nodes;
ALTER TABLE nodes DROP COLUMN indexed;
DROP VIEW chunks; DROP TRIGGER chunks_ad; DROP TRIGGER chunks_au;
ALTER TABLE chunk_rows RENAME TO chunks;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_fts(chunk_fts, rowid, header, body) VALUES ('delete', old.rowid, old.header, old.body);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF header, body ON chunks BEGIN
    INSERT INTO chunk_fts(chunk_fts, rowid, header, body) VALUES ('delete', old.rowid, old.header, old.body);
    INSERT INTO chunk_fts(rowid, header, body) VALUES (new.rowid, new.header, new.body);
END;
CREATE TRIGGER nodes_ad AFTER DELETE ON nodes BEGIN
    INSERT INTO node_fts(node_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
END;
CREATE TRIGGER nodes_au AFTER UPDATE OF name, text ON nodes BEGIN
    INSERT INTO node_fts(node_fts, rowid, name, text) VALUES ('delete', old.rowid, old.name, old.text);
    INSERT INTO node_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
END;
CREATE TRIGGER nodes_ai AFTER INSERT ON nodes BEGIN
    INSERT INTO node_fts(rowid, name, text) VALUES (new.rowid, new.name, new.text);
END;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_fts(rowid, header, body) VALUES (new.rowid, new.header, new.body);
END;
CREATE TRIGGER edges_ai AFTER INSERT ON edges BEGIN
    INSERT INTO fact_fts(rowid, fact) VALUES (new.rowid, new.fact);
END;
PRAGMA user_version = 1;
"""


def write(conn: sqlite3.Connection, *parts: tuple[str, list[dict]]) -> None:
    """One index run of PARTS, (record type, records) in the adapter's order."""
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=3)
    for rtype, records in parts:
        run.run(rtype, iter(records))
    run.finish()


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
    write(
        conn,
        ("thread", [{"id": "thread:t", "title": "the thread"}]),
        ("entry", entries(words)),
        ("chunk", chunks(words)),
        ("edge", edges()),
    )


def consistent(conn: sqlite3.Connection) -> None:
    """Every FTS index is sound and holds exactly what it should: chunk_fts and fact_fts their content table's
    text, node_fts each node's name and, unless its chunks carry it (indexed = 2), its text."""
    for table in FTS:  # raises "database disk image is malformed" when the index and its content disagree
        conn.execute(f"INSERT INTO {table}({table}, rank) VALUES ('integrity-check', {int(table != 'node_fts')})")
    conn.executescript(
        "DROP TABLE IF EXISTS temp.expected; DROP TABLE IF EXISTS temp.held; DROP TABLE IF EXISTS temp.wanted;"
        "CREATE VIRTUAL TABLE temp.expected USING fts5(name, text, tokenize='porter unicode61 remove_diacritics 2');"
        "INSERT INTO temp.expected(rowid, name, text) "
        "  SELECT rowid, name, CASE indexed WHEN 2 THEN '' ELSE text END FROM nodes WHERE indexed > 0;"
        "CREATE VIRTUAL TABLE temp.held USING fts5vocab(main, node_fts, 'instance');"
        "CREATE VIRTUAL TABLE temp.wanted USING fts5vocab(temp, expected, 'instance');"
    )
    assert sorted(conn.execute("SELECT * FROM temp.held")) == sorted(conn.execute("SELECT * FROM temp.wanted"))
    assert conn.execute("SELECT count(*) FROM nodes WHERE indexed = 0").fetchone()[0] == 0


def found(conn: sqlite3.Connection, table: str, word: str) -> int:
    return conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (word,)).fetchone()[0]


def test_indexing_again_with_changed_text_replaces_what_fts_finds(tmp_path):
    conn = db.open_writer(tmp_path)
    fill(conn, "billing webhook")
    consistent(conn)
    assert (found(conn, "node_fts", "webhook"), found(conn, "chunk_fts", "webhook")) == (0, 5)
    assert found(conn, "node_fts", "note") == 5  # entries by title; their chunks carry their text
    assert found(conn, "fact_fts", "follows") == 4
    fill(conn, "lunch order")
    consistent(conn)
    assert (found(conn, "node_fts", "webhook"), found(conn, "chunk_fts", "webhook")) == (0, 0)
    assert (found(conn, "node_fts", "lunch"), found(conn, "chunk_fts", "lunch")) == (0, 5)
    assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 5


def test_entries_without_chunks_are_indexed_by_their_text_and_again_when_their_chunks_go(tmp_path):
    conn = db.open_writer(tmp_path)
    write(conn, ("entry", entries("billing webhook")))
    consistent(conn)
    assert found(conn, "node_fts", "webhook") == 5
    write(conn, ("entry", entries("lunch order")))  # changed, still without chunks
    write(conn, ("chunk", chunks("lunch order", 2)))  # entries 0 and 1 now have chunks; their text stays indexed
    consistent(conn)
    assert (found(conn, "node_fts", "webhook"), found(conn, "node_fts", "lunch")) == (0, 5)

    fill(conn, "cache stampede")  # indexed again with chunks: entries 0-4 by title only
    assert found(conn, "node_fts", "stampede") == 0
    result = delete.delete(conn, {"ids": ["chunk:0", "chunk:1"]})
    assert sorted(result["deleted"]) == ["chunk:0", "chunk:1"]
    consistent(conn)
    assert found(conn, "node_fts", "stampede") == 2  # entries 0 and 1 lost their chunks, not their searchable text
    delete.delete(conn, {"ids": ["entry:0"]})
    consistent(conn)
    assert found(conn, "node_fts", "stampede") == 1


def test_a_record_repeated_in_one_batch_is_stored_and_indexed_once_as_its_last_version(tmp_path):
    conn = db.open_writer(tmp_path)
    first, last = chunks("alpha", 1)[0], chunks("omega", 1)[0]
    write(conn, ("chunk", [first, last]))
    consistent(conn)
    assert conn.execute("SELECT body FROM chunks").fetchall() == [("omega 0",)]
    assert (found(conn, "chunk_fts", "alpha"), found(conn, "chunk_fts", "omega")) == (0, 1)


def test_a_schema_1_database_is_upgraded_and_its_rows_still_found(tmp_path):
    conn = db.open_writer(tmp_path)
    conn.executescript(V1_SCHEMA)
    conn.execute("INSERT INTO nodes(id, kind, name, text) VALUES ('thread:old', 'thread', 'old thread', 'kept words')")
    conn.execute("INSERT INTO nodes(id, kind, name, text) VALUES ('entry:old', 'entry', 'old entry', 'gone words')")
    conn.close()

    conn = db.open_writer(tmp_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'")}
    assert not triggers & {"nodes_ai", "chunks_ai", "edges_ai"}
    fill(conn, "billing webhook")
    consistent(conn)
    assert found(conn, "node_fts", "kept") == 1
    assert found(conn, "chunk_fts", "webhook") == 5
    conn.execute("DELETE FROM node_rows WHERE id IN ('thread:old', 'entry:old')")  # indexed by schema 1's triggers
    consistent(conn)
    assert found(conn, "node_fts", "kept OR gone") == 0


def test_search_finds_an_entry_through_its_chunks_by_title_and_once(tmp_path):
    conn = db.open_writer(tmp_path)
    fill(conn, "billing webhook")
    write(conn, ("entry", [{"id": "entry:bare", "thread_id": "thread:u", "position": 0, "body": "webhook retries"}]))

    def episodes(text: str, **more) -> list[str]:
        return [h["id"] for h in graph.search_nodes(conn, {"text": text, **more}, episodes=True)["hits"]]

    body = episodes("webhook", limit=10)
    assert sorted(body) == sorted([f"entry:{i}" for i in range(5)] + ["entry:bare"])  # each once
    assert episodes("note 3")[0] == "entry:3"  # by title (node_fts) and by chunk text ("... 3")
    assert sorted(episodes("webhook", group_ids=["thread:u"])) == ["entry:bare"]
    assert episodes("webhook", limit=2) and len(episodes("webhook", limit=2)) == 2
    nodes = graph.search_nodes(conn, {"text": "webhook"})["hits"]
    assert {h["id"] for h in nodes} == set(body)
