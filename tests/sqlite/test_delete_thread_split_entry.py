"""An entry whose chunks were sent with two threads (its own and another): deleting the other thread takes only the
chunk sent with it, and the chunk sent with the entry's own thread stays; deleting the entry's own thread takes both
(memdock_sqlite/delete.py must not delete too much nor too little)."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from test_delete_thread import THREADS, _entry, _in_threads
from test_layout7 import _run

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete


def _chunk(cid: str, text: str, thread: str) -> dict:
    return {"id": cid, "entry_id": "entry:0", "thread_id": thread, "position": 0 if cid.endswith("a") else 1} | {
        "text": text,
        "start": 0,
        "end": len(text),
    }


def _split(conn: sqlite3.Connection) -> None:
    """entry:0 in a: chunk:0a sent with a, chunk:0b sent with b; entry:1 in b."""
    chunks = [_chunk("chunk:0a", "pears in a", "thread:a"), _chunk("chunk:0b", "plums in b", "thread:b")]
    chunks.append({"id": "chunk:1", "entry_id": "entry:1", "thread_id": "thread:b", "position": 0, "text": "figs"})
    chunks[-1] |= {"start": 0, "end": 4}
    _run(conn, ("thread", THREADS), ("entry", [_entry(0, "thread:a"), _entry(1, "thread:b")]), ("chunk", chunks))


def test_deleting_the_other_thread_keeps_the_chunk_sent_with_the_entrys_own(tmp_path):
    conn = db.open_writer(tmp_path)
    _split(conn)
    result = delete.delete(conn, {"ids": ["thread:b"]})
    assert {"chunk:0b", "chunk:1", "entry:1"} <= set(result["deleted"])
    assert "chunk:0a" not in result["deleted"] and "entry:0" not in result["deleted"]
    assert [i for (i,) in conn.execute("SELECT id FROM chunks ORDER BY id")] == ["chunk:0a"]
    assert _in_threads(conn, ["thread:a"]) == ["chunk:0a"] and _in_threads(conn, ["thread:b"]) == []


def test_deleting_the_entrys_own_thread_takes_both_its_chunks(tmp_path):
    conn = db.open_writer(tmp_path)
    _split(conn)
    result = delete.delete(conn, {"ids": ["thread:a"]})
    assert {"entry:0", "chunk:0a", "chunk:0b"} <= set(result["deleted"])
    assert "chunk:1" not in result["deleted"]
    assert [i for (i,) in conn.execute("SELECT id FROM chunks ORDER BY id")] == ["chunk:1"]
