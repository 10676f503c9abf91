"""Schema 11 (memdock_sqlite/db.py, fts.BODY_FIRST): chunk_fts declares its columns body first, so the index marks
no column number on the body's terms. Every answer is what the adapter of schema 10 gave, on the shared corpora, in
a new store and in a schema-10 store read as it is (its header-first columns weighted as they are declared) and once
migrated; the header still counts twice in the ranking, in either layout.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from support.sqlite_helpers import sqlite_backend
from test_layout7 import _everything, _run, migrated, stores_fixture
from test_layout10 import _scoped
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import candidates, db, fts

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_10 = "9065630e53eb7fb7b7b8994ae21d3ad480c7001e"  # the last commit before schema 11
both = stores_fixture(SCHEMA_10)
_COLUMNS = "SELECT name FROM pragma_table_info('chunk_fts') ORDER BY cid"
_INDEX_BYTES = "SELECT sum(pgsize) FROM dbstat WHERE name = 'chunk_fts_data'"


def test_the_old_adapter_is_schema_10(both):
    old_db = both[3] / "old-adapter" / "adapters" / "sqlite" / "memdock_sqlite" / "db.py"  # stores_of's
    assert "SCHEMA_VERSION = 10" in old_db.read_text()


def test_a_new_store_declares_body_first_indexes_smaller_and_answers_as_schema_10_did(both):
    old, new, bundle, base = both
    before = {**_everything(old, bundle, base, base / "old"), **_scoped(old, bundle)}
    after = {**_everything(new, bundle, base, base / "new"), **_scoped(new, bundle)}
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _rows(base / "old", _COLUMNS) == [("header",), ("body",)]
    assert _rows(base / "new", _COLUMNS) == [("body",), ("header",)]
    assert _rows(base / "new", _INDEX_BYTES)[0][0] < _rows(base / "old", _INDEX_BYTES)[0][0]


def test_a_schema_10_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION == fts.BODY_FIRST
    assert layouts["before"].startswith("schema 10 (read as it is"), layouts
    assert layouts["after"].startswith("schema 11"), layouts
    assert _rows(tmp_path / "copy", _COLUMNS) == [("body",), ("header",)]
    assert _rows(tmp_path / "copy", _INDEX_BYTES) < _rows(base / "old", _INDEX_BYTES)
    shutil.copytree(base / "old", tmp_path / "scoped")
    b = sqlite_backend(tmp_path / "scoped", workers=1, config={})
    try:
        as_read = _scoped(b, bundle)
        b.call("prepare", {}, use_pool=False)
        after = _scoped(b, bundle)
    finally:
        b.close()
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
