"""Deleting a thread (memdock_sqlite/delete.py) takes every chunk that answers as the thread's: the chunks of its
entries, and a chunk sent with the thread while its entry is in another one (schema 10 keeps a chunk's own thread,
test_layout10.py). A thread filter on a deleted thread finds nothing, and the other thread keeps what is its own."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from test_derived_edges import _old_adapter
from test_layout7 import _run

from memdock.conformance import KitOptions, run_kit

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, filters, graph

THREADS = [{"id": "thread:a", "title": "a"}, {"id": "thread:b", "title": "b"}]


def _entry(k: int, thread: str) -> dict:
    return {"id": f"entry:{k}", "thread_id": thread, "position": k, "body": f"note {k} about apples"}


def _chunk(k: int, thread: str) -> dict:
    text = f"note {k} about apples"
    return {"id": f"chunk:{k}", "entry_id": f"entry:{k}", "thread_id": thread, "position": 0, "text": text} | {
        "start": 0,
        "end": len(text),
    }


def _in_threads(conn: sqlite3.Connection, threads: list[str]) -> list[str]:
    conds, args = filters.where({"thread_ids": threads}, "c")
    return [i for (i,) in conn.execute(f"SELECT c.id FROM chunks c WHERE {conds[0]} ORDER BY c.id", args)]


def _crossed(conn: sqlite3.Connection) -> None:
    """entry:0 in a with its chunk sent with b; entry:1 in b; entry:2 in a; entry:3 in b with its chunk sent with a."""
    entries = [_entry(0, "thread:a"), _entry(1, "thread:b"), _entry(2, "thread:a"), _entry(3, "thread:b")]
    chunks = [_chunk(0, "thread:b"), _chunk(1, "thread:b"), _chunk(2, "thread:a"), _chunk(3, "thread:a")]
    _run(conn, ("thread", THREADS), ("entry", entries), ("chunk", chunks))


def test_deleting_a_thread_takes_a_chunk_sent_with_it_whose_entry_is_elsewhere(tmp_path):
    conn = db.open_writer(tmp_path)
    _crossed(conn)
    assert _in_threads(conn, ["thread:b"]) == ["chunk:0", "chunk:1"]
    result = delete.delete(conn, {"ids": ["thread:b"]})
    assert {"chunk:0", "chunk:1", "chunk:3", "entry:1", "entry:3"} <= set(result["deleted"])
    assert result["not_found"] == [] and result["cascaded"] == len(result["deleted"]) - 1
    assert _in_threads(conn, ["thread:b"]) == []
    assert graph.get_node(conn, {"id": "chunk:0"})["item"] is None
    assert [i for (i,) in conn.execute("SELECT id FROM chunks ORDER BY id")] == ["chunk:2"]
    assert graph.get_node(conn, {"id": "entry:0"})["item"]["text"] == "note 0 about apples"  # its entry stays
    assert _in_threads(conn, ["thread:a"]) == ["chunk:2"]


def test_deleting_the_other_thread_takes_its_entries_chunks_wherever_they_were_sent(tmp_path):
    conn = db.open_writer(tmp_path)
    _crossed(conn)
    result = delete.delete(conn, {"ids": ["thread:a"]})
    assert {"entry:0", "entry:2", "chunk:0", "chunk:2", "chunk:3"} <= set(result["deleted"])
    assert "entry:3" not in result["deleted"] and "chunk:1" not in result["deleted"]
    assert _in_threads(conn, ["thread:a"]) == [] and _in_threads(conn, ["thread:b"]) == ["chunk:1"]


BEFORE_FIX = "59d1164b2d7f7ba412825895b74f9484e7671a22"  # the last commit whose delete followed only entries


@pytest.mark.timeout(600)
def test_the_kits_thread_delete_check_fails_the_adapter_before_the_fix_and_passes_it_now(tmp_path):
    before = run_kit(
        _old_adapter(tmp_path / "old", BEFORE_FIX, ("adapters/common",)), KitOptions(only=["delete_thread"])
    )
    (old,) = before.results
    assert old.status == "fail" and "chunk:kit-x-0" in old.detail, old.detail
    (now,) = run_kit("sqlite", KitOptions(only=["delete_thread"])).results
    assert now.status == "pass", now.detail
