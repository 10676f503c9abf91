"""Schema 11 (memdock_sqlite/db.py): chunk_fts declares its columns body first (fts.BODY_FIRST), so the index marks
no column number on the body's terms, and a chunk's header is kept in its text block just before its body
(chunk_rows.head), not in its row. Every answer is what the adapter of schema 10 gave, on the shared corpora, in a
new store and in a schema-10 store read as it is (its header-first columns weighted as they are declared, its
headers in their column) and once migrated; the header still counts twice in the ranking, in either layout, and
reads back exactly through rewrites, deletes and the blocks they leave stale.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from test_layout7 import _run, migrated, stores_fixture
from test_layout10 import _scoped, every_answer, old_schema, scoped_read_and_migrated
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import candidates, db, delete, fts, graph

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_10 = "9065630e53eb7fb7b7b8994ae21d3ad480c7001e"  # the last commit before schema 11
both = stores_fixture(SCHEMA_10)
_COLUMNS = "SELECT name FROM pragma_table_info('chunk_fts') ORDER BY cid"
_INDEX_BYTES = "SELECT sum(pgsize) FROM dbstat WHERE name = 'chunk_fts_data'"
_IN_ROWS = "SELECT count(*) FROM chunk_rows WHERE header <> ''"
_IN_BLOCKS = "SELECT count(*) FROM chunk_rows WHERE head > 0"


def test_the_old_adapter_is_schema_10(both):
    assert "SCHEMA_VERSION = 10" in old_schema(both)


def test_a_new_store_declares_body_first_indexes_smaller_and_answers_as_schema_10_did(both):
    old, new, bundle, base = both
    before, after = every_answer(old, bundle, base, base / "old"), every_answer(new, bundle, base, base / "new")
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _rows(base / "old", _COLUMNS) == [("header",), ("body",)]
    assert _rows(base / "new", _COLUMNS) == [("body",), ("header",)]
    assert _rows(base / "new", _INDEX_BYTES)[0][0] < _rows(base / "old", _INDEX_BYTES)[0][0]
    [(in_rows,)], [(in_blocks,)] = _rows(base / "old", _IN_ROWS), _rows(base / "new", _IN_BLOCKS)
    assert _rows(base / "new", _IN_ROWS) == [(0,)] and in_blocks == in_rows
    if "watercooler" in str(base):  # its chunks carry a header line; LoCoMo's none
        assert in_blocks > 100


def test_a_schema_10_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION >= fts.BODY_FIRST
    assert layouts["before"].startswith("schema 10 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _rows(tmp_path / "copy", _COLUMNS) == [("body",), ("header",)]
    assert _rows(tmp_path / "copy", _INDEX_BYTES) < _rows(base / "old", _INDEX_BYTES)
    assert _rows(tmp_path / "copy", _IN_ROWS) == _rows(base / "old", _IN_ROWS)  # headers stay where they were
    assert _rows(tmp_path / "copy", _IN_BLOCKS) == [(0,)]
    as_read, after = scoped_read_and_migrated(base / "old", bundle, tmp_path / "scoped")
    assert _scoped(old, bundle) == as_read == after


# -- the rule, on small stores -----------------------------------------------------------------------------------


def _header_first(conn: sqlite3.Connection) -> None:
    """CONN's store as schema 10 laid it out: chunk_fts declared header first, indexed from the chunks."""
    conn.execute("DROP TABLE chunk_fts")
    conn.execute(
        "CREATE VIRTUAL TABLE chunk_fts USING fts5(header, body, content='chunks', content_rowid='rowid', "
        f"tokenize='{db.TOKENIZE}')"
    )
    conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')")
    conn.execute("PRAGMA user_version = 10")


def _ranked(conn: sqlite3.Connection, word: str) -> list[tuple[int, float]]:
    return candidates.bm25_ranking(conn, fts.any_of([word]), None, 10)


@pytest.mark.parametrize("layout", ["schema 11", "schema 10 read as it is"])
def test_a_header_match_counts_twice_whichever_column_is_declared_first(tmp_path, layout):
    conn = db.open_writer(tmp_path)
    entries = [{"id": f"entry:{k}", "thread_id": "thread:t", "position": k, "body": "pears"} for k in (1, 2)]
    chunks = [
        {"id": "chunk:1", "entry_id": "entry:1", "thread_id": "thread:t", "position": 0, "text": "apples\npears"}
        | {"header": "apples"},
        {"id": "chunk:2", "entry_id": "entry:2", "thread_id": "thread:t", "position": 0, "text": "apples pears"},
    ]
    _run(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), ("chunk", chunks))
    if layout != "schema 11":
        _header_first(conn)
    rowid = dict(conn.execute("SELECT id, rowid FROM chunk_rows"))
    by_header, by_body = _ranked(conn, "apples")
    assert (by_header[0], by_body[0]) == (rowid["chunk:1"], rowid["chunk:2"])
    single = conn.execute(
        "SELECT bm25(chunk_fts) FROM chunk_fts WHERE chunk_fts MATCH 'apples' ORDER BY rowid"
    ).fetchall()
    assert by_header[1] < by_body[1] and single[0][0] != by_header[1]  # the weight is applied, to the header


def _headed_store(tmp_path: Path, headers: dict[int, str]) -> sqlite3.Connection:
    """A store of one entry per HEADERS key, each one chunk with that header line (or none for '')."""
    conn = db.open_writer(tmp_path)
    _write(conn, headers)
    return conn


def _write(conn: sqlite3.Connection, headers: dict[int, str]) -> None:
    entries = [{"id": f"entry:{k}", "thread_id": "thread:t", "position": k, "body": f"body {k}"} for k in headers]
    chunks = [
        {"id": f"chunk:{k}", "entry_id": f"entry:{k}", "thread_id": "thread:t", "position": 0}
        | ({"header": h, "text": f"{h}\nbody {k}"} if h else {"text": f"body {k}"})
        for k, h in headers.items()
    ]
    _run(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), ("chunk", chunks))


def _read(conn: sqlite3.Connection) -> dict[str, tuple]:
    """Each chunk's header and body through the chunks view, its text as get_node answers it, and its header column
    and head as stored."""
    rows = conn.execute("SELECT c.id, c.header, c.body, r.header, r.head FROM chunks c JOIN chunk_rows r USING (id)")
    return {i: (h, b, graph.get_node(conn, {"id": i})["item"]["text"], col, head) for i, h, b, col, head in rows}


def _matches(conn: sqlite3.Connection, word: str) -> list[str]:
    sql = "SELECT c.id FROM chunk_fts JOIN chunks c ON c.rowid = chunk_fts.rowid WHERE chunk_fts MATCH ? ORDER BY 1"
    return [i for (i,) in conn.execute(sql, (f'"{word}"',))]


def _intact(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)")  # against the view's text


def test_a_header_is_kept_in_the_block_before_its_body_and_reads_back_exactly(tmp_path):
    conn = _headed_store(tmp_path, {1: "Zoë · notes · 2024-01-02 — kayak", 2: ""})  # a header of multibyte text
    got = _read(conn)
    header = "Zoë · notes · 2024-01-02 — kayak"
    assert got["chunk:1"] == (header, "body 1", f"{header}\nbody 1", "", len(header.encode()))
    assert got["chunk:2"] == ("", "body 2", "body 2", "", None)
    assert _matches(conn, "kayak") == ["chunk:1"] and _matches(conn, "body") == ["chunk:1", "chunk:2"]
    _intact(conn)


def test_a_rewritten_or_deleted_chunk_leaves_no_header_words_behind_and_its_neighbours_keep_theirs(tmp_path):
    conn = _headed_store(tmp_path, {1: "alpha kayak", 2: "beta canoe", 3: "gamma raft"})
    _write(conn, {1: "delta paddle"})  # chunk 1 moves to a new block; the old one is swept, 2 and 3 re-packed
    assert _matches(conn, "kayak") == [] and _matches(conn, "paddle") == ["chunk:1"]
    delete.delete(conn, {"ids": ["chunk:2"]})
    assert _matches(conn, "canoe") == [] and _matches(conn, "raft") == ["chunk:3"]
    got = _read(conn)
    assert got["chunk:1"][:3] == ("delta paddle", "body 1", "delta paddle\nbody 1")
    assert got["chunk:3"][:3] == ("gamma raft", "body 3", "gamma raft\nbody 3") and "chunk:2" not in got
    assert conn.execute("SELECT count(*) FROM stale_blocks").fetchone()[0] == 0
    _intact(conn)
