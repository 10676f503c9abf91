"""What made ingest cheaper keeps every answer and every stored byte (memdock_sqlite/ingest.py, links.py,
packed_text.py): rows reach FTS5 in rowid order, links' facts are rendered from the nodes a batch reads once, and
bodies are packed by copies of one primed compressor.

The adapter as it was before (BEFORE, taken from git) and as it is now index the same shared corpora, first into
a new store (a bulk load) and then a second corpus into that store (in place, in batches): the tables hold the
same rows, the FTS5 indexes the same terms at the same places, and every read answers the same.
"""

from __future__ import annotations

import sqlite3
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from test_derived_edges import SHARED_DATA, _corpus, _old_adapter, _questions, answers, index_both
from test_packed_attrs import _ids, _metadata_filters, _reads

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, ingest, link_facts, packed_text

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

BEFORE = "485e2a4333b61975e8467b0f126584587914e54a"  # the last commit before these changes
SECOND = {"watercooler": "irc", "locomo": "watercooler"}  # the corpus each store is given in a second run
TABLES = ("nodes", "chunks", "edges", "links")  # nodes and chunks as every reader reads them (schema 7 stores some
# entries' texts and most content hashes otherwise: test_layout7.py; schema 8 the bodies in blocks: test_layout8.py)
_COLUMNS = {"links": "key, code, source, target"}  # schema 11 and before: then `pending`, 0 (schema 12 has none)
# meta but the bodies' dictionary, which schema 8 no longer makes (its blocks need none), and the chunks' attrs'
# template, which schema 11 learns (test_chunk_attrs.py), and where schema 14's log of changes stands (graph_log.py)
META = (
    "SELECT key, value FROM meta WHERE key <> 'zdict-of:body' AND key NOT LIKE 'chunk-attrs:%' "
    "AND key NOT IN ('graph_seq', 'graph_floor') "
    "AND key NOT IN (SELECT 'zdict:' || value FROM meta WHERE key = 'zdict-of:body') ORDER BY key"
)


def _stored(store: Path) -> dict[str, Any]:
    """Every row of the tables, and every (term, row, column, offset) of the FTS5 indexes, of STORE."""
    conn = db.open_db(store / "data", write=False)
    assert conn is not None
    try:
        out: dict[str, Any] = {
            t: conn.execute(f"SELECT rowid, {_COLUMNS.get(t, '*')} FROM {t} ORDER BY rowid").fetchall() for t in TABLES
        }
        out["meta"] = conn.execute(META).fetchall()
        for fts in ("node_fts", "chunk_fts", "fact_fts"):
            conn.execute(f"CREATE VIRTUAL TABLE temp.v_{fts} USING fts5vocab(main, {fts}, instance)")
            # fact_fts: the edges' facts (schema 9 indexes no link's: test_layout9.py compares how they rank)
            edges_only = " WHERE doc IN (SELECT rowid FROM edges)" if fts == "fact_fts" else ""
            out[fts] = conn.execute(f"SELECT * FROM temp.v_{fts}{edges_only} ORDER BY 1, 2, 3, 4").fetchall()
        return out
    finally:
        conn.close()


@pytest.fixture(scope="module", params=sorted(SECOND))
def both(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"speed-{request.param}")
    adapter = _old_adapter(base / "before-adapter", BEFORE, ("adapters/common",))
    for old, new, bundle, _ in index_both(adapter, base, request.param, config={}):
        yield old, new, bundle, base, request.param


def _fact_rows(store: Path) -> int:
    conn = db.open_db(store / "data", write=False)
    assert conn is not None
    try:
        return conn.execute("SELECT count(*) FROM fact_fts_docsize").fetchone()[0]
    finally:
        conn.close()


def _compare(old, new, bundle: Path, base: Path) -> None:
    stored_old, stored_new = _stored(base / "old"), _stored(base / "new")
    assert [k for k in stored_old if stored_old[k] != stored_new[k]] == []
    assert len(stored_new["links"]) > 100 and len(stored_new["edges"]) == _fact_rows(base / "new")
    q = _questions(bundle)
    before, after = answers(old, q), answers(new, q)
    assert [k for k in before if before[k] != after[k]] == []
    chunk_ids, filters = _ids(base / "new", "chunk_rows")[::7], _metadata_filters(bundle)
    reads_old, reads_new = _reads(old, q, chunk_ids, filters), _reads(new, q, chunk_ids, filters)
    assert [k for k in reads_old if reads_old[k] != reads_new[k]] == []


def test_a_bulk_load_stores_and_answers_what_the_adapter_before_did(both):
    _compare(*both[:4])


def test_a_second_run_in_place_stores_and_answers_what_the_adapter_before_did(both):
    old, new, _, base, corpus = both
    second = _corpus(SHARED_DATA, SECOND[corpus], base / "second")
    old.index(second)
    new.index(second)
    _compare(old, new, second, base)


class _Recording:
    """A connection that notes the rowids of every executemany into an FTS5 table."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn, self.fts_rowids = conn, {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)

    def executemany(self, sql: str, rows: Any) -> Any:
        rows = list(rows)
        if "_fts(" in sql and "'delete'" not in sql and rows:
            self.fts_rowids.setdefault(sql.split("(")[0].split()[-1], []).append([r[0] for r in rows])
        return self.conn.executemany(sql, rows)


def test_rows_reach_fts5_in_rowid_order(tmp_path):
    """Ids are hashes: in their order the rowids are shuffled, and FTS5 writes out what it holds at each rowid not
    above the last one (a segment every few rows)."""
    conn = _Recording(db.open_writer(tmp_path))
    n = 300
    ids = [f"{zlib.crc32(str(k).encode()):08x}" for k in range(n)]
    entries = [
        {"id": f"entry:{i}", "thread_id": "thread:t", "position": k, "body": f"note {k}"} for k, i in enumerate(ids)
    ]
    chunks = [
        {"id": f"chunk:{i}", "entry_id": f"entry:{i}", "thread_id": "thread:t", "position": 0, "text": f"note {k}"}
        for k, i in enumerate(ids)
    ]
    edges = [
        {
            "id": f"edge:contains:{i}{i}",
            "type": "contains",
            "source_id": "thread:t",
            "target_id": f"entry:{i}",
            "thread_id": "thread:t",
        }
        for i in ids
    ]
    edges += [
        {"id": f"edge:x:{i}", "type": "relates_to", "source_id": f"entry:{i}", "target_id": "thread:t"} for i in ids
    ]
    run = ingest.Ingest(conn, on_commit=lambda ids: None, batch_size=1000)  # type: ignore[arg-type]
    for rtype, records in (
        ("thread", [{"id": "thread:t", "title": "t"}]),
        ("entry", entries),
        ("chunk", chunks),
        ("edge", edges),
    ):
        run.run(rtype, iter(records))
    run.finish()
    assert sorted(conn.fts_rowids) == ["chunk_fts", "fact_fts"]
    for table, calls in conn.fts_rowids.items():
        assert [len(c) for c in calls] == [n], (table, calls)  # fact_fts: the relates_to edges' (no link's)
        assert all(c == sorted(c) for c in calls), table
    assert conn.execute("SELECT count(*) FROM links").fetchone()[0] == n
    assert conn.execute("SELECT count(*) FROM fact_fts WHERE fact_fts MATCH 'relates'").fetchone()[0] == n
    conn.close()
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None and len(link_facts.rank(reader, ["contains"], 2 * n, None)) == n


@pytest.mark.parametrize("zdict", [None, b"note the backup of the nightly " * 40])
def test_a_primed_packer_writes_the_bytes_a_compressor_of_its_own_writes(zdict):
    texts = ["short", "x" * 70, "the nightly backup " * 20, "Резервное копирование " * 9, "🚀" * 40, "\ud800" * 80]
    texts += [bytes(range(256)).decode("latin-1") * 2]
    one = packed_text.packer(zdict)
    for text in texts * 2:
        packed = one(text)
        if isinstance(packed, bytes):
            z = zlib.compressobj(6, zlib.DEFLATED, 14, 5, zlib.Z_DEFAULT_STRATEGY, *([zdict] if zdict else []))
            assert packed == z.compress(text.encode()) + z.flush()
            assert packed_text.unpack(packed, lambda _: zdict or b"") == text
        else:
            assert packed == text
    assert isinstance(one("the nightly backup " * 20), bytes) and one("\ud800" * 80) == "\ud800" * 80
