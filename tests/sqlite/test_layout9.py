"""Schema 9 (memdock_sqlite/link_facts.py): links' facts are no longer indexed in fact_fts; `search_facts` ranks them
from their ends' phrases as one FTS5 index of every fact would. Every answer, `search_facts`' scores and order
included, is what the adapter of schema 8 gave, on the shared corpora, in a new store and in a schema-8 store read
as it is and once migrated; on small stores the ranking equals FTS5's own over the rendered facts, edges' facts
beside them, for queries that cross a fact's parts, in threads, after writes and after a forget.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from test_layout7 import _everything, _run, migrated, stores_fixture
from test_packed_text import _rows

from memdock.sdk import facts as sdk_facts

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "adapters" / "sqlite"))
from memdock_sqlite import db, delete, fts, graph, link_facts, links

pytestmark = pytest.mark.timeout(1200)  # two adapters index shared corpora: minutes on a loaded 2-core box

SCHEMA_8 = "bdaef08983f5cdcef542ce2c0e46617259c3aaa5"  # the last commit before schema 9
both = stores_fixture(SCHEMA_8)


def _fact_rows(store: Path) -> int:
    return _rows(store, "SELECT count(*) FROM fact_fts_docsize")[0][0]


def test_a_new_store_indexes_no_link_and_answers_as_schema_8_did(both):
    old, new, bundle, base = both
    old_db = base / "old-adapter" / "adapters" / "sqlite" / "memdock_sqlite" / "db.py"  # stores_of's
    assert "SCHEMA_VERSION = 8" in old_db.read_text()
    before, after = _everything(old, bundle, base, base / "old"), _everything(new, bundle, base, base / "new")
    facts = [k for k in before if k.startswith("facts ")]
    assert sum(bool(before[k]["hits"]) for k in facts) > 20  # not all empty
    assert [k for k in before if before[k] != after[k]] == []
    links_stored = _rows(base / "new", "SELECT count(*) FROM links")[0][0]
    edges_stored = _rows(base / "new", "SELECT count(*) FROM edges")[0][0]
    assert _fact_rows(base / "old") == links_stored + edges_stored and links_stored > 100
    assert _fact_rows(base / "new") == edges_stored


def test_a_schema_8_store_reads_as_it_is_and_answers_the_same_once_migrated(both, tmp_path):
    layouts, answered = migrated(both, tmp_path / "copy", "fact_fts")
    assert answered["version"] == db.SCHEMA_VERSION
    assert layouts["before"].startswith("schema 8 (read as it is"), layouts
    assert layouts["after"].startswith(f"schema {db.SCHEMA_VERSION}"), layouts
    assert _fact_rows(tmp_path / "copy") == _rows(tmp_path / "copy", "SELECT count(*) FROM edges")[0][0]
    assert _rows(tmp_path / "copy", "SELECT count(*) FROM sqlite_schema WHERE name = 'links_pending'") == [(0,)]


# -- the ranking, on small stores ---------------------------------------------------------------------------------


AUTHORS = {1: "lee", 2: "user", 4: "sam", 5: "lee", 7: "user"}  # "contains user's entry": a phrase across


def _store(tmp_path: Path) -> sqlite3.Connection:
    """Two threads of notes (one untitled, authors and dates on some, the same text twice), entities they mention,
    structural edges (links) and edges stored in full (a weight, another type): facts of every template."""
    conn = db.open_writer(tmp_path)
    threads = [{"id": "thread:a", "title": "Release plans"}, {"id": "thread:b", "title": "contains_user notes"}]
    bodies = ["ship the release on friday", "ship the release on friday", "the contains_user bug again", "d_x y"]
    entries = [
        {
            "id": f"entry:{k}",
            "thread_id": "thread:a" if k < 6 else "thread:b",
            "position": k,
            "body": "twin note" if k in (8, 9) else f"{bodies[k % 4]} {k}",  # 9 follows 8: one phrase twice
            **({"author": AUTHORS[k]} if k in AUTHORS else {}),
            **({"event_time": f"2026-03-0{1 + k % 9}T10:00:00Z"} if k % 4 else {}),
            **({"title": f"zeppelin plan {k}"} if k == 3 else {}),
        }
        for k in range(10)
    ]
    entities = [{"id": "entity:file:m", "entity_type": "file", "name": "tools/migrate_v2.py"}]
    edges = []
    for e in entries:
        if e["position"] not in (0, 6):
            prev = f"entry:{e['position'] - 1}"
            edges.append(_edge("follows", e["id"], prev, e))
        edges.append(_edge("contains", e["thread_id"], e["id"], e))
        if e["position"] % 3 == 0:
            edges.append(_edge("mentions", e["id"], "entity:file:m", e))
    edges.append(_edge("replies_to", "entry:5", "entry:4", entries[5]))
    edges.append({**_edge("references", "entry:7", "entity:file:m", entries[7]), "weight": 0.5})
    edges.append({**_edge("follows", "entry:9", "entry:7", entries[9]), "weight": 2.0})  # stored in full
    _run(conn, ("thread", threads), ("entry", entries), ("entity", entities), ("edge", edges), batch_size=7)
    return conn


def _edge(kind: str, source: str, target: str, entry: dict) -> dict:
    from memdock.sdk.implied import edge_id

    when = None if kind == "contains" else entry.get("event_time")
    rec = {"id": edge_id(kind, source, target), "type": kind, "source_id": source, "target_id": target}
    return {**rec, "thread_id": entry["thread_id"], **({"event_time": when} if when else {})}


def _reference(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Every fact the store answers with (edges' and links', rendered as get_edge reads them) in one FTS5 index,
    rowids kept: what fact_fts held in schema 8."""
    ref = sqlite3.connect(":memory:")
    ref.execute(f"CREATE VIRTUAL TABLE f USING fts5(fact, content='', tokenize='{link_facts.TOKENIZE}')")
    ref.execute("CREATE TABLE thread(rowid INTEGER PRIMARY KEY, thread_id TEXT)")
    rowids = [r for (r,) in conn.execute("SELECT rowid FROM links UNION ALL SELECT rowid FROM edges")]
    rows = graph._edges_by_rowid(conn, rowids)
    ref.executemany("INSERT INTO f(rowid, fact) VALUES (?, ?)", [(r[0], r[8]) for r in rows.values()])
    ref.executemany("INSERT INTO thread VALUES (?, ?)", [(r[0], r[5]) for r in rows.values()])
    return ref


def _ranked_by_fts5(ref: sqlite3.Connection, words: list[str], limit: int, group: str | None) -> list[tuple]:
    where = "f MATCH ?" + (" AND rowid IN (SELECT rowid FROM thread WHERE thread_id = ?)" if group else "")
    args = [fts.any_of(words), *([group] if group else []), limit]
    return ref.execute(f"SELECT rowid, bm25(f) AS r FROM f WHERE {where} ORDER BY r LIMIT ?", args).fetchall()


QUERIES = [
    "contains",
    "ship release",
    "lee",
    "sam replied",
    "thread notes",
    "contains_user",  # a phrase of two words: inside a phrase, and across a thread's title and the verb
    "user entry",
    "d_x",
    "2026 03",
    "on",
    "migrate_v2",
    "tools migrate_v2 py file",
    "references",
    "plan 3 friday",
    "twin",
    "nothing matches this",
]


def _check(conn: sqlite3.Connection) -> int:
    ref = _reference(conn)
    compared = 0
    for text in QUERIES:
        words = fts.terms(text)
        for limit in (3, 50):
            for group in (None, "thread:a", "thread:b"):
                got = link_facts.rank(conn, words, limit, [group] if group else None)
                assert got == _ranked_by_fts5(ref, words, limit, group), (text, limit, group)
                compared += len(got)
    return compared


def test_links_rank_as_one_fts5_index_of_every_fact_would(tmp_path):
    conn = _store(tmp_path)
    assert conn.execute("SELECT count(*) FROM links").fetchone()[0] > 20
    assert conn.execute("SELECT count(*) FROM edges").fetchone()[0] == 2
    assert conn.execute("SELECT count(*) FROM fact_fts_docsize").fetchone()[0] == 2  # the edges' facts alone
    assert _check(conn) > 200


def test_a_fact_split_into_parts_is_the_rendered_fact(tmp_path):
    conn = _store(tmp_path)
    rows = conn.execute(f"SELECT {links.COLUMNS} FROM {links.JOIN}").fetchall()
    get = sdk_lookup = graph.links.facts.lookup(conn)
    assert sdk_lookup is get
    for row in links.as_edge(conn, rows):
        edge = {"type": row[2], "source_id": row[3], "target_id": row[4], "event_time": row[7]}
        cut, found = sdk_facts.parts(get, edge)
        assert found and " ".join(cut) == row[8] and all(cut)
    lk = link_facts.load(conn, link_facts.Tokenizer())
    tokenize = link_facts.Tokenizer()
    rendered = {r[0]: r[8] for r in links.as_edge(conn, rows)}
    whole = tokenize([rendered[r] for r in lk.rowids])
    for n, words in enumerate(whole):
        assert tuple(w for p in lk.parts[n] for w in lk.tokens[p]) == words
        assert lk.lengths[n] == len(words)


def test_the_ranking_follows_writes_on_the_same_connection_and_on_another(tmp_path):
    conn = _store(tmp_path)
    reader = db.open_db(tmp_path, write=False)
    assert reader is not None
    assert link_facts.rank(reader, ["zebra"], 10, None) == []
    _run(conn, ("entry", [{"id": "entry:z", "thread_id": "thread:b", "position": 10, "body": "a zebra"}]))
    _run(conn, ("edge", [_edge("contains", "thread:b", "entry:z", {"thread_id": "thread:b"})]))
    for c in (conn, reader):
        found = link_facts.rank(c, ["zebra"], 10, None)
        assert len(found) == 1 and found[0][1] < 0
    _check(conn)
    _check(reader)


def test_a_forgotten_entry_leaves_no_fact_that_names_it(tmp_path):
    conn = _store(tmp_path)
    assert link_facts.rank(conn, ["zeppelin"], 10, None)
    delete.delete(conn, {"ids": ["entry:3"]})
    assert link_facts.rank(conn, ["zeppelin"], 10, None) == []
    assert conn.execute("SELECT count(*) FROM fact_fts WHERE fact_fts MATCH 'zeppelin'").fetchone()[0] == 0
    _check(conn)


def test_fts5s_row_count_and_length_are_read_from_its_record(tmp_path):
    conn = _store(tmp_path)
    rows, tokens = link_facts.indexed(conn)
    facts = [f for (f,) in conn.execute("SELECT fact FROM edges")]
    assert rows == 2 and tokens == sum(len(t) for t in link_facts.Tokenizer()(facts))
    empty = db.open_writer(tmp_path / "empty")
    assert link_facts.indexed(empty) == (0, 0)
    assert link_facts.rank(empty, ["anything"], 10, None) == []
