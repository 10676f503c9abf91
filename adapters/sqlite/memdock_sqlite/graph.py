"""The structural graph: search nodes, facts and episodes; get a node or an edge by id."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from memdock.sdk.params import group_ids, limit_of, query_text, record_id

from . import fts, hits, link_facts, links

LINKS_UNINDEXED = 9  # the schema from which fact_fts holds edges' facts only (link_facts.py ranks links')

NAME_WEIGHT, TEXT_WEIGHT = 2.0, 1.0
CHUNKS_PER_HIT = 5
NEIGHBOURS = 50


def _search(params: dict[str, Any]) -> tuple[str | None, int, list[str] | None]:
    return fts.match_expression(query_text(params)), limit_of(params), group_ids(params)


def _answer(found: list[dict[str, Any]], match: str | None) -> dict[str, Any]:
    result: dict[str, Any] = {"hits": found, "backend": hits.BACKEND}
    if match is None:
        result["reason"] = "the query has no searchable words"
    return result


def search_nodes(conn: sqlite3.Connection, params: dict[str, Any], *, episodes: bool = False) -> dict[str, Any]:
    """Threads, entries and entities whose name or text matches; entries only when EPISODES. An entry's text is
    searched through its chunks where it has any (node_text.py): it is ranked by its best chunk's BM25 or its
    own, whichever is better."""
    match, limit, groups = _search(params)
    if match is None:
        return _answer([], match)
    found = {row[1]: row for row in _by_node(conn, match, limit, groups, episodes)}
    for row in _entries_by_chunk(conn, match, limit, groups):
        if row[1] not in found or row[-1] < found[row[1]][-1]:
            found[row[1]] = row
    rows = sorted(found.values(), key=lambda row: (row[-1], row[1]))[:limit]
    return _answer(
        [
            hits.node_hit(row[:-1], hits.bm25_score(row[-1]), rank, as_episode=episodes, extra={"bm25": row[-1]})
            for rank, row in enumerate(rows, 1)
        ],
        match,
    )


def _by_node(
    conn: sqlite3.Connection, match: str, limit: int, groups: list[str] | None, episodes: bool
) -> list[tuple[Any, ...]]:
    conds, args = ["node_fts MATCH ?"], [match]
    if episodes:
        conds.append("n.kind = 'entry'")
    if groups:
        g = json.dumps(groups)
        conds.append(
            "(n.thread_id IN (SELECT value FROM json_each(?)) OR (n.kind = 'entity' AND EXISTS ("
            "SELECT 1 FROM edges e WHERE e.target_id = n.id AND e.thread_id IN (SELECT value FROM json_each(?))) "
            "OR EXISTS (SELECT 1 FROM links l JOIN nodes s ON s.rowid = l.source WHERE l.target = n.rowid "
            "AND s.thread_id IN (SELECT value FROM json_each(?)))))"
        )
        args += [g, g, g]
    return conn.execute(
        f"SELECT {hits.NODE_COLUMNS}, bm25(node_fts, {NAME_WEIGHT}, {TEXT_WEIGHT}) AS r FROM node_fts "
        f"JOIN nodes n ON n.rowid = node_fts.rowid WHERE {' AND '.join(conds)} ORDER BY r LIMIT ?",
        [*args, limit],
    ).fetchall()


def _entries_by_chunk(
    conn: sqlite3.Connection, match: str, limit: int, groups: list[str] | None
) -> list[tuple[Any, ...]]:
    """The entries whose chunks match best, each with its best chunk's BM25 (the first LIMIT distinct entries
    among the best CHUNKS_PER_HIT * LIMIT chunks)."""
    conds, args = ["chunk_fts MATCH ?"], [match]
    if groups:
        conds.append("c.thread_id IN (SELECT value FROM json_each(?))")
        args.append(json.dumps(groups))
    best: dict[str, float] = {}
    for entry_id, r in conn.execute(
        f"SELECT c.entry_id, {fts.chunk_bm25(conn)} AS r FROM chunk_fts "
        f"JOIN chunks c ON c.rowid = chunk_fts.rowid WHERE {' AND '.join(conds)} ORDER BY r LIMIT ?",
        [*args, CHUNKS_PER_HIT * limit],
    ):
        if entry_id not in best and len(best) < limit:
            best[entry_id] = r
    if not best:
        return []
    rows = conn.execute(
        f"SELECT {hits.NODE_COLUMNS} FROM nodes n WHERE n.kind = 'entry' AND n.id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(best)),),
    )
    return [(*row, best[row[1]]) for row in rows]


_IN_THREADS = (
    "fact_fts.rowid IN (SELECT rowid FROM edges WHERE thread_id IN (SELECT value FROM json_each(?)) UNION ALL "
    "SELECT l.rowid FROM links l JOIN nodes s ON s.rowid = l.source "
    "WHERE s.thread_id IN (SELECT value FROM json_each(?)))"
)


def search_facts(conn: sqlite3.Connection, params: dict[str, Any]) -> dict[str, Any]:
    """Facts by BM25 over edges' stored facts and links' rendered ones alike: link_facts.py ranks both as one FTS5
    index would; a store of schema 8 or before (read before a writer migrates it) indexes both in fact_fts."""
    match, limit, groups = _search(params)
    if match is None:
        return _answer([], match)
    if conn.execute("PRAGMA user_version").fetchone()[0] >= LINKS_UNINDEXED:
        ranked = link_facts.rank(conn, fts.terms(query_text(params)), limit, groups)
    else:
        ranked = _ranked_by_fts(conn, match, limit, groups)
    rows = _edges_by_rowid(conn, [rowid for rowid, _ in ranked])
    return _answer(
        [hits.fact_hit(rows[rowid], hits.bm25_score(r), rank) for rank, (rowid, r) in enumerate(ranked, 1)], match
    )


def _ranked_by_fts(conn: sqlite3.Connection, match: str, limit: int, groups: list[str] | None) -> link_facts.Ranked:
    """The facts fact_fts ranks best for MATCH, where it indexes every fact (schema 8 and before)."""
    conds, args = ["fact_fts MATCH ?"], [match]
    if groups:
        conds.append(_IN_THREADS)
        args += [json.dumps(groups)] * 2
    return conn.execute(
        f"SELECT rowid, bm25(fact_fts) AS r FROM fact_fts WHERE {' AND '.join(conds)} ORDER BY r LIMIT ?",
        [*args, limit],
    ).fetchall()


def _edges_by_rowid(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, tuple[Any, ...]]:
    """Edges and links among ROWIDS as rows of hits.EDGE_COLUMNS."""
    found = links.by_rowid(conn, rowids)
    rest = json.dumps([r for r in rowids if r not in found])
    for row in conn.execute(
        f"SELECT {hits.EDGE_COLUMNS} FROM edges e WHERE e.rowid IN (SELECT value FROM json_each(?))", (rest,)
    ):
        found[row[0]] = row
    return found


_NEIGHBOURS = """SELECT rowid, id, type, direction, other, fact, key, code FROM (
  SELECT rowid, id, type, 'out' AS direction, target_id AS other, fact, NULL AS key, NULL AS code, 0 AS side
    FROM edges WHERE source_id = :id
  UNION ALL SELECT l.rowid, NULL, NULL, 'out', t.id, NULL, l.key, l.code, 0
    FROM links l JOIN nodes t ON t.rowid = l.target WHERE l.source = :rowid
  UNION ALL SELECT rowid, id, type, 'in', source_id, fact, NULL, NULL, 1 FROM edges WHERE target_id = :id
  UNION ALL SELECT l.rowid, NULL, NULL, 'in', s.id, NULL, l.key, l.code, 1
    FROM links l JOIN nodes s ON s.rowid = l.source WHERE l.target = :rowid
) ORDER BY side, rowid LIMIT :limit"""


def neighbours(conn: sqlite3.Connection, node_id: str, node_rowid: int) -> list[dict[str, Any]]:
    """The node's edges, outgoing then incoming, each in the order they were stored (up to NEIGHBOURS)."""
    rows = conn.execute(_NEIGHBOURS, {"id": node_id, "rowid": node_rowid, "limit": NEIGHBOURS}).fetchall()
    rendered = links.by_rowid(conn, [r[0] for r in rows if r[6] is not None])
    out = []
    for rowid, eid, etype, direction, other, fact, _, _ in rows:
        if rowid in rendered:
            eid, etype, fact = rendered[rowid][1], rendered[rowid][2], rendered[rowid][8]
        out.append({"edge_id": eid, "type": etype, "direction": direction, "other_id": other, "fact": fact})
    return out


def get_node(conn: sqlite3.Connection, params: dict[str, Any]) -> dict[str, Any]:
    node_id = record_id(params)
    row = conn.execute(f"SELECT {hits.NODE_COLUMNS} FROM nodes n WHERE n.id = ?", (node_id,)).fetchone()
    if row is not None:
        return {"item": hits.node_hit(row, 1.0, None, extra={"edges": neighbours(conn, node_id, row[0])})}
    row = conn.execute(f"SELECT {hits.CHUNK_COLUMNS} FROM chunks c WHERE c.id = ?", (node_id,)).fetchone()
    return {"item": hits.chunk_hit(row, 1.0, 1) if row else None}


def get_edge(conn: sqlite3.Connection, params: dict[str, Any]) -> dict[str, Any]:
    edge_id = record_id(params)
    row = conn.execute(f"SELECT {hits.EDGE_COLUMNS} FROM edges e WHERE e.id = ?", (edge_id,)).fetchone()
    row = row or links.by_id(conn, edge_id)
    return {"item": hits.fact_hit(row, 1.0, None) if row else None}
