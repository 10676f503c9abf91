"""Schema 7 (memdock_sqlite/db.py): an entry's text is left to chunks that overlap (joined without what each
repeats of the one before), a content hash that is the sha256 of its chunk's own text is rebuilt from it, and a new
database has 8 KiB pages. Every answer is what the adapter of schema 6 gave, on the shared corpora, in a new store
and in a schema-6 store read as it is and once migrated; a value never reads back as anything but what was given.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.history import past_step
from support.sqlite_helpers import sqlite_backend
from test_derived_edges import _clean, _old_adapter, _questions, answers, index_both
from test_packed_attrs import _ids, _metadata_filters, _reads, _stored_hashes
from test_packed_text import _rows

from memdock.ids import content_hash
from memdock.runner.backend import SubprocessBackend

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, graph, ingest, packed_text

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_6 = "0d633d2059639b0b45d0566025c389f943d54225"  # the last commit before schema 7


def _schema6_adapter(dest: Path) -> Path:
    return _old_adapter(dest, SCHEMA_6, ("adapters/common",))


def stores_of(request: Any, tmp_path_factory: Any, commit: str) -> Iterator[tuple]:
    """The corpus REQUEST.param indexed by the adapter as of COMMIT (BASE/old) and by this one (BASE/new)."""
    base = tmp_path_factory.mktemp(f"layout-{commit[:7]}-{request.param}")
    old_adapter = _old_adapter(base / "old-adapter", commit, ("adapters/common",))
    yield from index_both(old_adapter, base, request.param, config={})


def stores_fixture(commit: str, corpora: list[str] | None = None) -> Any:
    """A module's fixture `both`: each of CORPORA (a past step's: watercooler) indexed by the adapter as of COMMIT
    and by this one (stores_of)."""

    @pytest.fixture(scope="module", params=corpora or past_step("watercooler"))
    def both(request, tmp_path_factory):
        yield from stores_of(request, tmp_path_factory, commit)

    return both


both = stores_fixture(SCHEMA_6)


def _layout(store: Path) -> dict[str, Any]:
    """Entry texts stored (not left to chunks), content hashes stored as 32 bytes, and the page size of STORE."""
    held = "SELECT count(*) FROM node_rows WHERE kind = 'entry' AND text IS NOT NULL"
    hashes = "SELECT count(*) FILTER (WHERE length(content_hash) = 32), count(*) FROM chunk_rows"
    return {
        "texts": _rows(store, held)[0][0],
        "hashes": _rows(store, hashes)[0],
        "page": _rows(store, "PRAGMA page_size")[0][0],
    }


def _entries(b: SubprocessBackend, store: Path) -> dict[str, Any]:
    ids = [r[0] for r in _rows(store, "SELECT id FROM node_rows WHERE kind = 'entry' ORDER BY id")]
    return {i: _clean(b.call("get_node", {"id": i})) for i in ids}


def _everything(b: SubprocessBackend, bundle: Path, base: Path, store: Path) -> dict[str, Any]:
    q = _questions(bundle)
    chunk_ids, filters = _ids(base / "new", "chunk_rows")[::5], _metadata_filters(bundle)
    return {**answers(b, q), **_reads(b, q, chunk_ids, filters), **_entries(b, store)}


def test_the_old_adapter_is_schema_6(tmp_path):
    assert "SCHEMA_VERSION = 6" in (_schema6_adapter(tmp_path) / "memdock_sqlite" / "db.py").read_text()


def test_a_new_store_is_smaller_and_answers_as_schema_6_did(both):
    old, new, bundle, base = both
    before, after = _everything(old, bundle, base, base / "old"), _everything(new, bundle, base, base / "new")
    assert sum(bool(v.get("hits") or v.get("item")) for v in before.values()) > 100  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    assert _stored_hashes(base / "old") == _stored_hashes(base / "new")
    was, now = _layout(base / "old"), _layout(base / "new")
    assert now["page"] == db.PAGE_SIZE and was["page"] == 4096
    assert was["hashes"][0] == was["hashes"][1] > 100 and now["hashes"][0] == 0, (was, now)
    if "watercooler" in str(base):  # long entries are chunked with overlap; LoCoMo's turns are one chunk each
        assert now["texts"] < was["texts"] // 3, (was, now)


def migrated(both: tuple, copy: Path, fts: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The old store of BOTH copied to COPY, read as it is, migrated by a `prepare` and read again; checks that
    every answer stays the old adapter's, the hashes read the same and the copy (and its FTS5 index FTS) is intact.
    Returns the layouts `memdock health` names before and after, and the version `prepare` answered."""
    old, _, bundle, base = both
    before = _everything(old, bundle, base, base / "old")
    shutil.copytree(base / "old", copy)
    b = sqlite_backend(copy, workers=1, config={})
    try:
        as_read, layout_before = _everything(b, bundle, base, copy), b.healthcheck().checks["layout"]
        version = b.call("prepare", {}, use_pool=False)["details"]["schema_version"]
        after, layout_after = _everything(b, bundle, base, copy), b.healthcheck().checks["layout"]
    finally:
        b.close()
    assert [k for k in before if before[k] != as_read[k]] == []
    assert [k for k in before if before[k] != after[k]] == []
    assert _stored_hashes(copy) == _stored_hashes(base / "old")
    conn = sqlite3.connect(copy / "data" / db.DB_NAME)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.execute(f"INSERT INTO {fts}({fts}, rank) VALUES ('integrity-check', 0)")
    finally:
        conn.close()
    return {"before": layout_before, "after": layout_after}, {"version": version}


def test_a_schema_6_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    layouts, answered = migrated(both, tmp_path / "copy", "node_fts")
    assert answered["version"] == db.SCHEMA_VERSION
    assert layouts["before"].startswith("schema 6 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _layout(tmp_path / "copy")["hashes"][0] == 0
    assert _layout(tmp_path / "copy")["texts"] == _layout(both[3] / "new")["texts"]


# -- the rules, on small stores ----------------------------------------------------------------------------------


def _run(conn: sqlite3.Connection, *parts: tuple[str, list[dict]], batch_size: int = 2) -> None:
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=batch_size)
    for rtype, records in parts:
        run.run(rtype, iter(records))
    run.finish()


TEXT = "alpha beta gamma delta"
ENTRY = {"id": "entry:e", "thread_id": "thread:t", "position": 0, "title": "note", "body": TEXT}


def _windows(*spans: tuple[int, int], text: str = TEXT) -> list[dict]:
    """Chunks of TEXT at SPANS (start, end), as a chunker with overlap makes them."""
    return [
        {"id": f"chunk:{k}", "entry_id": "entry:e", "thread_id": "thread:t", "position": k, "text": text[s:e]}
        | {"start": s, "end": e}
        for k, (s, e) in enumerate(spans)
    ]


def _text(conn: sqlite3.Connection) -> tuple[str, Any]:
    """(the entry's text as get_node answers it, what node_rows stores)."""
    item = graph.get_node(conn, {"id": "entry:e"})["item"]
    return item["text"], conn.execute("SELECT text FROM node_rows WHERE id = 'entry:e'").fetchone()[0]


def _store(tmp_path: Path, chunks: list[dict]) -> sqlite3.Connection:
    conn = db.open_writer(tmp_path)
    _run(conn, ("thread", [{"id": "thread:t", "title": "t"}]), ("entry", [ENTRY]), ("chunk", chunks))
    return conn


@pytest.mark.parametrize(
    "spans, held",
    [
        (((0, 16), (11, 22)), True),  # overlapping windows: held by the chunks
        (((0, 16), (11, 22), (17, 22)), True),  # a window inside the one before adds nothing
        (((0, 10), (11, 22)), False),  # a gap between windows: the text stays stored
        (((0, 16), (0, 11)), False),  # an offset that is not where the body is in the text
    ],
)
def test_overlapping_chunks_hold_the_text_exactly_and_others_leave_it_stored(tmp_path, spans, held):
    conn = _store(tmp_path, _windows(*spans))
    got, stored = _text(conn)
    assert got == TEXT and (stored is None) == held, stored


def test_chunks_whose_offsets_lie_leave_the_text_stored(tmp_path):
    chunks = _windows((0, 16), (11, 22))
    chunks[1]["start"] = 13  # the body is at 11: cut by this offset, the join would drop two characters too many
    conn = _store(tmp_path, chunks)
    assert _text(conn) == (TEXT, TEXT)


def test_changing_or_deleting_overlapping_chunks_puts_the_text_back(tmp_path):
    conn = _store(tmp_path, _windows((0, 16), (11, 22)))
    assert _text(conn) == (TEXT, None)
    _run(conn, ("chunk", _windows((0, 10), (11, 22))))  # now with a gap: the chunks no longer hold it
    assert _text(conn) == (TEXT, TEXT)
    _run(conn, ("chunk", _windows((0, 16), (11, 22))))
    assert _text(conn) == (TEXT, None)
    delete.delete(conn, {"ids": ["chunk:0", "chunk:1"]})
    assert _text(conn) == (TEXT, TEXT)
    assert conn.execute("SELECT count(*) FROM node_fts WHERE node_fts MATCH 'delta'").fetchone()[0] == 1


def _hashed(**fields: Any) -> dict:
    return {"id": "chunk:h", "entry_id": "entry:e", "thread_id": "thread:t", "position": 0, **fields}


@pytest.mark.parametrize(
    "chunk, derived",
    [
        (_hashed(text=TEXT, content_hash=content_hash(TEXT)), True),
        (_hashed(text="H\n" + TEXT, header="H", content_hash=content_hash("H\n" + TEXT)), True),
        (_hashed(text=TEXT, header="H", content_hash=content_hash(TEXT)), False),  # a header the text lacks
        (_hashed(text=TEXT, content_hash=content_hash(TEXT + " ")), False),  # not this text's
        (_hashed(text=TEXT, content_hash="sha256:" + "A" * 64), False),  # upper case: not the form packed
        (_hashed(text=TEXT, content_hash="md5:0123"), False),
        (_hashed(text=TEXT), False),
    ],
)
def test_a_content_hash_reads_back_as_given_and_is_rebuilt_only_from_its_own_text(tmp_path, chunk, derived):
    conn = _store(tmp_path, [chunk])
    stored = conn.execute("SELECT content_hash FROM chunk_rows").fetchone()[0]
    assert (stored == packed_text.DERIVED_HASH) == derived, stored
    assert conn.execute("SELECT content_hash FROM chunks").fetchone()[0] == chunk.get("content_hash")


def test_health_names_the_layout(tmp_path):
    conn = _store(tmp_path, _windows((0, 22)))
    assert db.layout(conn).startswith(f"schema {db.SCHEMA_VERSION}, page size {db.PAGE_SIZE}")
