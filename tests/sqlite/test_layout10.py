"""Schema 10 (memdock_sqlite/db.py): a chunk's thread id is stored as '' where it is its entry's (read through the
chunks view), and the index of every chunk's thread is one of the chunks with a thread of their own. Every answer is
what the adapter of schema 9 gave, thread-scoped searches included, on the shared corpora, in a new store and in a
schema-9 store read as it is and once migrated; a chunk keeps the thread it was sent with, whatever its entry does.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from support.sqlite_helpers import sqlite_backend
from test_derived_edges import _clean, _questions
from test_layout7 import _everything, _run, migrated, stores_fixture
from test_packed_text import _rows

from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, filters, graph

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_9 = "6397eecd1ef71634c5cd3a700704065fa9533262"  # the last commit before schema 10
both = stores_fixture(SCHEMA_9)
_THREADS = "SELECT count(*) FILTER (WHERE thread_id = ''), count(*) FROM chunk_rows"


def _scoped(b: SubprocessBackend, bundle: Path) -> dict[str, Any]:
    """Searches scoped to threads (one, two, one unknown), as `query` and `search_episodes` answer them."""
    q = _questions(bundle)
    scopes = [[t] for t in q["threads"]] + [q["threads"][:2], ["thread:nope"]]
    out: dict[str, Any] = {}
    for text in q["queries"][::2]:
        for threads in scopes:
            scope = {"query": {"filters": {"thread_ids": threads}}, "search_episodes": {"group_ids": threads}}
            for op, params in scope.items():
                out[f"{op} {text} in {threads}"] = _clean(b.call(op, {"text": text, "limit": 10, **params}))
    return out


def old_schema(both: tuple) -> str:
    """The db.py of the old adapter of BOTH (stores_of's)."""
    return (both[3] / "old-adapter" / "adapters" / "sqlite" / "memdock_sqlite" / "db.py").read_text()


def every_answer(b: SubprocessBackend, bundle: Path, base: Path, store: Path) -> dict[str, Any]:
    """test_layout7's answers and the thread-scoped ones (`_scoped`) of B, whose store is STORE."""
    return {**_everything(b, bundle, base, store), **_scoped(b, bundle)}


def scoped_read_and_migrated(store: Path, bundle: Path, copy: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The thread-scoped answers of a copy of STORE (at COPY) read as it is, and once a `prepare` migrated it."""
    shutil.copytree(store, copy)
    b = sqlite_backend(copy, workers=1, config={})
    try:
        as_read = _scoped(b, bundle)
        b.call("prepare", {}, use_pool=False)
        return as_read, _scoped(b, bundle)
    finally:
        b.close()


def test_the_old_adapter_is_schema_9(both):
    assert "SCHEMA_VERSION = 9" in old_schema(both)


def test_a_new_store_holds_chunks_threads_once_and_answers_as_schema_9_did(both):
    old, new, bundle, base = both
    before, after = every_answer(old, bundle, base, base / "old"), every_answer(new, bundle, base, base / "new")
    scoped = [k for k in before if " in [" in k]
    assert sum(bool(before[k]["hits"]) for k in scoped) > 10  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    inherited, chunks = _rows(base / "new", _THREADS)[0]
    assert _rows(base / "old", _THREADS)[0] == (0, chunks) and inherited == chunks > 100
    names = "SELECT name FROM sqlite_schema WHERE name LIKE 'chunks_%thread'"
    assert _rows(base / "new", names) == [("chunks_own_thread",)] and _rows(base / "old", names) == [("chunks_thread",)]


def test_a_schema_9_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    old, _, bundle, base = both
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION
    assert layouts["before"].startswith("schema 9 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _rows(tmp_path / "copy", _THREADS) == _rows(base / "new", _THREADS)
    as_read, after = scoped_read_and_migrated(base / "old", bundle, tmp_path / "scoped")
    assert _scoped(old, bundle) == as_read == after


# -- the rules, on small stores ----------------------------------------------------------------------------------


def _entry(k: int, thread: str) -> dict:
    return {"id": f"entry:{k}", "thread_id": thread, "position": k, "body": f"note {k} about apples"}


def _chunk(k: int, thread: str) -> dict:
    return {"id": f"chunk:{k}", "entry_id": f"entry:{k}", "thread_id": thread, "position": 0} | {
        "text": f"note {k} about apples",
        "start": 0,
        "end": len(f"note {k} about apples"),
    }


def _threads_read(conn: sqlite3.Connection) -> dict[str, str]:
    """Each chunk's thread as get_node answers it."""
    ids = [i for (i,) in conn.execute("SELECT id FROM chunk_rows ORDER BY id")]
    return {i: graph.get_node(conn, {"id": i})["item"]["provenance"]["thread_id"] for i in ids}


def _in_threads(conn: sqlite3.Connection, threads: list[str]) -> list[str]:
    """The chunks a thread filter keeps (filters.where), checked against the chunks view's thread ids."""
    conds, args = filters.where({"thread_ids": threads}, "c")
    got = [i for (i,) in conn.execute(f"SELECT c.id FROM chunks c WHERE {conds[0]} ORDER BY c.id", args)]
    marks = ",".join("?" * len(threads))
    view = conn.execute(f"SELECT id FROM chunks WHERE thread_id IN ({marks}) ORDER BY id", threads).fetchall()
    assert got == [i for (i,) in view]
    return got


def _stored(conn: sqlite3.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT id, thread_id FROM chunk_rows"))


@pytest.mark.parametrize("first", [True, False], ids=["first-load", "later-run"])
def test_a_chunk_in_its_entrys_thread_stores_none_and_one_in_another_keeps_its_own(tmp_path, first):
    conn = db.open_writer(tmp_path)
    threads = [{"id": "thread:a", "title": "a"}, {"id": "thread:b", "title": "b"}]
    if not first:  # the store is not empty: ingest asks the database for the entries' fields
        _run(conn, ("thread", threads), ("entry", [_entry(9, "thread:a")]))
    entries = [_entry(1, "thread:a"), _entry(2, "thread:a")]
    _run(conn, ("thread", threads), ("entry", entries), ("chunk", [_chunk(1, "thread:a"), _chunk(2, "thread:b")]))
    assert _stored(conn) == {"chunk:1": "", "chunk:2": "thread:b"}
    assert _threads_read(conn) == {"chunk:1": "thread:a", "chunk:2": "thread:b"}
    assert _in_threads(conn, ["thread:a"]) == ["chunk:1"]
    assert _in_threads(conn, ["thread:b", "thread:a"]) == ["chunk:1", "chunk:2"]
    assert _in_threads(conn, ["thread:nope"]) == []


def test_a_chunk_before_its_entry_stores_its_thread(tmp_path):
    conn = db.open_writer(tmp_path)
    _run(conn, ("chunk", [_chunk(1, "thread:a")]), ("entry", [_entry(1, "thread:a")]))
    assert _stored(conn) == {"chunk:1": "thread:a"}
    assert _threads_read(conn) == {"chunk:1": "thread:a"} and _in_threads(conn, ["thread:a"]) == ["chunk:1"]


@pytest.mark.parametrize("same_run", [True, False], ids=["same-run", "next-run"])
def test_an_entry_moved_to_another_thread_leaves_its_chunks_in_theirs(tmp_path, same_run):
    conn = db.open_writer(tmp_path)
    first = [("entry", [_entry(1, "thread:a"), _entry(2, "thread:a")]), ("chunk", [_chunk(1, "thread:a")])]
    moved = ("entry", [_entry(1, "thread:b"), _entry(2, "thread:a")])  # entry:2 sent again, unchanged
    if same_run:
        _run(conn, *first, moved)
    else:
        _run(conn, *first)
        _run(conn, moved)
    assert _stored(conn) == {"chunk:1": "thread:a"}
    assert _threads_read(conn) == {"chunk:1": "thread:a"}
    assert _in_threads(conn, ["thread:b"]) == [] and _in_threads(conn, ["thread:a"]) == ["chunk:1"]
    _run(conn, ("chunk", [_chunk(1, "thread:b")]))  # sent again in its entry's thread: stored as its entry's
    assert _stored(conn) == {"chunk:1": ""} and _in_threads(conn, ["thread:b"]) == ["chunk:1"]


def test_the_migration_keeps_a_chunks_own_thread(tmp_path):
    conn = db.open_writer(tmp_path)
    _run(conn, ("entry", [_entry(1, "thread:a"), _entry(2, "thread:a")]))
    _run(conn, ("chunk", [_chunk(1, "thread:a"), _chunk(2, "thread:b")]))
    conn.execute("UPDATE chunk_rows SET thread_id = 'thread:a' WHERE id = 'chunk:1'")  # as schema 9 stored it
    conn.execute("PRAGMA user_version = 9")
    conn.close()
    conn = db.open_writer(tmp_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == db.SCHEMA_VERSION
    assert _stored(conn) == {"chunk:1": "", "chunk:2": "thread:b"}
    assert _threads_read(conn) == {"chunk:1": "thread:a", "chunk:2": "thread:b"}
    assert _in_threads(conn, ["thread:b"]) == ["chunk:2"]
