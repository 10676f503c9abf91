"""Structural edges kept as links: four integers a row, their facts rendered from the nodes they join.

contains / follows / replies_to / mentions edges are what an importer derives from an entry's thread, position,
parent and entity references. An edge record that says nothing more than that (an id of the importers' form
`edge:<type>:<16 hex digits>`, both ends stored nodes, its thread its source's thread, its time none or its
source's, no weight) is stored as a row of `links`: the id's 64 bits, the type, the two nodes' rowids. Its fact
sentence is neither stored nor indexed (schema 9): it is rendered from the two nodes when it is read, and
link_facts.py ranks it from its parts' words beside the edges' facts in fact_fts, as one index of both would.
Any other edge is stored in full in `edges`, as before.

Links and edges share one rowid sequence (`next_rowid`), the rowids a single table would have given, so graph
walks and fact search order them as before. (Schema 8 indexed each link's fact in fact_fts and kept a link
`pending` while its fact was out of it; the column stayed, 0, until schema 12.)

A link is found by its id through an index of its key's top 24 bits, the whole key compared in the row (KEY_SQL):
schema 11 and before indexed the whole key and the type, unique, 2.5 times the bytes. Nothing stores a second link
under a key and type already stored: ingest and implied.py look the key up first (`stored`, implied_links.taken),
and a run that starts with no link makes none twice (implied.Implied.fresh).
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Iterable
from typing import Any

from . import facts
from .db import JOINED

TYPES = ("contains", "follows", "replies_to", "mentions")
_ID = re.compile(r"edge:(contains|follows|replies_to|mentions):([0-9a-f]{16})")

# A link's columns in the order hits.EDGE_COLUMNS gives an edge's (its id, type and fact filled in by `as_edge`).
COLUMNS = (
    "l.rowid, l.key, l.code, s.id, t.id, s.thread_id, NULL, CASE WHEN l.code & 1 THEN s.event_time END, NULL, s.kind"
)
INSERT = "INSERT INTO links(rowid, key, code, source, target) VALUES (?,?,?,?,?)"
JOIN = "links l JOIN nodes s ON s.rowid = l.source JOIN nodes t ON t.rowid = l.target"


@functools.lru_cache(maxsize=1 << 16)  # a batch asks it of each id twice (derive, stored)
def key_of(edge_id: str) -> tuple[int, int] | None:
    """(key, type number) of an id of the importers' form, else None. The key is the digest as a signed int64."""
    m = _ID.fullmatch(edge_id)
    if m is None:
        return None
    unsigned = int(m.group(2), 16)
    return unsigned - (1 << 64) if unsigned >= 1 << 63 else unsigned, TYPES.index(m.group(1))


def id_of(key: int, code: int) -> str:
    return f"edge:{TYPES[code >> 1]}:{key & 0xFFFFFFFFFFFFFFFF:016x}"


# A link by its key (?1), through links_key24 (db.py), or schema 11's index of the whole key on a store read as it is;
# KEYS_SQL: the links of a JSON array of keys (keys_args). The key is compared through IN: with `l.key = ?1`
# SQLite would put ?1 for l.key in the other term too, which would no longer read the index's expression.
KEY_SQL = "l.key >> 40 = ?1 >> 40 AND l.key IN (SELECT ?1)"
KEYS_SQL = "key >> 40 IN (SELECT value >> 40 FROM json_each(?1)) AND key IN (SELECT value FROM json_each(?1))"


def keys_args(keys: Iterable[tuple[int, int]]) -> tuple[str]:
    """KEYS_SQL's argument: the keys of KEYS ((key, type number)) as a JSON array."""
    return (json.dumps([k for k, _ in keys]),)


Ends = dict[str, tuple[int, str | None, str | None]]
# node_rows' text as the `nodes` view reads it (db.py), calling into Python (unpack) only for a packed text
_TEXT = f"iif(typeof(text) = 'text', text, coalesce(unpack(text), {JOINED.format(t='node_rows')}))"


def endpoints(conn: sqlite3.Connection, ids: Iterable[str]) -> tuple[Ends, dict[str, dict[str, Any]]]:
    """rowid, thread_id and event_time of the stored nodes among IDS, and what a fact names of each (facts.node),
    read in one query (from node_rows: a writer's database is always of the current schema)."""
    rows = conn.execute(
        f"SELECT rowid, thread_id, {facts.node_columns(_TEXT)} FROM node_rows "
        "WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(list(set(ids))),),
    )
    ends: Ends = {}
    known: dict[str, dict[str, Any]] = {}
    for r in rows:
        ends[r[2]] = (r[0], r[1], r[-1])
        known[r[2]] = facts.node(r[2:])
    return ends, known


_KNOWN_EXTRA = frozenset({"ingestion_time"})  # write-only in edges.attrs: no read answers it
# The fields an edge record made a link of may have (no weight: a record that has one is stored in full).
_DERIVABLE = frozenset({"id", "type", "source_id", "target_id", "thread_id", "event_time", *_KNOWN_EXTRA})


def derive(r: dict[str, Any], nodes: Ends) -> tuple[int, int, int, int] | None:
    """(key, code, source rowid, target rowid) when edge record R is wholly derived from the nodes it joins."""
    parsed = key_of(r["id"])
    src, dst = nodes.get(r["source_id"]), nodes.get(r["target_id"])
    if parsed is None or src is None or dst is None or TYPES[parsed[1]] != r["type"]:
        return None
    if not r.keys() <= _DERIVABLE:
        return None
    if r.get("thread_id") is None or r["thread_id"] != src[1]:
        return None
    when = r.get("event_time")
    if when is not None and when != src[2]:
        return None
    return parsed[0], parsed[1] * 2 + (when is not None), src[0], dst[0]


def stored(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, tuple[int, int, int, int]]:
    """rowid, code, source and target of the links stored under IDS."""
    keys = [k for k in map(key_of, ids) if k is not None]
    rows = conn.execute(f"SELECT rowid, key, code, source, target FROM links WHERE {KEYS_SQL}", keys_args(keys))
    wanted = set(keys)
    return {id_of(r[1], r[2]): (r[0], r[2], r[3], r[4]) for r in rows if (r[1], r[2] >> 1) in wanted}


def next_rowid(conn: sqlite3.Connection) -> int:
    """The rowid the next new edge or link gets: one past the largest of either (what one table would give)."""
    row = conn.execute(
        "SELECT max(coalesce((SELECT max(rowid) FROM edges), 0), coalesce((SELECT max(rowid) FROM links), 0))"
    ).fetchone()
    return int(row[0]) + 1


def as_edge(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows of COLUMNS as rows of hits.EDGE_COLUMNS: the id and type spelled out, the fact rendered."""
    if not rows:
        return []
    known = facts.prefetch(conn, (i for r in rows for i in (r[3], r[4])))
    phrases: facts.Phrases = {}
    out = []
    for rowid, key, code, source_id, target_id, thread_id, weight, event_time, _, kind in rows:
        etype = TYPES[code >> 1]
        text = _render(conn, etype, source_id, target_id, event_time, known, phrases)
        out.append((rowid, id_of(key, code), etype, source_id, target_id, thread_id, weight, event_time, text, kind))
    return out


def _render(
    conn: sqlite3.Connection,
    etype: str,
    source_id: str,
    target_id: str,
    event_time: str | None,
    known: dict[str, dict[str, Any]],
    phrases: facts.Phrases,
) -> str:
    edge = {"type": etype, "source_id": source_id, "target_id": target_id, "event_time": event_time}
    return facts.render(conn, edge, known, phrases)[0]


def by_rowid(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    """The links among ROWIDS as rows of hits.EDGE_COLUMNS, by rowid."""
    rows = conn.execute(
        f"SELECT {COLUMNS} FROM {JOIN} WHERE l.rowid IN (SELECT value FROM json_each(?))", (json.dumps(list(rowids)),)
    ).fetchall()
    return {r[0]: r for r in as_edge(conn, rows)}


def by_id(conn: sqlite3.Connection, edge_id: str) -> tuple[Any, ...] | None:
    parsed = key_of(edge_id)
    if parsed is None:
        return None
    rows = conn.execute(f"SELECT {COLUMNS} FROM {JOIN} WHERE {KEY_SQL} AND l.code >> 1 = ?2", parsed).fetchall()
    return as_edge(conn, rows)[0] if rows else None


# Deletes (delete.py), over its temp table `doomed` of ids.
_DOOMED_NODES = "(SELECT rowid FROM nodes WHERE id IN (SELECT id FROM doomed))"


def named(conn: sqlite3.Connection) -> set[str]:
    """The ids in doomed that name stored links."""
    return set(stored(conn, [r[0] for r in conn.execute("SELECT id FROM doomed WHERE id LIKE 'edge:%'")]))


def entities_of_doomed(conn: sqlite3.Connection) -> set[str]:
    """The entities that links from doomed nodes point at."""
    rows = conn.execute(
        "SELECT n.id FROM links l JOIN nodes n ON n.rowid = l.target AND n.kind = 'entity' "
        f"WHERE l.source IN {_DOOMED_NODES}"
    )
    return {r[0] for r in rows}


def remove_doomed(conn: sqlite3.Connection, ids: set[str]) -> list[str]:
    """Delete the links named in IDS and those that touch a doomed node; returns their ids."""
    rowids = [v[0] for v in stored(conn, ids).values()]
    where = f"l.rowid IN (SELECT value FROM json_each(?)) OR l.source IN {_DOOMED_NODES} OR l.target IN {_DOOMED_NODES}"
    args = (json.dumps(rowids),)
    gone = [id_of(key, code) for key, code in conn.execute(f"SELECT l.key, l.code FROM links l WHERE {where}", args)]
    conn.execute(f"DELETE FROM links WHERE rowid IN (SELECT l.rowid FROM links l WHERE {where})", args)
    return gone


def touches(conn: sqlite3.Connection, node_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM links WHERE source = (SELECT rowid FROM nodes WHERE id = ?1) "
        "OR target = (SELECT rowid FROM nodes WHERE id = ?1) LIMIT 1",
        (node_id,),
    ).fetchone()
    return row is not None
