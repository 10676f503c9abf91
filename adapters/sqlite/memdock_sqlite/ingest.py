"""Upsert a bundle's records into the database, in batches that are each committed, then checkpointed.

Order matters: threads, entities and entries before chunks (a chunk's fields come from its entry when the
chunk lacks them), and edges last so their facts can name both ends.
"""

from __future__ import annotations

import functools
import itertools
import json
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from memdock.sdk.implied import KEY, KINDS
from memdock.times import parse_datetime

from . import block_worker, chunk_attrs, db, facts, first_load, graph_log, links, node_text, packed_text, text_blocks
from .db import transaction

ORDER = ("thread", "entity", "entry", "chunk", "edge")
BATCH = 2000

Row = tuple[Any, ...]


@functools.lru_cache(maxsize=1 << 16)  # a chunk's time is most often its entry's
def timestamp(value: str | None) -> float | None:
    if not value:
        return None
    return parse_datetime(value).timestamp()


def _attrs(record: dict[str, Any], known: frozenset[str]) -> str:
    """The fields of RECORD not in KNOWN, as compact JSON: by orjson (json's text but for how a float's exponent is
    spelt, at a fraction of its cost), by json where orjson refuses (a lone surrogate, an integer past 64 bits)."""
    if record.keys() <= known:
        return "{}"
    rest = {k: v for k, v in record.items() if k not in known}
    try:
        return orjson.dumps(rest).decode()
    except (orjson.JSONEncodeError, UnicodeDecodeError):
        return json.dumps(rest, ensure_ascii=False, separators=(",", ":"))


_NODE_SQL = """INSERT INTO node_rows(id, kind, name, text, thread_id, position, author, role, entry_type, event_time,
  event_ts, attrs, indexed)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0)
ON CONFLICT(id) DO UPDATE SET kind=excluded.kind, name=excluded.name, text=excluded.text, thread_id=excluded.thread_id,
  position=excluded.position, author=excluded.author, role=excluded.role, entry_type=excluded.entry_type,
  event_time=excluded.event_time, event_ts=excluded.event_ts, attrs=excluded.attrs, indexed=0"""

_CHUNK_COLUMNS = """id, entry_id, thread_id, position, header, body, start, "end", token_count,
  author, role, entry_type, event_time, event_ts, content_hash, attrs, block, span, head"""
_NEW_CHUNK_SQL = f"INSERT INTO chunk_rows(rowid, {_CHUNK_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
_CHUNK_SQL = f"""INSERT INTO chunk_rows({_CHUNK_COLUMNS})
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET entry_id=excluded.entry_id, thread_id=excluded.thread_id, position=excluded.position,
  header=excluded.header, body=excluded.body, start=excluded.start, "end"=excluded."end",
  token_count=excluded.token_count,
  author=excluded.author, role=excluded.role, entry_type=excluded.entry_type, event_time=excluded.event_time,
  event_ts=excluded.event_ts, content_hash=excluded.content_hash, attrs=excluded.attrs, block=excluded.block,
  span=excluded.span, head=excluded.head"""

_EDGE_SQL = """INSERT INTO edges(rowid, id, type, source_id, target_id, thread_id, weight, event_time, event_ts, fact,
  resolved, attrs)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(id) DO UPDATE SET type=excluded.type, source_id=excluded.source_id, target_id=excluded.target_id,
  thread_id=excluded.thread_id, weight=excluded.weight, event_time=excluded.event_time, event_ts=excluded.event_ts,
  fact=excluded.fact, resolved=excluded.resolved, attrs=excluded.attrs"""


_THREAD_KNOWN = frozenset(("id", "title", "topic", "event_time"))
_ENTITY_KNOWN = frozenset(("id", "entity_type", "name"))
# An entry's `implied_edges` are its links' (implied.py), not its attrs: stored as sdk.implied.explicit leaves it, with
# no copy of the record made.
_ENTRY_KNOWN = frozenset(
    ("id", "thread_id", "position", "author", "role", "entry_type", "title", "body", "event_time", KEY)
)
_CHUNK_KNOWN = frozenset(
    (
        "id",
        "entry_id",
        "thread_id",
        "position",
        "text",
        "header",
        "start",
        "end",
        "token_count",
        "author",
        "role",
        "entry_type",
        "event_time",
        "content_hash",
    )
)
_EDGE_KNOWN = frozenset(("id", "type", "source_id", "target_id", "thread_id", "weight", "event_time"))


def thread_row(r: dict[str, Any]) -> Row:
    text = " ".join(x for x in (r.get("topic"), r.get("status"), r.get("ball")) if x)
    return (
        r["id"],
        "thread",
        r.get("title", ""),
        text,
        r["id"],
        None,
        None,
        None,
        None,
        r.get("event_time"),
        timestamp(r.get("event_time")),
        _attrs(r, _THREAD_KNOWN),
    )


def entity_row(r: dict[str, Any]) -> Row:
    aliases = r.get("aliases") or []
    text = " ".join([r["entity_type"], r["name"], *aliases])
    return (
        r["id"],
        "entity",
        r["name"],
        text,
        None,
        None,
        None,
        None,
        r["entity_type"],
        None,
        None,
        _attrs(r, _ENTITY_KNOWN),
    )


def entry_row(r: dict[str, Any]) -> Row:
    return (
        r["id"],
        "entry",
        r.get("title", ""),
        r["body"],
        r["thread_id"],
        r["position"],
        r.get("author"),
        r.get("role"),
        r.get("entry_type"),
        r.get("event_time"),
        timestamp(r.get("event_time")),
        _attrs(r, _ENTRY_KNOWN),
    )


def chunk_body(r: dict[str, Any]) -> str:
    """A chunk's text without its header line (the body column; what embeddings are made from)."""
    return body_of(r.get("header") or "", r["text"])


def body_of(header: str, text: str) -> str:
    """A chunk's TEXT without its HEADER line."""
    return text[len(header) + 1 :] if header and text.startswith(header + "\n") else text


_ATTRS = 15  # chunk_row's attrs, its last column


def chunk_row(r: dict[str, Any], parent: dict[str, Any]) -> Row:
    """The chunk_rows row of chunk R; PARENT holds its entry's stored fields (those it inherits, thread_id, and its
    rowid, by which the row names it: by its id where no node has it); its attrs as they are
    (`Ingest._upsert_chunks` stores them as chunk_attrs.py does)."""
    get = r.get
    header = get("header") or ""
    body = body_of(header, r["text"])
    author, role, entry_type, event_time = get("author"), get("role"), get("entry_type"), get("event_time")
    thread = r["thread_id"]
    if author is None or role is None or entry_type is None or event_time is None:
        author = author if author is not None else parent.get("author")
        role = role if role is not None else parent.get("role")
        entry_type = entry_type if entry_type is not None else parent.get("entry_type")
        event_time = event_time if event_time is not None else parent.get("event_time")
    return (
        r["id"],
        parent.get("rowid", r["entry_id"]),  # db.ENTRY_OF
        "" if thread == parent.get("thread_id") else thread,  # '': its entry's (db.THREAD)
        r["position"],
        header,
        body,
        get("start"),
        get("end"),
        get("token_count"),
        author,
        role,
        entry_type,
        event_time,
        timestamp(event_time),
        packed_text.pack_hash(get("content_hash"), header, body),
        _attrs(r, _CHUNK_KNOWN),
    )


def edge_row(
    conn: sqlite3.Connection,
    r: dict[str, Any],
    known: dict[str, dict[str, Any]] | None = None,
    phrases: facts.Phrases | None = None,
) -> Row:
    text, resolved = facts.render(conn, r, known, phrases)
    return (
        r["id"],
        r["type"],
        r["source_id"],
        r["target_id"],
        r.get("thread_id"),
        r.get("weight"),
        r.get("event_time"),
        timestamp(r.get("event_time")),
        text,
        int(resolved),
        _attrs(r, _EDGE_KNOWN),
    )


def _batches(items: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


_FIELDS = ("author", "role", "entry_type", "event_time", "thread_id", "rowid")  # Ingest._entry_fields


class Ingest:
    """Writes batches of one record type in a transaction; calls ON_COMMIT with the committed ids."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        on_commit: Callable[[list[str]], None],
        batch_size: int = BATCH,
        whole: bool = False,
    ):
        """WHOLE: the run's rows are kept all or none (a bulk load's, bulk.py), so a first load may leave entries'
        texts out of node_rows until it knows their chunks do not hold them (first_load.FirstLoad.unwritten)."""
        self.conn, self.on_commit, self.batch_size = conn, on_commit, batch_size
        self.counts: dict[str, int] = {}
        # what the run wrote, while the store held nothing else and no id came twice (first_load.py)
        self.first = first_load.FirstLoad(whole) if first_load.empty(conn) else None
        self.unbuilt = first_load.missing_indexes(conn) if self.first is not None else {}  # built by `_built`
        self.chunked: set[str] = set()  # entries whose chunks this run wrote
        self.dictionaries = packed_text.Dictionaries(conn)
        self.implied: Any = None  # implied.Implied: the edges entries imply (implied.py)

    def _entry_fields(self, batch: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
        """The stored fields and rowids of the entries behind BATCH's chunks, fetched in one query (known, on a
        first load)."""
        if self.first is not None:
            known = self.first.fields
            if not known:  # no node came (a chunks-only bundle)
                return {}
            return {eid: known[eid] for eid in {r["entry_id"] for r in batch} if eid in known}
        ids = json.dumps(list({r["entry_id"] for r in batch}))
        rows = self.conn.execute(
            "SELECT id, author, role, entry_type, event_time, thread_id, rowid FROM node_rows "
            "WHERE id IN (SELECT value FROM json_each(?))",
            (ids,),
        )
        return {r[0]: dict(zip(_FIELDS, r[1:])) for r in rows}

    def run(self, rtype: str, records: Iterator[dict[str, Any]]) -> None:
        if rtype == "edge" and self.first is not None and self.first.unwritten:  # a fact may name an entry by its text
            with db.batch(self.conn):
                self.first.write_back(self.conn)
        for batch in _batches(records, self.batch_size):
            with db.batch(self.conn):
                self._write(rtype, batch)
            self.counts[rtype] = self.counts.get(rtype, 0) + len(batch)
            self.on_commit([r["id"] for r in batch if isinstance(r, dict)])  # not implied.Derived

    def _write(self, rtype: str, batch: list[dict[str, Any]]) -> None:
        if rtype == "thread":
            self._upsert_nodes(rtype, [thread_row(r) for r in batch])
        elif rtype == "entity":
            self._upsert_nodes(rtype, [entity_row(r) for r in batch])
        elif rtype == "entry":
            self._upsert_nodes(rtype, [entry_row(r) for r in batch])
        elif rtype == "chunk":
            if self.first is not None and not self.first.chunks.isdisjoint(r["id"] for r in batch):
                self._asked()  # a chunk sent again
            entries = self._entry_fields(batch)
            if self.first is None:  # on a first load no text is left to chunks before `finish`
                before = node_text.entries_of(self.conn, [r["id"] for r in batch])  # a chunk may move entries
                node_text.materialise(self.conn, [*entries, *before])
            self.chunked.update(entries)
            self._upsert_chunks(batch, entries)
        elif rtype == "edge":
            self._write_edges(batch)

    def _write_edges(self, batch: list[Any]) -> None:
        """BATCH's edge records (the last of each id, where its first was) and the edges implied entries stand for
        (implied.Derived: written by implied.py, or given back as records), in their order."""
        for made, part in itertools.groupby(_last_of_each_id(batch), key=lambda r: not isinstance(r, dict)):
            items = list(part)
            rowids = None if self.first is None else self.first.rowids
            records = self.implied.write(self.conn, items, rowids) if made else items
            if records:
                self._write_records(_last_of_each_id(records) if made else records)

    def _write_records(self, batch: list[dict[str, Any]]) -> None:
        """Structural edges as links, any other edge in full (links.py); a new one gets the next shared rowid,
        one stored before keeps its rowid whichever table it moves to. The facts of the edges the batch adds are
        rendered from the nodes read once, and go into fact_fts in rowid order (`_index`); a link's is not indexed
        (link_facts.py)."""
        c = self.conn
        ends, known = links.endpoints(c, (i for r in batch for i in (r["source_id"], r["target_id"])))
        derived = {r["id"]: links.derive(r, ends) for r in batch}
        ids = json.dumps([r["id"] for r in batch])
        full_rowid = dict(c.execute("SELECT id, rowid FROM edges WHERE id IN (SELECT value FROM json_each(?))", (ids,)))
        old_links = links.stored(c, (r["id"] for r in batch))
        rowid: dict[str, int] = {}
        nxt = links.next_rowid(c)
        for r in batch:
            before = full_rowid.get(r["id"], old_links[r["id"]][0] if r["id"] in old_links else None)
            rowid[r["id"]] = nxt if before is None else before
            nxt += before is None
        changed = {old[0] for i, old in old_links.items() if (derived[i] or ())[1:] != old[1:]}
        gone = json.dumps(sorted(changed))
        c.execute("DELETE FROM links WHERE rowid IN (SELECT value FROM json_each(?))", (gone,))
        moved = json.dumps([i for i in full_rowid if derived[i] is not None])
        c.execute("DELETE FROM edges WHERE id IN (SELECT value FROM json_each(?))", (moved,))
        added = [
            r for r in batch if derived[r["id"]] is not None and (r["id"] not in old_links or rowid[r["id"]] in changed)
        ]
        c.executemany(
            links.INSERT,
            [(rowid[r["id"]], *(derived[r["id"]] or ())) for r in added],
        )
        phrases: facts.Phrases = {}  # the nodes do not change while the batch's facts are rendered
        full = [(rowid[r["id"]], *edge_row(c, r, known, phrases)) for r in batch if derived[r["id"]] is None]
        c.executemany(_EDGE_SQL, full)
        if self.implied is not None:
            self.implied.full = self.implied.full or any(row[2] in KINDS for row in full)
            self.implied.fresh = self.implied.fresh and not added
        new = [(row[0], row[9]) for row in full if row[1] not in full_rowid]
        _index(c, "fact_fts(rowid, fact)", new)

    def _asked(self) -> None:
        """The database answers from here on: what the run knew is dropped (every text it left out written), and
        the indexes the answers read built."""
        if self.first is not None:
            self.first.write_back(self.conn, joined=True)
            db.set_loose(self.conn, True)
        self.first = None
        self._built()

    def _built(self, names: tuple[str, ...] = db.LOAD_INDEXES) -> None:
        """Those of NAMES among the indexes a bulk load left out, built (first_load.missing_indexes)."""
        for name in names:
            if name in self.unbuilt:
                self.conn.execute(self.unbuilt[name])
        self.unbuilt = {name: sql for name, sql in self.unbuilt.items() if name not in names}

    def finish(self) -> int:
        """Index the nodes this run (or a killed one before it) stored; returns how many. The chunk indexes and the
        triggers a bulk load left out are made before (the nodes' indexing looks chunks up by entry), the rest
        after."""
        self._built(db.CHUNK_INDEXES + db.LOAD_TRIGGERS)
        with transaction(self.conn, "indexing"):
            if self.first is not None:  # every node is pending: no other can be left to its chunks
                self.first.write_back(self.conn)
                if self.first.whole:
                    db.set_loose(self.conn, self.first.loose())
                joins = self.first.joins
                rowids = self.first.rowids
                indexed = node_text.index_pending(self.conn, joined=joins.joined, unknown=joins.unknown, rowids=rowids)
            else:
                indexed = node_text.index_pending(self.conn)
                node_text.hold_in_chunks(self.conn, self.chunked)
            self._built()
            graph_log.prune(self.conn)
            return indexed

    def _upsert_nodes(self, rtype: str, rows: list[Row]) -> None:
        """Upsert nodes, left for `finish` to index (an entry's text is indexed only if it has no chunks)."""
        rows = _last_of_each(rows)
        attrs = self.dictionaries.pack_attrs(rtype, [r[-1] for r in rows], [r[0] for r in rows])  # as stored
        rows = self._first_nodes(rows, attrs)
        if self.first is None:
            db.keep_threads(self.conn, json.dumps([(r[0], r[4]) for r in rows]))
        self.conn.executemany(_NODE_SQL, rows)

    def _first_nodes(self, rows: list[Row], attrs: list[str | bytes]) -> list[Row]:
        """ROWS (_NODE_SQL's) with their ATTRS as stored; on a first load, what later batches ask of them kept as they
        go (first_load.FirstLoad.nodes: a whole run's entries without the texts it holds)."""
        first = self.first
        if first is not None and not first.fields.keys().isdisjoint([r[0] for r in rows]):
            self._asked()  # a node sent again
            first = None
        if first is None:
            return [(*r[:-1], a) for r, a in zip(rows, attrs)]
        return first.nodes(rows, attrs)

    def _upsert_chunks(self, batch: list[dict[str, Any]], entries: dict[str, dict[str, Any]]) -> None:
        """Upsert chunks (bodies packed in blocks) and index the new ones in chunk_fts with the text as given, not
        unpacked again (rows that already existed are re-indexed by the update trigger); then re-pack the blocks
        rewritten chunks left (text_blocks.sweep)."""
        c = self.conn
        none: dict[str, Any] = {}
        rows = _last_of_each([chunk_row(r, entries.get(r["entry_id"], none)) for r in batch])
        attrs = chunk_attrs.store(c, [r[_ATTRS] for r in rows])
        headers, bodies = [r[4] for r in rows], [r[5] for r in rows]
        if self.first is not None:  # compressed on its thread while the rows are indexed
            eids = {r["id"]: r["entry_id"] for r in batch}
            packing = block_worker.Packing(c, headers, bodies)
            self._first_chunks(rows, [eids[r[0]] for r in rows], attrs, headers, bodies, packing)
            return
        rows = [(*r[:_ATTRS], a) for r, a in zip(rows, attrs)]
        rows = list(_with_blocks(rows, text_blocks.place(c, headers, bodies)))
        ids = json.dumps([r[0] for r in rows])
        in_batch = "id IN (SELECT value FROM json_each(?))"
        known = {i for (i,) in c.execute(f"SELECT id FROM chunk_rows WHERE {in_batch}", (ids,))}
        c.executemany(_CHUNK_SQL, rows)
        words = {r["id"]: (r.get("header") or "", chunk_body(r)) for r in batch if r["id"] not in known}
        new = json.dumps(list(words))
        rowids = c.execute(f"SELECT id, rowid FROM chunk_rows WHERE {in_batch}", (new,))
        _index(c, "chunk_fts(rowid, header, body)", [(rowid, *words[i]) for i, rowid in rowids])
        text_blocks.sweep(c)

    def _first_chunks(
        self,
        rows: list[Row],
        eids: list[str],
        attrs: list[str],
        headers: list[str],
        bodies: list[str],
        packing: block_worker.Packing,
    ) -> None:
        """ROWS (chunk_row's, EIDS their entries' ids, ATTRS their attrs as stored, HEADERS and BODIES theirs) as
        new chunks of a first load:
        each gets the rowid SQLite would give it (one past the last, all of them this run's), and goes into chunk_fts
        with it while PACKING compresses their blocks; no block is left stale (none held a chunk before)."""
        assert self.first is not None
        chunks, joins = self.first.chunks, self.first.joins
        nxt = len(chunks) + 1
        _index(
            self.conn,
            "chunk_fts(rowid, header, body)",
            list(zip(range(nxt, nxt + len(rows)), headers, bodies)),
            ordered=True,  # rowids counted up
        )
        self.conn.executemany(_NEW_CHUNK_SQL, _new_rows(nxt, rows, attrs, packing.placed()))
        chunks.update(r[0] for r in rows)
        if joins.before_entries(eids):
            return
        chunk = joins.chunk
        for r, eid, body in zip(rows, eids, bodies):
            chunk(eid, r[3], r[6], r[7], body)


def _index(conn: sqlite3.Connection, table: str, rows: list[Row], *, ordered: bool = False) -> None:
    """ROWS (rowid first) into an FTS5 TABLE (with its columns), in rowid order: FTS5 writes out the terms it holds
    whenever a rowid is not above the last one, so rows in another order (the order of their ids, say) made it
    write a segment for every few rows and merge them all, several times the cost of the same rows in order
    (bench/sqlite_ingest.py)."""
    if rows:
        marks = ",".join("?" * len(rows[0]))
        if not ordered:
            rows = sorted(rows, key=_rowid)
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)


def _rowid(row: Row) -> int:
    return int(row[0])


def _with_blocks(rows: list[Row], placed: list[text_blocks.Placed]) -> Iterator[Row]:
    """ROWS (chunk_row's) with their headers and bodies as PLACED stores them, and their blocks, spans and heads."""
    return (
        (*r[:4], r[4] if head is None else "", body, *r[6:], block, span, head)
        for r, (block, span, body, head) in zip(rows, placed)
    )


def _new_rows(nxt: int, rows: list[Row], attrs: list[str], placed: list[text_blocks.Placed]) -> Iterator[Row]:
    """_NEW_CHUNK_SQL's rows: ROWS (chunk_row's) from rowid NXT on, with ATTRS as stored and their headers and
    bodies as PLACED stores them (`_with_blocks`'s, made in one step)."""
    return (
        (nxt + k, *r[:4], r[4] if head is None else "", body, *r[6:_ATTRS], a, block, span, head)
        for k, (r, a, (block, span, body, head)) in enumerate(zip(rows, attrs, placed))
    )


def _last_of_each_id(records: list[Any]) -> list[Any]:
    """RECORDS with one record per id, the last one where the first was (items without an id stay)."""
    out: list[Any] = []
    at: dict[str, int] = {}
    for r in records:
        if isinstance(r, dict):
            if r["id"] in at:
                out[at[r["id"]]] = r
                continue
            at[r["id"]] = len(out)
        out.append(r)
    return out


def _last_of_each(rows: list[Row]) -> list[Row]:
    """ROWS with one row per id (the first column), the last one, as one upsert after another would leave."""
    return list({r[0]: r for r in rows}.values()) if len({r[0] for r in rows}) < len(rows) else rows
