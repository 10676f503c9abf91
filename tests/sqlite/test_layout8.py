"""Schema 8 (memdock_sqlite/text_blocks.py): chunk bodies stored in compressed blocks. Every answer is what the
adapter of schema 7 gave, on the shared corpora, in a new store and in a schema-7 store read as it is and once
migrated; a forgotten chunk's text is nowhere in the database file, not even inside a compressed block.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import zlib
from pathlib import Path

import pytest
from support.history import past_step
from test_derived_edges import _old_adapter
from test_layout7 import _everything, _layout, _run, migrated, stores_of
from test_packed_attrs import _stored_hashes
from test_packed_text import _rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import block_deflate, bulk, db, delete, graph, ingest, text_blocks

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_7 = "4e223419eb6dfb85740b7c3e8dff2c7619dc7431"  # the last commit before schema 8


@pytest.fixture(scope="module", params=past_step("watercooler"))
def both(request, tmp_path_factory):
    yield from stores_of(request, tmp_path_factory, SCHEMA_7)


def _in_blocks(store: Path) -> tuple[int, int]:
    """(chunks whose body is in a block, chunks) of STORE (schema 8)."""
    return _rows(store, "SELECT count(block), count(*) FROM chunk_rows")[0]


def _chunk_count(store: Path) -> int:
    return _rows(store, "SELECT count(*) FROM chunk_rows")[0][0]


def test_the_old_adapter_is_schema_7(tmp_path):
    old = _old_adapter(tmp_path, SCHEMA_7, ("adapters/common",))
    assert "SCHEMA_VERSION = 7" in (old / "memdock_sqlite" / "db.py").read_text()


def test_a_new_store_keeps_bodies_in_blocks_and_answers_as_schema_7_did(both):
    old, new, bundle, base = both
    before, after = _everything(old, bundle, base, base / "old"), _everything(new, bundle, base, base / "new")
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _stored_hashes(base / "old") == _stored_hashes(base / "new")
    blocked, chunks = _in_blocks(base / "new")
    assert blocked == chunks == _chunk_count(base / "old") > 100


def test_a_schema_7_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    layouts, answered = migrated(both, tmp_path / "copy", "chunk_fts")
    assert answered["version"] == db.SCHEMA_VERSION
    assert layouts["before"].startswith("schema 7 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}") and "blocks" in layouts["after"], layouts
    assert _in_blocks(tmp_path / "copy") == (_chunk_count(both[3] / "old"),) * 2
    assert _layout(tmp_path / "copy")["texts"] == _layout(both[3] / "new")["texts"]


# -- the rules, on small stores ----------------------------------------------------------------------------------

SECRET = "the vault combination is seventeen left, forty-two right, nine left"


def _notes(n: int, secret_at: int) -> list[dict]:
    return [
        {
            "id": f"entry:{k}",
            "thread_id": "thread:t",
            "position": k,
            "title": f"note {k}",
            "body": SECRET if k == secret_at else f"note number {k} says something ordinary about day {k % 7}",
        }
        for k in range(n)
    ]


def _chunks(entries: list[dict]) -> list[dict]:
    return [
        {"id": f"chunk:{e['id']}", "entry_id": e["id"], "thread_id": "thread:t", "position": 0, "text": e["body"]}
        for e in entries
    ]


def _store(tmp_path: Path, entries: list[dict]) -> sqlite3.Connection:
    conn = db.open_writer(tmp_path)
    parts = ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), ("chunk", _chunks(entries))
    _run(conn, *parts, batch_size=1000)
    return conn


def _holds(raw: bytes, text: bytes) -> bool:
    """Whether RAW (a file's bytes) holds TEXT as it is or inside any zlib stream that starts in it."""
    if text in raw:
        return True
    at = raw.find(b"\x78")
    while at != -1:
        try:
            if text in zlib.decompressobj().decompress(raw[at : at + 65536]):
                return True
        except zlib.error:
            pass
        at = raw.find(b"\x78", at + 1)
    return False


def _file_holds(tmp_path: Path, text: str) -> bool:
    files = [tmp_path / db.DB_NAME, tmp_path / f"{db.DB_NAME}-wal"]
    return any(_holds(f.read_bytes(), text.encode()) for f in files if f.exists())


def _wordy(n: int, secret_at: int = 5) -> list[dict]:
    """N notes of words drawn at random (little for zlib to find), about 300 bytes each."""
    pick = random.Random(0)
    words = [f"{pick.choice('bcdfghklmnprstvz')}{pick.choice('aeiou')}{pick.randrange(10**6)}" for _ in range(5000)]
    entries = _notes(n, secret_at=secret_at)
    for e in entries:
        if e["body"] != SECRET:
            e["body"] = " ".join(pick.choice(words) for _ in range(30))
    return entries


def test_bodies_share_blocks_and_read_back_exactly(tmp_path):
    entries = _wordy(400)
    entries[7]["body"] = "ünïcödé ✓ 𝄞 and an emoji 🙂 in a body"
    conn = _store(tmp_path, entries)
    blocks, blocked = conn.execute("SELECT count(DISTINCT block), count(block) FROM chunk_rows").fetchone()
    assert blocked == 400 and 1 < blocks < 400 // 4, (blocks, blocked)
    assert conn.execute("SELECT body FROM chunks WHERE id = 'chunk:entry:7'").fetchone()[0] == entries[7]["body"]
    got = dict(conn.execute("SELECT entry_id, body FROM chunks"))
    assert got == {e["id"]: e["body"] for e in entries}
    assert graph.get_node(conn, {"id": "entry:5"})["item"]["text"] == SECRET


def test_blocks_fill_their_pages(tmp_path, monkeypatch):
    """Each block but a batch's last fills its pages to within a few per cent, none past them, so the table takes
    hardly more pages than its blocks' bytes (16 KiB of bodies a block took a ~7 KB block an 8 KiB page). zlib's
    blocks: ISA-L's take the same pages here in fewer bytes (test_block_deflate.py)."""
    monkeypatch.setattr(block_deflate, "isal", lambda: None)
    conn = _store(tmp_path, _wordy(1500))
    fill = text_blocks.fill_bytes(db.PAGE_SIZE, text_blocks.PAGES)
    sizes = [n for (n,) in conn.execute("SELECT length(data) FROM text_blocks ORDER BY id")]
    assert len(sizes) > 4 and max(sizes) <= fill, (sizes, fill)
    assert sorted(sizes)[2] > 0.85 * fill, (sizes, fill)  # 1,500 chunks are two batches (`_store`): two ends
    pages = conn.execute("SELECT sum(pgsize) FROM dbstat WHERE name = 'text_blocks'").fetchone()[0]
    assert pages < 1.12 * sum(sizes), (pages, sum(sizes))  # a batch's last blocks and an interior page


def test_a_forgotten_chunk_leaves_no_text_in_its_block_and_its_neighbours_read_on(tmp_path):
    entries = _notes(60, secret_at=30)
    conn = _store(tmp_path, entries)
    conn.execute("PRAGMA secure_delete = ON")  # as adapter.delete sets it
    block = conn.execute("SELECT block FROM chunk_rows WHERE id = 'chunk:entry:30'").fetchone()[0]
    sharing = [r for (r,) in conn.execute("SELECT id FROM chunk_rows WHERE block = ?", (block,))]
    assert len(sharing) > 1  # the secret shares its block with other notes
    db.checkpoint(conn)
    assert _file_holds(tmp_path, SECRET)  # the scan finds it (compressed) before the forget
    delete.delete(conn, {"ids": ["entry:30"]})
    db.checkpoint(conn)
    assert not _file_holds(tmp_path, SECRET)
    assert conn.execute("SELECT count(*) FROM text_blocks WHERE id = ?", (block,)).fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM stale_blocks").fetchone()[0] == 0
    got = dict(conn.execute("SELECT entry_id, body FROM chunks"))
    assert got == {e["id"]: e["body"] for e in entries if e["id"] != "entry:30"}
    assert conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'vault'").fetchone()[0] == 0


def test_a_forgotten_chunk_leaves_no_byte_of_its_two_page_block_on_disk(tmp_path):
    """A block of two pages is one zlib stream cut by a page boundary, which `_holds` cannot read across: here the
    old block's own compressed bytes, its overflow page's included, are looked for in the file instead."""
    conn = _store(tmp_path, _wordy(200, secret_at=60))
    conn.execute("PRAGMA secure_delete = ON")  # as adapter.delete sets it
    sql = "SELECT data FROM text_blocks WHERE id = (SELECT block FROM chunk_rows WHERE id = 'chunk:entry:60')"
    data = conn.execute(sql).fetchone()[0]
    assert len(data) > db.PAGE_SIZE  # it spills into an overflow page
    pieces = [data[at : at + 48] for at in range(0, len(data) - 48, 1024)]
    db.checkpoint(conn)
    assert all(piece in (tmp_path / db.DB_NAME).read_bytes() for piece in pieces)
    delete.delete(conn, {"ids": ["entry:60"]})
    db.checkpoint(conn)
    raw = (tmp_path / db.DB_NAME).read_bytes()
    assert [at for at, piece in enumerate(pieces) if piece in raw] == []
    live = [zlib.decompress(d) for (d,) in conn.execute("SELECT data FROM text_blocks")]
    assert live and not any(SECRET.encode() in text for text in live)


def test_a_rewritten_chunk_leaves_its_old_block_and_reads_its_new_text(tmp_path):
    entries = _notes(60, secret_at=30)
    conn = _store(tmp_path, entries)
    entries[30]["body"] = "a harmless replacement text"
    _run(conn, ("chunk", _chunks(entries[30:31])), batch_size=1000)
    db.checkpoint(conn)
    assert conn.execute("SELECT body FROM chunks WHERE id = 'chunk:entry:30'").fetchone()[0] == entries[30]["body"]
    assert conn.execute("SELECT count(*) FROM stale_blocks").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'vault'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'harmless'").fetchone()[0] == 1
    got = dict(conn.execute("SELECT entry_id, body FROM chunks"))
    assert got == {e["id"]: e["body"] for e in entries}


def test_a_rolled_back_block_is_not_read_from_the_cache(tmp_path):
    conn = _store(tmp_path, _notes(10, secret_at=3))
    with pytest.raises(RuntimeError), db.transaction(conn):
        [(block, span, *_)] = text_blocks.place(conn, [""], ["words of a transaction that is rolled back"])
        assert conn.execute("SELECT unblock(?, ?)", (block, span)).fetchone()[0].startswith("words")
        raise RuntimeError
    with db.transaction(conn):
        [(again, span, *_)] = text_blocks.place(conn, [""], ["other words"])
        assert again == block  # AUTOINCREMENT gives a rolled-back id again
        assert conn.execute("SELECT unblock(?, ?)", (again, span)).fetchone()[0] == "other words"


def test_a_missing_block_is_an_error_naming_it(tmp_path):
    conn = _store(tmp_path, _notes(10, secret_at=3))
    block = conn.execute("SELECT block FROM chunk_rows LIMIT 1").fetchone()[0]
    conn.execute("DELETE FROM text_blocks WHERE id = ?", (block,))
    text_blocks.forget_cache(conn)
    with pytest.raises(sqlite3.OperationalError, match="user-defined function raised exception"):
        conn.execute("SELECT body FROM chunks").fetchall()


@pytest.mark.parametrize(
    "extra",
    [
        {"metadata": {"k": "välue ✓", "n": 1.5, "tiny": 1e-7, "big": 1e300, "list": [1, None, True]}},
        {"metadata": {"huge": 2**70}},  # past 64 bits: orjson refuses, json writes it
        {"metadata": {"odd": "lone \ud800 surrogate"}},  # orjson refuses, json writes it (SQLite decides)
        {},
    ],
)
def test_attrs_are_the_json_of_the_fields_left(extra):
    record = {"id": "entry:a", "thread_id": "thread:t", "position": 0, "body": "b", **extra}
    text = ingest.entry_row(record)[-1]
    assert json.loads(text) == extra
    assert " " not in text.replace("välue ✓", "").replace("lone \ud800 surrogate", "")  # compact


def test_bodies_kept_in_their_rows_are_moved_into_blocks_a_slice_at_a_time(tmp_path):
    entries = _notes(50, secret_at=3)
    conn = _store(tmp_path, entries)
    with db.transaction(conn):  # the rows as schema 7 kept them: each body in its row, packed alone
        for trigger in ("chunks_au", "chunks_block_au"):
            conn.execute(f"DROP TRIGGER {trigger}")
        conn.execute("UPDATE chunk_rows SET body = pack(unblock(block, span)), block = NULL, span = NULL")
        conn.execute("DELETE FROM text_blocks")
        text_blocks.relay(conn, rows_at_once=7)
    assert conn.execute("SELECT count(block), count(DISTINCT block) > 1 FROM chunk_rows").fetchone() == (50, 1)
    assert dict(conn.execute("SELECT entry_id, body FROM chunks")) == {e["id"]: e["body"] for e in entries}


def test_a_block_shorter_than_a_span_is_an_error_not_a_cut_text(tmp_path):
    conn = _store(tmp_path, _notes(10, secret_at=3))
    conn.execute("UPDATE text_blocks SET data = ?", (zlib.compress(b"short"),))
    text_blocks.forget_cache(conn)
    with pytest.raises(sqlite3.OperationalError, match="user-defined function raised exception"):
        conn.execute("SELECT body FROM chunks").fetchall()


def test_a_bulk_load_leaves_each_fts_index_in_one_segment(tmp_path):
    """A load in many transactions leaves FTS5 a segment each (the 20k notes: chunk_fts in 8, fact_fts in 4); merged
    into one ('optimize') before the VACUUM, the indexes are 0.03× the text smaller and rank the same."""
    entries = _wordy(300)
    with bulk.load(tmp_path) as conn:
        parts = ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", entries), ("chunk", _chunks(entries))
        _run(conn, *parts, batch_size=40)
    conn = db.open_db(tmp_path, write=False)
    assert conn is not None
    segments = {
        t: conn.execute(f"SELECT count(DISTINCT segid) FROM {t}_idx").fetchone()[0]
        for t in ("chunk_fts", "node_fts", "fact_fts")
    }
    assert segments["chunk_fts"] == segments["node_fts"] == 1 and segments["fact_fts"] <= 1, segments
    got = conn.execute("SELECT rowid FROM chunk_fts WHERE chunk_fts MATCH ? ORDER BY rank", (SECRET.split()[1],))
    secret = conn.execute("SELECT rowid FROM chunk_rows WHERE id = 'chunk:entry:5'").fetchone()[0]
    assert [r for (r,) in got] == [secret]
