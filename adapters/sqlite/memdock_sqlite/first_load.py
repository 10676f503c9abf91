"""What an index run into an empty store knows without asking the database: every row in it is one it wrote.

A run that starts with no node, chunk, edge or link stored (a bulk load into a new file, or a first run into an
empty database) keeps, as it writes, what it would otherwise read back: the rowid each chunk and node gets, the
fields of each entry its chunks inherit, and whether an entry's chunks join to its text (db.JOINS: then node_rows
need not hold it). Each answer is one the database would give, since nothing but this run wrote to it; where the
run sends something twice (an id again, a chunk out of position order, a chunk before its entry) the answer is left
to the database (`Joins.unknown`).
"""

from __future__ import annotations

import itertools
import sqlite3
from typing import Any

from . import db

Row = tuple[Any, ...]
Fields = tuple[Any, Any, Any, Any]  # an entry's author, role, entry_type, event_time as stored
HELD_BYTES = 64 << 20  # entries' texts held until their chunks are checked; past it, the database checks


def empty(conn: sqlite3.Connection) -> bool:
    """Whether CONN's store holds no node, chunk, edge or link."""
    tables = ("node_rows", "chunk_rows", "edges", "links")
    return not any(conn.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() for t in tables)


def missing_indexes(conn: sqlite3.Connection) -> dict[str, str]:
    """The statements that create those of the secondary indexes of chunk_rows, links and node_rows (and the
    triggers, db.LOAD_TRIGGERS) CONN's store lacks (db.LOAD_INDEXES), by name: a bulk load leaves them out
    (bulk.load) for the run to build once its rows are in, from the sorted rows, instead of row by row as each goes
    in (`python bench/sqlite_chunk_load.py`)."""
    have = {name for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type IN ('index', 'trigger')")}
    return {name: db.index_sql(name) for name in db.LOAD_INDEXES if name not in have}


class Joins:
    """Whether each entry's chunks, joined as db.JOINED joins them (in position order, each without what it repeats
    of the one before), are exactly its text, checked as the chunks come: an entry's text is held only until its
    chunks have spelt all of it (or one did not). Each entry and each chunk comes once (`FirstLoad`)."""

    def __init__(self) -> None:
        self.text: dict[str, str] = {}  # entries whose chunks have not yet spelt their whole text
        self.at: dict[str, tuple[int, int | None, int]] = {}  # entry: (chars matched, last end, last position)
        self.joined: set[str] = set()  # entries whose chunks so far spell their whole text
        self.unknown: set[str] = set()  # entries left to the database
        self.entries: set[str] = set()  # every entry that came
        self.early: set[str] = set()  # entries a chunk came before, when none of its batch's entries had come
        self.held = 0

    def entry(self, eid: str, text: str) -> None:
        self.entries.add(eid)
        if eid in self.at or eid in self.early or self.held + len(text) > HELD_BYTES:  # a chunk came before it,
            # or too much is held
            self.unknown.add(eid)
            return
        self.text[eid] = text
        self.held += len(text)

    def before_entries(self, eids: list[str]) -> bool:
        """Whether none of EIDS (a batch's chunks' entries) has come: then their chunks need no check but that
        they came (`entry` leaves such an entry to the database), and are not given to `chunk` (a chunks-only
        bundle's every chunk: 0.7 us a chunk in Python less)."""
        if not self.entries.isdisjoint(eids):
            return False
        self.early.update(eids)
        return True

    def _drop(self, eid: str) -> None:
        self.held -= len(self.text.pop(eid, ""))

    def chunk(self, eid: str, position: Any, start: Any, end: Any, body: str) -> None:
        """The next chunk of entry EID, as stored (its body without its header)."""
        if eid in self.unknown:
            return
        last = self.at.get(eid)
        ints = type(position) is int and (start is None or type(start) is int) and (end is None or type(end) is int)
        if not ints or (last is not None and position <= last[2]):  # SQL would order them otherwise
            self._drop(eid)
            self.joined.discard(eid)
            self.unknown.add(eid)
            return
        matched, last_end = (0, None) if last is None else last[:2]
        piece = body[max(last_end - start, 0) :] if last_end is not None and start is not None else body
        self.at[eid] = (matched + len(piece), end, position)
        if eid in self.joined:
            if piece:
                self.joined.discard(eid)
            return
        text = self.text.get(eid)
        if text is None:  # no entry of this run, or its text did not join already
            return
        if not text.startswith(piece, matched) or matched + len(piece) >= len(text):
            self._drop(eid)
            if text and matched + len(piece) == len(text) and text.startswith(piece, matched):
                self.joined.add(eid)


class FirstLoad:
    """The rows an index run into an empty store wrote, as far as later batches of the run ask about them. Valid
    while no id comes twice (Ingest drops it at the first that does).

    In a WHOLE run (one kept all or none: a bulk load), an entry whose text `Joins` holds goes into node_rows
    without it (NULL, what node_rows holds of an entry its chunks spell): the text is kept here (`unwritten`, up to
    HELD_BYTES) and written at `write_back`, before anything reads it, unless the entry's chunks join to it. Their
    texts then never fill node_rows' pages only to leave them part-empty, and the load needs no VACUUM for them
    (db.set_loose)."""

    def __init__(self, whole: bool = False) -> None:
        self.fields: dict[str, dict[str, Any]] = {}  # node id: what its chunks inherit or compare with, as stored
        self.rowids: dict[str, int] = {}  # node id: its rowid (what implied links join)
        self.chunks: set[str] = set()
        self.joins = Joins()
        self.whole = whole
        self.unwritten: dict[str, str] = {}  # entry: its text, which its node row does not hold (yet)
        self.unwritten_bytes = 0
        self.written: set[str] = set()  # a whole run's entries whose rows hold their texts

    def nodes(self, rows: list[Row], attrs: list[Any]) -> list[Row]:
        """ROWS (ingest._NODE_SQL's, none stored before) with ATTRS, their attrs as stored, as this run stores them,
        each node's fields its chunks inherit and its rowid (one past the last: every row is this run's) kept, and
        each entry's text given to `joins`; a whole run stores an entry whose text `joins` holds without it (kept in
        `unwritten`). One pass over the rows (0.05 CPU s for the 20,000 notes' entries, 0.07 in three)."""
        fields, rowids, entry = self.fields, self.rowids, self.joins.entry
        out: list[Row] = []
        for rowid, r, a in zip(itertools.count(len(rowids) + 1), rows, attrs):
            i = r[0]
            fields[i] = {
                "author": r[6],
                "role": r[7],
                "entry_type": r[8],
                "event_time": r[9],
                "thread_id": r[4],
                "rowid": rowid,
            }
            rowids[i] = rowid
            if r[1] == "entry":
                entry(i, r[3])
                if self.whole and r[3] and self._leave_out(i, r[3]):
                    out.append((*r[:3], None, *r[4:-1], a))
                    continue
            out.append((*r[:-1], a))
        return out

    def _leave_out(self, eid: str, text: str) -> bool:
        """Whether entry EID's TEXT is kept here (`unwritten`) rather than in its row: `joins` holds it, and there is
        room; else its row holds it (`written`)."""
        if eid in self.joins.text and self.unwritten_bytes + len(text) <= HELD_BYTES:
            self.unwritten[eid] = text
            self.unwritten_bytes += len(text)
            return True
        self.written.add(eid)
        return False

    def write_back(self, conn: sqlite3.Connection, *, joined: bool = False) -> None:
        """Write the texts `nodes` left out, but those of entries whose chunks so far spell them (JOINED: all)."""
        if not self.unwritten:
            return
        back = [(t, i) for i, t in self.unwritten.items() if joined or i not in self.joins.joined]
        conn.executemany("UPDATE node_rows SET text = ? WHERE id = ?", back)
        for _, i in back:
            self.unwritten_bytes -= len(self.unwritten.pop(i))
            self.written.add(i)

    def loose(self) -> bool:
        """Whether node_text.index_pending (given `joins`) may leave to its chunks an entry's text its row holds."""
        return not (self.written.isdisjoint(self.joins.joined) and self.written.isdisjoint(self.joins.unknown))
