"""memdock's stand-in for LeanRAG's `database_utils` module: the same function names, arguments and row shapes,
served from one SQLite file (`leanrag.sqlite`) in the working dir instead of a MySQL server and Milvus.

LeanRAG imports this module by name, so this folder goes first on `sys.path`. Written from what LeanRAG's callers
read: `find_tree_root` answers [entity, parent, grandparent, ...]; `search_nodes_link` a relation row
(src_tgt, tgt_src, description, weight, level) or None; `search_community` a community row
(entity_name, entity_description, findings) or ""; `search_vector_search` (entity_name, parent, description,
source_id) tuples, best first, one per entity name. Vectors are float32 blobs compared by cosine in NumPy (exact
search).

Every answer can be recorded (`recording()`), so the adapter turns what LeanRAG's retrieval read into typed hits,
and the cosine of each vector match is kept in `LAST_SCORES`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections import Counter
from collections.abc import Iterator
from typing import Any

import numpy as np

DB_NAME = "leanrag.sqlite"
ACTIVE: str | None = None  # the working dir LeanRAG's query code names only by its last path component
LAST_SCORES: dict[str, float] = {}
_RECORD: list[tuple[str, Any]] | None = None
_VECTORS: dict[str, tuple[float, Any]] = {}

SCHEMA = """
CREATE TABLE entities (node_id TEXT NOT NULL, entity_name TEXT NOT NULL, description TEXT, source_id TEXT,
    degree INTEGER, parent TEXT, level INTEGER NOT NULL, entity_type TEXT);
CREATE INDEX entities_name ON entities (entity_name, level);
CREATE INDEX entities_node ON entities (node_id);
CREATE TABLE relations (fact_id TEXT NOT NULL, src_tgt TEXT NOT NULL, tgt_src TEXT NOT NULL, description TEXT,
    weight INTEGER, level INTEGER NOT NULL, source_id TEXT);
CREATE INDEX relations_link ON relations (src_tgt, tgt_src);
CREATE INDEX relations_fact ON relations (fact_id);
CREATE TABLE communities (entity_name TEXT NOT NULL, entity_description TEXT, findings TEXT);
CREATE INDEX communities_name ON communities (entity_name);
CREATE TABLE vectors (row INTEGER PRIMARY KEY, entity_name TEXT NOT NULL, parent TEXT, description TEXT,
    source_id TEXT, level INTEGER NOT NULL, vector BLOB NOT NULL);
"""


def node_id(name: str) -> str:
    return "leanrag:node:" + hashlib.sha1(name.encode()).hexdigest()[:16]


def fact_id(src: str, tgt: str, level: int) -> str:
    return "leanrag:fact:" + hashlib.sha1(f"{src}\x1f{tgt}\x1f{level}".encode()).hexdigest()[:16]


def _path(working_dir: str) -> str:
    """WORKING_DIR as given, or the active one when LeanRAG passes only its last component."""
    direct = os.path.join(working_dir, DB_NAME)
    if os.path.exists(direct):
        return direct
    if ACTIVE and os.path.basename(os.path.normpath(ACTIVE)) == os.path.basename(os.path.normpath(working_dir)):
        return os.path.join(ACTIVE, DB_NAME)
    raise FileNotFoundError(f"no LeanRAG graph store {DB_NAME} under {working_dir!r}")


def _connect(working_dir: str) -> sqlite3.Connection:
    return sqlite3.connect(_path(working_dir), timeout=30)


def _note(kind: str, value: Any) -> None:
    if _RECORD is not None:
        _RECORD.append((kind, value))


@contextlib.contextmanager
def recording() -> Iterator[list[tuple[str, Any]]]:
    """Collect (kind, row) for every answer given while inside."""
    global _RECORD
    _RECORD = []
    try:
        yield _RECORD
    finally:
        _RECORD = None


def _read_jsonl(path: str) -> Iterator[Any]:
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


# -- building ---------------------------------------------------------------------------------------


def create_db_table_mysql(working_dir: str) -> None:
    os.makedirs(working_dir, exist_ok=True)
    path = os.path.join(working_dir, DB_NAME)
    if os.path.exists(path):
        os.remove(path)
    with contextlib.closing(sqlite3.connect(path)) as con:
        con.executescript(SCHEMA)


def insert_data_to_mysql(working_dir: str) -> None:
    """all_entities.json (one line per layer; the top may be a single object), generate_relations.json,
    community.json."""
    entities = []
    for level, layer in enumerate(_read_jsonl(os.path.join(working_dir, "all_entities.json"))):
        for e in layer if isinstance(layer, list) else [layer]:
            name = str(e["entity_name"])
            entities.append(
                (
                    node_id(name),
                    name,
                    e.get("description"),
                    e.get("source_id"),
                    e.get("degree"),
                    e.get("parent"),
                    level,
                    e.get("entity_type"),
                )
            )
    relations = [
        (
            fact_id(r["src_tgt"], r["tgt_src"], r["level"]),
            r["src_tgt"],
            r["tgt_src"],
            r["description"],
            r["weight"],
            r["level"],
            r.get("source_id"),
        )
        for r in _read_jsonl(os.path.join(working_dir, "generate_relations.json"))
    ]
    communities = [
        (c["entity_name"], c["entity_description"], str(c["findings"]))
        for c in _read_jsonl(os.path.join(working_dir, "community.json"))
    ]
    with contextlib.closing(_connect(working_dir)) as con, con:
        con.executemany("INSERT INTO entities VALUES (?, ?, ?, ?, ?, ?, ?, ?)", entities)
        con.executemany("INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?)", relations)
        con.executemany("INSERT INTO communities VALUES (?, ?, ?)", communities)


def insert_origin_relations(working_dir: str) -> None:
    """The extracted (level 0) relations from relation.jsonl in the working dir, one row per ordered pair (the last
    description wins, as in LeanRAG's own merge; the source chunks of every duplicate are kept)."""
    pairs: dict[tuple[str, str], dict] = {}
    for r in _read_jsonl(os.path.join(working_dir, "relation.jsonl")):
        key = (str(r["src_tgt"]), str(r["tgt_src"]))
        sources = (pairs[key]["source_id"].split("|") if key in pairs else []) + str(r.get("source_id") or "").split(
            "|"
        )
        pairs[key] = {**r, "source_id": "|".join(dict.fromkeys(s for s in sources if s))}
    rows = [
        (fact_id(s, t, 0), s, t, r["description"], r.get("weight", 1), 0, r["source_id"]) for (s, t), r in pairs.items()
    ]
    with contextlib.closing(_connect(working_dir)) as con, con:
        con.executemany("INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def build_vector_search(data: list, working_dir: str) -> None:
    """DATA: LeanRAG's layers (lists of entity dicts, the top possibly one dict), each with a `vector`."""
    rows = []
    for level, layer in enumerate(data):
        for e in layer if isinstance(layer, list) else [layer]:
            vec = np.asarray(e["vector"], dtype=np.float32).reshape(-1)
            norm = float(np.linalg.norm(vec)) or 1.0
            rows.append(
                (
                    str(e["entity_name"]),
                    e.get("parent"),
                    e.get("description"),
                    e.get("source_id"),
                    level,
                    (vec / norm).astype("<f4").tobytes(),
                )
            )
    with contextlib.closing(_connect(working_dir)) as con, con:
        con.execute("DELETE FROM vectors")
        con.executemany(
            "INSERT INTO vectors (entity_name, parent, description, source_id, level, vector) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )


# -- reading ----------------------------------------------------------------------------------------


def _matrix(working_dir: str) -> tuple[list[tuple], Any]:
    path = _path(working_dir)
    stamp = os.stat(path).st_mtime_ns
    cached = _VECTORS.get(path)
    if cached and cached[0] == stamp:
        return cached[1]
    with contextlib.closing(sqlite3.connect(path)) as con:
        rows = con.execute(
            "SELECT entity_name, parent, description, source_id, level, vector FROM vectors ORDER BY row"
        ).fetchall()
    meta = [r[:5] for r in rows]
    mat = (
        np.frombuffer(b"".join(r[5] for r in rows), dtype="<f4").reshape(len(rows), -1)
        if rows
        else np.zeros((0, 1), "f4")
    )
    _VECTORS[path] = (stamp, (meta, mat))
    return meta, mat


def search_vector_search(working_dir: str, query: Any, topk: int = 10, level_mode: int = 2) -> list[tuple]:
    """level_mode 0: extracted entities only; 1: aggregates only; 2: all."""
    meta, mat = _matrix(working_dir)
    LAST_SCORES.clear()
    if not meta:
        return []
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if q.shape[0] != mat.shape[1]:
        raise ValueError(
            f"query vector has {q.shape[0]} dimensions, the store {mat.shape[1]}: the embedder changed; re-index"
        )
    q = q / (float(np.linalg.norm(q)) or 1.0)
    scores = mat @ q
    levels = np.array([m[4] for m in meta])
    keep = levels == 0 if level_mode == 0 else levels > 0 if level_mode == 1 else np.ones(len(meta), bool)
    order, named = [], set()
    for i in np.argsort(-scores, kind="stable"):
        # a cluster of one carries its node up a layer unchanged: one row per name, so repeats do not crowd out topk
        if keep[i] and meta[i][0] not in named:
            named.add(meta[i][0])
            order.append(i)
            if len(order) == topk:
                break
    out = []
    for i in order:
        name, parent, description, source_id, _level = meta[i]
        LAST_SCORES.setdefault(name, float(scores[i]))
        out.append((name, parent, description, source_id))
    _note("vector", [(m[0], m[4]) for m in (meta[i] for i in order)])
    return out


def find_tree_root(working_dir: str, entity: str) -> list[str]:
    """ENTITY and its ancestors, one parent lookup per level of the tree."""
    res = [entity]
    with contextlib.closing(_connect(working_dir)) as con:
        depth = con.execute("SELECT max(level) FROM entities").fetchone()[0] or 0
        for _ in range(depth):
            row = con.execute(
                "SELECT parent FROM entities WHERE entity_name = ? ORDER BY level LIMIT 1", (entity,)
            ).fetchone()
            if row is None:
                break
            entity = row[0]
            res.append(entity)
    return res


def search_nodes_link(entity1: str, entity2: str, working_dir: str, level: int = 0) -> tuple | None:
    with contextlib.closing(_connect(working_dir)) as con:
        q = (
            "SELECT src_tgt, tgt_src, description, weight, level FROM relations WHERE src_tgt = ? AND tgt_src = ? "
            "LIMIT 1"
        )
        row = con.execute(q, (entity1, entity2)).fetchone() or con.execute(q, (entity2, entity1)).fetchone()
    if row is not None:
        _note("relation", row)
    return row


def search_community(entity_name: str, working_dir: str) -> tuple | str:
    with contextlib.closing(_connect(working_dir)) as con:
        row = con.execute(
            "SELECT entity_name, entity_description, findings FROM communities WHERE entity_name = ? LIMIT 1",
            (entity_name,),
        ).fetchone()
    if row is None:
        return ""
    _note("community", row)
    return row


def search_nodes(entity_set: list[str], working_dir: str) -> list[tuple]:
    with contextlib.closing(_connect(working_dir)) as con:
        return [
            con.execute(
                "SELECT entity_name, description, source_id, degree, parent, level FROM entities "
                "WHERE entity_name = ? AND level = 0",
                (e,),
            ).fetchone()
            for e in entity_set
        ]


def search_chunks(working_dir: str, entity_set: list[str]) -> list[tuple]:
    with contextlib.closing(_connect(working_dir)) as con:
        return [
            con.execute("SELECT source_id FROM entities WHERE entity_name = ?", (e,)).fetchone()
            for e in entity_set
            if e != "root"
        ]


def find_path(entity1: str, entity2: str, working_dir: str, level: int, depth: int = 5) -> list[str] | None:
    """The shortest chain of relations at LEVEL from ENTITY1 to ENTITY2 (at most DEPTH hops), as node names."""
    frontier, seen = [[entity1]], {entity1}
    with contextlib.closing(_connect(working_dir)) as con:
        for _ in range(depth):
            nxt = []
            for path in frontier:
                for (tgt,) in con.execute(
                    "SELECT tgt_src FROM relations WHERE src_tgt = ? AND level = ?", (path[-1], level)
                ):
                    if tgt == entity2:
                        return path + [tgt]
                    if tgt not in seen:
                        seen.add(tgt)
                        nxt.append(path + [tgt])
            frontier = nxt
    return None


def chunk_keys_ranked(chunks_set: list[str], k: int) -> list[str]:
    """LeanRAG's choice of source chunks: keys named by several matches first (most often first), then the rest in
    order."""
    keys = [c for chunks in chunks_set if chunks for c in str(chunks).split("|")]
    counter = Counter(keys)
    chosen = [c for c, n in sorted(((c, n) for c, n in counter.items() if n > 1), key=lambda x: -x[1])[:k]]
    for c in counter:
        if len(chosen) >= k:
            break
        if c not in chosen:
            chosen.append(c)
    return chosen


def get_text_units(working_dir: str, chunks_set: list[str], chunks_file: str, k: int = 5) -> str:
    """CHUNKS_FILE: a JSON list of {hash_code, text}; missing keys (deleted chunks) are passed over."""
    with open(chunks_file, encoding="utf-8") as f:
        texts = {c["hash_code"]: c["text"] for c in json.load(f)}
    chosen = [c for c in chunk_keys_ranked(chunks_set, k) if c in texts]
    _note("chunks", chosen)
    return "".join(texts[c] + "\n" for c in chosen)
