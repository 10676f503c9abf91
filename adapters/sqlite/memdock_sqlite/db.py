"""The database file: open it safely, create or check its schema, and refuse what is not ours.

Nothing here writes to a file before it is known to be a memdock database of a schema this code reads,
so a corrupt file, a foreign SQLite file or one from a newer adapter is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memdock.diskfull import sqlite_transaction
from memdock.errors import BackendError, ConfigError, VersionError

from . import chunk_attrs, fts, graph_log, packed_text, text_blocks

DB_NAME = "memory.sqlite"
APPLICATION_ID = 0x4D444B31  # "MDK1"
SCHEMA_VERSION = 14
TOKENIZE = "porter unicode61 remove_diacritics 2"  # every FTS5 table's (link_facts.py tokenizes with it too)
PAGE_SIZE = 8192  # a new database's: on the 20k notes of bench/peers.py 1 % smaller than with 4096
LINKS_KEY24 = 12  # the schema from which links are found by their key's top 24 bits (links.KEY_SQL)
ATTRS_BY_ID = 12  # the schema from which nodes' attrs are packed with their ids (packed_text.attrs_packer)
ENTRY_ROWIDS = 13  # the schema from which a chunk names its entry by the entry's rowid (chunk_rows.entry_id)
FTS_HASH_BYTES = 64 << 20
"""chunk_fts's `hashsize` (a table setting, kept in the database): the terms a writer holds in memory before it
writes them out as a segment. FTS5's 1 MiB wrote a segment a megabyte and kept merging them: FTS5 alone loaded and
merged bench/peers.py's 100k chunks in 2.28 CPU s with it, 1.79 s at 64 MiB, 1.24 s with no savepoint between
batches either (`batch`; `python bench/fts5_layout.py`), for at most that much more memory while a run writes."""

_LINK_COLUMNS = "rowid INTEGER PRIMARY KEY, key INTEGER, code INTEGER, source INTEGER, target INTEGER"

# New rows reach the FTS tables from ingest, one insert per batch in rowid order (ingest._index, node_text.py), not
# from AFTER INSERT triggers: with a trigger per row, chunks were indexed 2.2× slower. Deletes and updates keep theirs.
DDL_TEMPLATE = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);

CREATE TABLE IF NOT EXISTS node_rows(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,            -- thread | entry | entity
    name TEXT NOT NULL DEFAULT '',
    text TEXT,                     -- NULL: its chunks' bodies joined in position order (node_text.py); else as
                                   -- it is, or a BLOB of it zlib-compressed (packed_text.py)
    thread_id TEXT,
    position INTEGER,
    author TEXT, role TEXT, entry_type TEXT,
    event_time TEXT, event_ts REAL,
    attrs NOT NULL DEFAULT '{}',   -- TEXT, or a BLOB packed with a dictionary (packed_text.py)
    indexed INTEGER NOT NULL DEFAULT 0  -- in node_fts: 0 not yet, 1 name and text, 2 name only (see node_text.py)
);
CREATE INDEX IF NOT EXISTS nodes_thread ON node_rows(thread_id, position);
CREATE INDEX IF NOT EXISTS nodes_unindexed ON node_rows(indexed) WHERE indexed = 0;
CREATE VIRTUAL TABLE IF NOT EXISTS node_fts USING fts5(
    name, text, content='nodes', content_rowid='rowid', tokenize='{tokenize}');
CREATE TRIGGER IF NOT EXISTS nodes_ad AFTER DELETE ON node_rows WHEN old.indexed > 0 BEGIN
    INSERT INTO node_fts(node_fts, rowid, name, text)
    VALUES ('delete', old.rowid, old.name, CASE old.indexed WHEN 2 THEN '' ELSE unpack(old.text) END);
END;
CREATE TRIGGER IF NOT EXISTS nodes_au AFTER UPDATE OF name, text ON node_rows
WHEN old.indexed > 0 AND new.text IS NOT NULL BEGIN
    INSERT INTO node_fts(node_fts, rowid, name, text)
    VALUES ('delete', old.rowid, old.name, CASE old.indexed WHEN 2 THEN '' ELSE unpack(old.text) END);
    UPDATE node_rows SET indexed = 0 WHERE rowid = new.rowid;
END;

CREATE TABLE IF NOT EXISTS chunk_rows(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    entry_id NOT NULL,             -- its entry's node_rows.rowid (INTEGER); its entry's id (TEXT) where no node had
                                   -- that id when the chunk was written, or its node was deleted (schema 12 and
                                   -- before: the id, TEXT). No affinity: an id of digits is not a rowid (ENTRY_OF)
    thread_id TEXT NOT NULL,       -- '': its entry's (read through the chunks view; schema 9 and before: stored)
    position INTEGER NOT NULL,
    header TEXT NOT NULL DEFAULT '',
    body NOT NULL,                 -- '' when in a block; else TEXT as it is, or a BLOB of its UTF-8
                                   -- zlib-compressed (packed_text.py: schema 5 to 7)
    start INTEGER, "end" INTEGER, token_count INTEGER,
    author TEXT, role TEXT, entry_type TEXT,
    event_time TEXT, event_ts REAL,
    content_hash,                  -- TEXT; a sha256 as its 32 bytes, or X'' when it is the hash of the chunk's own
                                   -- text (packed_text.pack_hash)
    attrs TEXT NOT NULL DEFAULT '{}', -- with its most recurring pieces marked (chunk_attrs.py; schema 10 and
                                      -- before: as it is)
    block INTEGER,                 -- text_blocks.id holding the body (text_blocks.py), NULL: the body column
    span INTEGER,                  -- the body's byte offset in its block << 32 | its byte length
    head INTEGER                   -- the header's byte length, in the block just before the body (header is
                                   -- then ''); NULL: the header column holds it (schema 11)
);
CREATE INDEX IF NOT EXISTS chunks_entry ON chunk_rows(entry_id);
CREATE INDEX IF NOT EXISTS chunks_own_thread ON chunk_rows(thread_id) WHERE thread_id <> '';
CREATE INDEX IF NOT EXISTS chunks_block ON chunk_rows(block) WHERE block IS NOT NULL;
-- A deleted node's chunks name it by its id again: its rowid may be given to another node.
CREATE TRIGGER IF NOT EXISTS nodes_chunks_ad AFTER DELETE ON node_rows BEGIN
    UPDATE chunk_rows SET entry_id = old.id WHERE entry_id = +old.rowid;
END;
-- Chunk bodies, several consecutive ones zlib-compressed together; a block is never changed, and its id is
-- never given to another (text_blocks.py).
CREATE TABLE IF NOT EXISTS text_blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL);
-- Blocks a chunk left: `text_blocks.sweep` re-packs what is still in them, in the same transaction. (Not INSERT OR
-- IGNORE: an upsert's conflict policy overrides a trigger's.)
CREATE TABLE IF NOT EXISTS stale_blocks(block INTEGER PRIMARY KEY);
CREATE TRIGGER IF NOT EXISTS chunks_block_ad AFTER DELETE ON chunk_rows WHEN old.block IS NOT NULL BEGIN
    {stale}
END;
CREATE TRIGGER IF NOT EXISTS chunks_block_au AFTER UPDATE OF block ON chunk_rows
WHEN old.block IS NOT NULL AND old.block IS NOT new.block BEGIN
    {stale}
END;
-- What every reader reads: the chunks with their bodies unpacked (unpack() is registered on every connection).
CREATE VIEW IF NOT EXISTS chunks AS SELECT rowid AS rowid, id, {entry} AS entry_id, {thread} AS thread_id, position,
    {header} AS header, {body} AS body, start, "end", token_count, author, role, entry_type, event_time, event_ts,
    {hash} AS content_hash, {attrs} AS attrs FROM chunk_rows;
-- Body first, so the index marks no column number on the body's terms (fts.BODY_FIRST; schema 10 and before:
-- header, body).
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5(
    body, header, content='chunks', content_rowid='rowid', tokenize='{tokenize}');
INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('hashsize', {hashsize});
CREATE TRIGGER IF NOT EXISTS chunks_ad AFTER DELETE ON chunk_rows BEGIN
    INSERT INTO chunk_fts(chunk_fts, rowid, header, body) VALUES ('delete', old.rowid, {old_header}, {old_body});
    DELETE FROM chunk_vectors WHERE rowid = old.rowid;
END;
CREATE TRIGGER IF NOT EXISTS chunks_au AFTER UPDATE OF header, body ON chunk_rows BEGIN
    INSERT INTO chunk_fts(chunk_fts, rowid, header, body) VALUES ('delete', old.rowid, {old_header}, {old_body});
    INSERT INTO chunk_fts(rowid, header, body) VALUES (new.rowid, {new_header}, {new_body});
    DELETE FROM chunk_vectors WHERE rowid = old.rowid;
END;

-- What every reader reads: an entry's text stored once, in its chunks, when they join to it exactly.
CREATE VIEW IF NOT EXISTS nodes AS SELECT rowid AS rowid, id, kind, name,
    coalesce(unpack(text), {joined}) AS text,
    thread_id, position, author, role, entry_type, event_time, event_ts, unpack(attrs, id, kind) AS attrs, indexed
    FROM node_rows;

CREATE TABLE IF NOT EXISTS chunk_vectors(
    rowid INTEGER PRIMARY KEY,     -- the chunk's rowid
    model TEXT NOT NULL,
    vec BLOB NOT NULL              -- float32 little-endian, L2-normalised
);

CREATE TABLE IF NOT EXISTS edges(
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    type TEXT NOT NULL,
    source_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    thread_id TEXT,
    weight REAL,
    event_time TEXT, event_ts REAL,
    fact TEXT NOT NULL DEFAULT '',
    resolved INTEGER NOT NULL DEFAULT 0,
    attrs TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS edges_source ON edges(source_id);
CREATE INDEX IF NOT EXISTS edges_target ON edges(target_id);
CREATE INDEX IF NOT EXISTS edges_unresolved ON edges(resolved) WHERE resolved = 0;
-- Structural edges derived from the nodes they join (links.py): no id text, no fact text, rowids shared with edges.
CREATE TABLE IF NOT EXISTS links(
    rowid INTEGER PRIMARY KEY,     -- from the same sequence as edges.rowid
    key INTEGER NOT NULL,          -- the id's 16 hex digits as a signed 64-bit integer
    code INTEGER NOT NULL,         -- type number (links.TYPES) * 2 + 1 when the edge bears its source's time
    source INTEGER NOT NULL,       -- nodes.rowid
    target INTEGER NOT NULL        -- nodes.rowid (schema 8 to 11: then `pending`, 0)
);
-- A link by its id: the key's top 24 bits (3 bytes an entry where the whole key and type took 9), the key itself
-- compared in the row (links.KEY_SQL; schema 11 and before: a unique index of the key and the type).
CREATE INDEX IF NOT EXISTS links_key24 ON links(key >> 40);
CREATE INDEX IF NOT EXISTS links_source ON links(source);
CREATE INDEX IF NOT EXISTS links_target ON links(target);
-- Contentless: edges' facts are in edges.fact. Links' facts are not indexed: link_facts.py ranks them from their
-- ends' phrases as if this index held them too (schema 8 indexed them here).
CREATE VIRTUAL TABLE IF NOT EXISTS fact_fts USING fts5(
    fact, content='', tokenize='{tokenize}');
CREATE TRIGGER IF NOT EXISTS edges_ad AFTER DELETE ON edges BEGIN
    INSERT INTO fact_fts(fact_fts, rowid, fact) VALUES ('delete', old.rowid, old.fact);
END;
CREATE TRIGGER IF NOT EXISTS edges_au AFTER UPDATE OF fact ON edges BEGIN
    INSERT INTO fact_fts(fact_fts, rowid, fact) VALUES ('delete', old.rowid, old.fact);
    INSERT INTO fact_fts(rowid, fact) VALUES (new.rowid, new.fact);
END;
"""
# The chunk rows K of node N (aliases): those naming it by its rowid or by its id, through chunks_entry (the `+`s: no
# affinity either side, so an id of digits never matches a rowid). Schema 12 and before named it by its id
# (`entry_of`).
ENTRY_OF = "{k}.entry_id IN (+{n}.rowid, +{n}.id)"
ENTRY_OF_12 = "{k}.entry_id = {n}.id"
# An entry's chunks' bodies joined in position order, each without what it repeats of the one before (chunks made
# with overlap start before the previous one ends, at offsets into the entry's text); where this equals its text,
# node_rows.text is NULL (node_text.py). Schema 12 and before found them by id (JOINED_12), schema 4 to 6 joined
# the bodies whole (JOINED_6).
_JOINED = (
    "(SELECT group_concat(substr(body, 1 + coalesce(max(prev - start, 0), 0)), '') FROM (SELECT body, start, "
    'lag("end") OVER (ORDER BY c.position) AS prev FROM chunks c WHERE {which} ORDER BY c.position))'
)
JOINED = _JOINED.replace(
    "{which}", "c.rowid IN (SELECT k.rowid FROM chunk_rows k WHERE " + ENTRY_OF.format(k="k", n="{t}") + ")"
)
JOINED_12 = _JOINED.replace("{which}", "c.entry_id = {t}.id")
JOINED_6 = (
    "(SELECT group_concat(body, '') FROM (SELECT body FROM chunks c WHERE c.entry_id = {t}.id ORDER BY c.position))"
)
# An entry whose text its chunks hold (see node_text.py).
JOINS = f"kind = 'entry' AND text <> '' AND unpack(text) = {JOINED.format(t='node_rows')}"
_STALE = (
    "INSERT INTO stale_blocks(block) SELECT old.block "
    "WHERE NOT EXISTS (SELECT 1 FROM stale_blocks WHERE block = old.block);"
)
# Column C of a chunk row's entry's node (C: of node_rows n): by rowid, or by id where the row names it by id.
OF_ENTRY = (
    "iif(typeof({t}entry_id) = 'integer', (SELECT {c} FROM node_rows n WHERE n.rowid = {t}entry_id), "
    "(SELECT {c} FROM node_rows n WHERE n.id = {t}entry_id))"
)
# A chunk row's entry id (the chunks view's entry_id): its entry's, from its row where it names it by rowid.
ENTRY = "iif(typeof(entry_id) = 'integer', (SELECT n.id FROM node_rows n WHERE n.rowid = entry_id), entry_id)"
# A chunk row's thread: its own, or where it is '' its entry's (ingest stores '' where they are equal).
THREAD = "iif(thread_id = '', " + OF_ENTRY.format(c="n.thread_id", t="chunk_rows.") + ", thread_id)"
# The rowids of the chunks in any of the threads of a JSON array (given twice), through nodes_thread and chunks_entry
# for chunks that read their entry's thread, through chunks_own_thread for the others: read through the chunks view,
# every chunk's thread would be looked up. Schema 4 and before is read through a temporary chunk_rows (`open_db`).
IN_THREADS = (
    "SELECT k.rowid FROM nodes n JOIN chunk_rows k ON {of} "
    "WHERE n.thread_id IN (SELECT value FROM json_each(?)) AND k.thread_id = '' UNION ALL "
    "SELECT rowid FROM chunk_rows WHERE thread_id IN (SELECT value FROM json_each(?)) AND thread_id <> ''"
)


def entry_of(conn: sqlite3.Connection) -> str:
    """The condition that chunk row K is node N's (ENTRY_OF, with {k} and {n} to fill), in the schema CONN's store
    is of. Read at each query: a writer may migrate the store under a reader's open connection."""
    return ENTRY_OF if conn.execute("PRAGMA user_version").fetchone()[0] >= ENTRY_ROWIDS else ENTRY_OF_12


def in_threads(conn: sqlite3.Connection | None) -> str:
    """IN_THREADS in the schema CONN's store is of (None: this schema)."""
    of = ENTRY_OF if conn is None else entry_of(conn)
    return IN_THREADS.replace("{of}", of.format(k="k", n="n"))


# A chunk row's body (T: a trigger's "old." or "new."): from its block, or from its body column.
BODY = "iif({t}block IS NULL, unpack({t}body), unblock({t}block, {t}span))"
# A chunk row's header: from its block, the HEAD bytes before its body, or from its header column.
HEADER = "iif({t}head IS NULL, {t}header, unblock({t}block, (({t}span >> 32) - {t}head) << 32 | {t}head))"
DDL = (
    DDL_TEMPLATE.replace("{joined}", JOINED.format(t="node_rows"))
    .replace("{hash}", packed_text.HASH_SQL.format(header=HEADER.format(t=""), body=BODY.format(t="")))
    .replace("{header}", HEADER.format(t=""))
    .replace("{old_header}", HEADER.format(t="old."))
    .replace("{new_header}", HEADER.format(t="new."))
    .replace("{body}", BODY.format(t=""))
    .replace("{thread}", THREAD)
    .replace("{entry}", ENTRY)
    .replace("{attrs}", chunk_attrs.VIEW_SQL)
    .replace("{old_body}", BODY.format(t="old."))
    .replace("{new_body}", BODY.format(t="new."))
    .replace("{stale}", _STALE)
    .replace("{tokenize}", TOKENIZE)
    .replace("{hashsize}", str(FTS_HASH_BYTES))
) + graph_log.DDL
_NODE_COLUMNS = (
    "rowid, id, kind, name, text, thread_id, position, author, role, entry_type, event_time, event_ts, attrs"
)
CHUNK_INDEXES = ("chunks_entry", "chunks_own_thread", "chunks_block")
"""chunk_rows' secondary indexes: a bulk load builds them once its rows are in (first_load.missing_indexes)."""
LATE_INDEXES = ("links_key24", "links_source", "links_target", "nodes_thread", "nodes_unindexed")
"""The links' and node_rows' secondary indexes, which a bulk load builds once its nodes are indexed: from the sorted
rows at the end, instead of row by row as the links (random keys) go in and as every pending node goes in and out of
nodes_unindexed (first_load.missing_indexes; `python bench/sqlite_ingest.py --sent`)."""
LOAD_TRIGGERS = ("nodes_au",)
"""Triggers a bulk load adds once its rows are in, before its nodes are indexed: nodes_au does nothing before (no
node is indexed), and while it is there every insert into node_rows opens a statement journal, whose savepoint makes
FTS5 write out the chunk terms it holds: a segment for each group of entries a stream sends between chunks, merged
again at the end (db.merge_fts), leaving free pages that cost a VACUUM."""
LATE_TRIGGERS = graph_log.TRIGGERS
"""Triggers a bulk load adds last, once its nodes are indexed: they log what later writes change (graph_log.py),
not what the load itself does before anything reads it."""
LOAD_INDEXES = CHUNK_INDEXES + LOAD_TRIGGERS + LATE_INDEXES + LATE_TRIGGERS
"""What a bulk load leaves out of the schema while its rows go in (bulk.load), in the order it is made again."""


def index_sql(name: str) -> str:
    """DDL's statement that creates the index (or trigger) NAME."""
    heads = (f"CREATE INDEX IF NOT EXISTS {name} ", f"CREATE TRIGGER IF NOT EXISTS {name} ")
    return next(s for s in _statements(DDL) if s.startswith(heads))


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection, what: str = "writing") -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on error; a full disk is a disk_full error naming the file. Inside
    a transaction already open (a streamed run's, see `adapter.index`) a savepoint of it, committed with it.
    The connection's cache of text blocks is emptied at both ends (a rolled-back block's id may come again), and
    so is its record types' dictionaries (a rolled-back dictionary's kind may be given another)."""
    if conn.in_transaction:
        inner = _savepoint(conn)
    else:
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        inner = sqlite_transaction(conn, path, immediate=True, what=what)
    text_blocks.forget_cache(conn)
    packed_text.forget_kinds(conn)
    try:
        with inner:
            yield conn
    finally:
        text_blocks.forget_cache(conn)
        packed_text.forget_kinds(conn)


@contextlib.contextmanager
def batch(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One batch of an index run: a `transaction` of its own, but none inside a transaction already open (a bulk
    load's or a streamed run's): an error there rolls the whole run back anyway, and a savepoint makes FTS5 write
    out the terms it holds (a segment a batch, merged again later; see FTS_HASH_BYTES)."""
    if conn.in_transaction:  # the run's transaction empties the cache of text blocks at its ends
        yield conn
        return
    with transaction(conn, "indexing"):
        yield conn


@contextlib.contextmanager
def _savepoint(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("SAVEPOINT inner")
    try:
        yield conn
        conn.execute("RELEASE inner")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK TO inner")
            conn.execute("RELEASE inner")
        raise


def checkpoint(conn: sqlite3.Connection, attempts: int = 3) -> None:
    """Copy the WAL into the database and empty it (after a delete: no page of the deleted text stays in either).
    A reader in another process holding an older snapshot makes SQLite answer busy; its snapshot ends with its
    statement, so this tries again (busy_timeout waits between tries) and, past ATTEMPTS, says so."""
    for _ in range(attempts):
        if conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0:
            return
    raise BackendError(
        f"{DB_NAME}: the delete is committed, but another reader kept its write-ahead log from being emptied; "
        "the deleted text may stay in the data dir until the next delete"
    )


FTS_TABLES = ("chunk_fts", "node_fts", "fact_fts")


def merge_fts(conn: sqlite3.Connection) -> None:
    """Merge each FTS5 index into one segment (FTS5's 'optimize'): a load leaves one a transaction, each repeating
    the terms the others hold. On the 20k notes of bench/peers.py chunk_fts went from 8 segments to 1 and 0.73× the
    text to 0.70×, fact_fts from 0.38× to 0.37×, for about 0.13 s of CPU; the same rows match and rank the same."""
    for table in FTS_TABLES:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")


def layout(conn: sqlite3.Connection) -> str:
    """The database's layout as `memdock health` names it: its schema version, and what a writer makes of it."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version < SCHEMA_VERSION:
        return f"schema {version} (read as it is; migrated to {SCHEMA_VERSION} at the next index)"
    blocks = f"chunk bodies in zlib blocks of {text_blocks.PAGES} pages"
    return f"schema {version}, page size {conn.execute('PRAGMA page_size').fetchone()[0]}, {blocks}"


def db_path(data_dir: Path) -> Path:
    return data_dir / DB_NAME


def _writable(directory: Path) -> str | None:
    """None when DIRECTORY can be written, else the reason (read-only filesystem, permission denied)."""
    probe = directory / f".write-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    except OSError as exc:
        return exc.strerror or errno.errorcode.get(exc.errno or 0, "not writable")
    os.close(fd)
    os.unlink(probe)
    return None


def _describe(exc: sqlite3.Error) -> str:
    return str(exc) or type(exc).__name__


def _check_identity(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version; 0 for a new, empty database. Raises for anything that is not ours."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise BackendError(
            f"{path}: cannot read the database ({_describe(exc)}); it is corrupt or not a SQLite file. "
            "It was left untouched: move it aside and index again.",
            details={"database": str(path)},
        ) from None
    if app_id == 0 and version == 0 and tables == 0:
        return 0
    if app_id != APPLICATION_ID:
        raise BackendError(
            f"{path}: this SQLite file was not written by the memdock sqlite adapter (application_id {app_id:#x}); "
            "left untouched.",
            details={"database": str(path)},
        )
    if version > SCHEMA_VERSION:
        raise VersionError(
            f"{path}: database schema version {version} is newer than this adapter reads ({SCHEMA_VERSION}); "
            "upgrade the sqlite adapter. The database was left untouched.",
            details={"database": str(path), "schema_version": version, "supported": SCHEMA_VERSION},
        )
    return version


def open_writer(data_dir: Path, *, loading: Path | None = None) -> sqlite3.Connection:
    """The store's database opened for writing (created when absent); or, given LOADING, a new database there
    for a bulk load (bulk.py): no journal, no fsync, switched to WAL once loaded."""
    conn = open_db(data_dir, write=True, loading=loading)
    if conn is None:  # open_db answers None only to a read of a store without a database
        raise RuntimeError(f"{db_path(data_dir)} could not be opened for writing")
    return conn


def open_db(data_dir: Path, *, write: bool, loading: Path | None = None) -> sqlite3.Connection | None:
    """Open the store's database. For reads, None when there is no database yet.

    A read on a read-only filesystem opens the file immutable (no -wal/-shm can be created there);
    a write there is refused with the reason before anything is touched.
    """
    path = loading or db_path(data_dir)
    exists = path.exists()
    if write:
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass
        reason = _writable(data_dir)
        if reason:
            raise ConfigError(
                f"the data dir {data_dir} is not writable ({reason}); index, prepare and delete need to write there",
                details={"data_dir": str(data_dir)},
            )
        conn = _connect(f"file:{path}?mode=rwc")
    else:
        if not exists:
            return None
        uri = f"file:{path}?mode=ro" if _writable(data_dir) is None else f"file:{path}?immutable=1"
        conn = _connect(uri)
    try:
        version = _check_identity(conn, path)
        if write:
            _initialise(conn, version, bulk=loading is not None)
        elif version == 0:
            conn.close()
            return None
        elif version < 3:  # read as it is, with no links (a writer migrates it)
            conn.execute(f"CREATE TEMP TABLE links({_LINK_COLUMNS})")
        if not write and 0 < version < 5:  # chunks was a table (IN_THREADS, context and neighbours read chunk_rows)
            conn.execute(
                "CREATE TEMP VIEW chunk_rows AS SELECT rowid AS rowid, entry_id, thread_id, position FROM chunks"
            )
    except BaseException:
        conn.close()
        raise
    return conn


class Connection(sqlite3.Connection):
    """A connection that can keep what is read once per connection (link_facts.py: the links' facts' words), and
    whether its writes may have left pages part-empty (`set_loose`)."""

    link_facts: Any = None
    loose: bool = True


def set_loose(conn: sqlite3.Connection, loose: bool) -> None:
    """Mark whether CONN's writes may have left node_rows' pages part-empty (an entry's text written, then left to
    its chunks): a bulk load that did not gives no page back by a VACUUM but free ones (bulk._reclaimable)."""
    if isinstance(conn, Connection):
        conn.loose = loose


def _connect(uri: str) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, factory=Connection)
    except sqlite3.Error as exc:
        raise BackendError(f"cannot open {uri.split('?')[0][5:]}: {_describe(exc)}") from None
    conn.execute("PRAGMA busy_timeout = 10000")
    packed_text.register(conn)
    text_blocks.register(conn)
    return conn


def _initialise(conn: sqlite3.Connection, version: int, *, bulk: bool = False) -> None:
    if version == 0:  # before anything is written: a database's page size is set when it is made
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    want = "off" if bulk else "wal"
    mode = conn.execute(f"PRAGMA journal_mode = {want}").fetchone()[0]
    if mode.lower() != want:
        raise BackendError(f"could not switch the database to {want} journal mode (got {mode})")
    conn.execute(f"PRAGMA synchronous = {'OFF' if bulk else 'NORMAL'}")
    conn.execute("PRAGMA cache_size = -65536")
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("PRAGMA foreign_keys = OFF")
    if version == SCHEMA_VERSION:
        return
    with transaction(conn, "creating the database" if version == 0 else f"upgrading the schema from {version}"):
        if 4 <= version < 7:
            _unjoin(conn, version)
        if version == 1:  # schema 1 indexed every node's name and text, through triggers
            conn.execute("ALTER TABLE nodes ADD COLUMN indexed INTEGER NOT NULL DEFAULT 1")
            for trigger in ("nodes_ai", "chunks_ai", "edges_ai", "nodes_ad", "nodes_au"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        if 0 < version < 3:  # schema 2 kept fact_fts as external content of edges; it becomes contentless
            conn.execute("DROP TABLE IF EXISTS fact_fts")
        if 0 < version < 4:
            _text_once(conn)
        if 0 < version < 5:
            _pack_chunks(conn)
        if 0 < version < 6:  # the views and triggers of schema 4 and 5 read texts, attrs and hashes as stored
            for view, since in (("nodes", 4), ("chunks", 5)):
                if version >= since:
                    conn.execute(f"DROP VIEW IF EXISTS {view}")
            for trigger in ("nodes_ad", "nodes_au"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            conn.execute("UPDATE node_rows SET text = pack(text) WHERE typeof(text) = 'text'")  # no trigger yet
        if 0 < version < 8:
            _into_blocks(conn)
        if 3 <= version < LINKS_KEY24:
            _links_aside(conn)
        if 3 < version < ENTRY_ROWIDS:  # the nodes view of schema 4 to 12 reads attrs without their node's id
            conn.execute("DROP VIEW IF EXISTS nodes")  # (to 11) and finds chunks by their entry's id
        if 0 < version < 10:  # the chunks view of schema 9 and before reads thread_id as stored
            conn.execute("DROP VIEW IF EXISTS chunks")
            conn.execute("DROP INDEX IF EXISTS chunks_thread")
        if 0 < version < fts.BODY_FIRST:  # chunk_fts declared header first: made again, from the chunks
            conn.execute("DROP TABLE IF EXISTS chunk_fts")
            _headed(conn)  # drops the chunks view, which read chunks' attrs as stored too
            chunk_attrs.store_existing(conn)
        if 5 <= version < ENTRY_ROWIDS:
            _chunks_aside(conn)
        for statement in _statements(DDL):
            conn.execute(statement)
        if 5 <= version < ENTRY_ROWIDS:
            _chunks_back(conn)
        if 0 < version < ENTRY_ROWIDS:
            entry_rowids(conn)
        if 0 < version < fts.BODY_FIRST:
            conn.execute("INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')")
        if 0 < version < 6:
            _pack_attrs(conn)
        if 0 < version < 7:
            _rejoin(conn)
        if 0 < version < 3:
            conn.execute("INSERT INTO fact_fts(rowid, fact) SELECT rowid, fact FROM edges")
        elif 0 < version < 9:
            _unindex_links(conn)
        if 0 < version < 10:
            inherit_threads(conn)
        if 3 <= version < LINKS_KEY24:
            _links_back(conn)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _headed(conn: sqlite3.Connection) -> None:
    """Schema 10 and before kept every chunk's header in its column: chunk rows get `head` (NULL for them: their
    headers stay where they are), and the view and triggers that read a header are made again."""
    if "head" not in {r[1] for r in conn.execute("PRAGMA table_info(chunk_rows)")}:
        conn.execute("ALTER TABLE chunk_rows ADD COLUMN head INTEGER")
    conn.execute("DROP VIEW IF EXISTS chunks")
    for trigger in ("chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")


def inherit_threads(conn: sqlite3.Connection) -> None:
    """Schema 9 and before stored every chunk's thread id, most often its entry's again (26 bytes a chunk on the
    20k notes of bench/peers.py, and an index of them no query used): '' where it is its entry's."""
    conn.execute(
        "UPDATE chunk_rows SET thread_id = '' WHERE thread_id <> '' "
        f"AND thread_id IS {OF_ENTRY.format(c='n.thread_id', t='chunk_rows.')}"
    )


def keep_threads(conn: sqlite3.Connection, nodes: str) -> None:
    """Before nodes are upserted (NODES: a JSON array of [id, thread id] pairs), their chunks that read their
    thread from them (thread_id '') are given it, where the upsert changes it: a chunk keeps the thread it was sent
    with."""
    changed = (
        "SELECT {} FROM json_each(?1) j JOIN node_rows n ON n.id = json_extract(j.value, '$[0]') "
        "WHERE n.thread_id IS NOT json_extract(j.value, '$[1]')"
    )
    conn.execute(
        f"UPDATE chunk_rows SET thread_id = {OF_ENTRY.format(c='n.thread_id', t='chunk_rows.')} "
        f"WHERE thread_id = '' AND entry_id IN ({changed.format('+n.rowid')} UNION ALL {changed.format('+n.id')})",
        (nodes,),
    )


def _chunks_aside(conn: sqlite3.Connection) -> None:
    """Schema 5 to 12 declared chunk_rows.entry_id TEXT (an integer stored there would become text): the rows are
    set aside (in temp.old_chunks) for `_chunks_back` to move into the table DDL makes, with its indexes and
    triggers; the chunks view is made again over it."""
    conn.execute("DROP VIEW IF EXISTS chunks")
    columns = ", ".join(f'"{r[1]}"' for r in conn.execute("PRAGMA table_info(chunk_rows)") if r[1] != "rowid")
    conn.execute(f"CREATE TEMP TABLE old_chunks AS SELECT rowid AS r, {columns} FROM chunk_rows ORDER BY rowid")
    conn.execute("DROP TABLE chunk_rows")


def _chunks_back(conn: sqlite3.Connection) -> None:
    """The chunk rows `_chunks_aside` set aside, into the chunk_rows of this schema, rowids and every column kept
    (chunk_fts and chunk_vectors are keyed by the rowids; no trigger fires on an insert), each naming its entry by
    rowid where a node has its id (as `entry_rowids` would after, but the rows go in at their size)."""
    columns = [f'"{r[1]}"' for r in conn.execute("PRAGMA temp.table_info(old_chunks)") if r[1] != "r"]
    entry = "coalesce((SELECT n.rowid FROM node_rows n WHERE n.id = o.entry_id), o.entry_id)"
    values = ", ".join(entry if c == '"entry_id"' else f"o.{c}" for c in columns)
    conn.execute(
        f"INSERT INTO chunk_rows(rowid, {', '.join(columns)}) SELECT o.r, {values} FROM temp.old_chunks o ORDER BY o.r"
    )
    conn.execute("DROP TABLE temp.old_chunks")


def entry_rowids(conn: sqlite3.Connection) -> None:
    """Schema 12 and before named a chunk's entry by its id (about 22 bytes a chunk, and as much again in
    chunks_entry, on the 20k notes of bench/peers.py): by the node's rowid where a node has that id."""
    conn.execute(
        "UPDATE chunk_rows SET entry_id = (SELECT n.rowid FROM node_rows n WHERE n.id = chunk_rows.entry_id) "
        "WHERE typeof(entry_id) = 'text' AND EXISTS (SELECT 1 FROM node_rows n WHERE n.id = chunk_rows.entry_id)"
    )


def _unindex_links(conn: sqlite3.Connection) -> None:
    """Schema 3 to 8 indexed links' facts in fact_fts (and kept a link pending while its fact was out): it is
    emptied and given the edges' facts back, so it holds the edges' only (link_facts.py ranks the links')."""
    conn.execute("DROP INDEX IF EXISTS links_pending")  # (their `pending` goes with the links' move, _links_back)
    conn.execute("INSERT INTO fact_fts(fact_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO fact_fts(rowid, fact) SELECT rowid, fact FROM edges ORDER BY rowid")


def _links_aside(conn: sqlite3.Connection) -> None:
    """Schema 3 to 11 kept links with a `pending` column (0 since schema 9) and a unique index of their whole key
    and type: set aside (in temp.old_links) for `_links_back` to move into the table DDL makes. (Copied, not
    renamed: a rename checks every view, and a view may read a table a migration step made way for.)"""
    conn.execute(
        "CREATE TEMP TABLE old_links AS SELECT rowid AS r, key, code, source, target FROM links ORDER BY rowid"
    )
    conn.execute("DROP TABLE links")


def _links_back(conn: sqlite3.Connection) -> None:
    """The links `_links_aside` set aside, into the links of this schema: rowids, keys, codes and ends kept."""
    conn.execute(
        "INSERT INTO links(rowid, key, code, source, target) "
        "SELECT r, key, code, source, target FROM temp.old_links ORDER BY r"
    )
    conn.execute("DROP TABLE temp.old_links")


def _unjoin(conn: sqlite3.Connection, version: int) -> None:
    """Schema 4 to 6 left an entry's text to its chunks where their bodies joined whole to it: stored again where
    they do not join so now (JOINED_12), before the views and triggers that read either are replaced."""
    conn.execute("DROP TRIGGER IF EXISTS nodes_au")  # no trigger: node_fts holds these entries' names only
    old, new = JOINED_6.format(t="node_rows"), JOINED_12.format(t="node_rows")
    differ = f"text IS NULL AND kind = 'entry' AND {old} IS NOT {new}"
    conn.execute(f"UPDATE node_rows SET text = pack({old}) WHERE {differ}")
    if version == 6:
        for view in ("nodes", "chunks"):
            conn.execute(f"DROP VIEW IF EXISTS {view}")


def _rejoin(conn: sqlite3.Connection) -> None:
    """Schema 6 and before: the texts of entries indexed by name only left to their chunks where they join to them
    now (JOINED), and content hashes that are the hash of their chunk's text left to be rebuilt from it."""
    conn.execute(f"UPDATE node_rows SET text = NULL WHERE indexed = 2 AND {JOINS}")
    conn.execute(
        "UPDATE chunk_rows SET content_hash = X'' WHERE typeof(content_hash) = 'blob' AND length(content_hash) = 32 "
        f"AND content_hash = text_digest(header, {BODY.format(t='')})"
    )


def _text_once(conn: sqlite3.Connection) -> None:
    """Schema 3 and before kept every entry's text in nodes, a table: it becomes node_rows, rowids kept (node_fts
    is keyed by them), each entry indexed through its chunks holding NULL where they join to its text exactly."""
    for trigger in ("nodes_ad", "nodes_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute(next(s for s in _statements(DDL) if s.startswith("CREATE TABLE IF NOT EXISTS node_rows")))
    joined = JOINED_12.format(t="nodes")
    text = f"CASE WHEN indexed = 2 AND text <> '' AND text = {joined} THEN NULL ELSE text END"
    conn.execute(
        f"INSERT INTO node_rows({_NODE_COLUMNS}, indexed) "
        f"SELECT {_NODE_COLUMNS.replace(' text,', f' {text},')}, indexed FROM nodes"
    )
    conn.execute("DROP TABLE nodes")


def _pack_chunks(conn: sqlite3.Connection) -> None:
    """Schema 4 and before kept chunks in a table of plain bodies: it becomes chunk_rows, rowids kept (chunk_fts
    and chunk_vectors are keyed by them), each body packed (packed_text.py); chunk_fts indexes the same words."""
    for trigger in ("chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute(next(s for s in _statements(DDL) if s.startswith("CREATE TABLE IF NOT EXISTS chunk_rows")))
    columns = [r[1] for r in conn.execute("PRAGMA table_info(chunk_rows)") if r[1] not in ("block", "span", "head")]
    listed = ", ".join(f'"{c}"' for c in columns)
    packed = ", ".join("pack(body)" if c == "body" else f'"{c}"' for c in columns)
    conn.execute(f"INSERT INTO chunk_rows({listed}) SELECT {packed} FROM chunks")
    conn.execute("DROP TABLE chunks")


def _into_blocks(conn: sqlite3.Connection) -> None:
    """Schema 7 and before kept each chunk's body in its row: moved into blocks (text_blocks.py), before the view
    and triggers that read them are made again."""
    for trigger in ("chunks_ad", "chunks_au"):
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    conn.execute("DROP VIEW IF EXISTS chunks")
    if "block" not in {r[1] for r in conn.execute("PRAGMA table_info(chunk_rows)")}:
        conn.execute("ALTER TABLE chunk_rows ADD COLUMN block INTEGER")
        conn.execute("ALTER TABLE chunk_rows ADD COLUMN span INTEGER")
    conn.execute(next(s for s in _statements(DDL) if s.startswith("CREATE TABLE IF NOT EXISTS text_blocks")))
    text_blocks.relay(conn)


def _pack_attrs(conn: sqlite3.Connection) -> None:
    """Schema 5 and before stored nodes' attrs and chunks' content hashes as text: packed as ingest packs them."""
    dictionaries = packed_text.Dictionaries(conn)
    for (kind,) in conn.execute("SELECT DISTINCT kind FROM node_rows").fetchall():
        rows = conn.execute("SELECT rowid, attrs, id FROM node_rows WHERE kind = ? AND typeof(attrs) = 'text'", (kind,))
        stored = rows.fetchall()
        packed = dictionaries.pack_attrs(kind, [a for _, a, _ in stored], [i for _, _, i in stored])
        conn.executemany("UPDATE node_rows SET attrs = ? WHERE rowid = ?", zip(packed, (r for r, _, _ in stored)))
    hashes = conn.execute("SELECT rowid, content_hash FROM chunk_rows WHERE typeof(content_hash) = 'text'")
    packed_hashes = [(packed_text.pack_hash(h), rowid) for rowid, h in hashes.fetchall()]
    conn.executemany("UPDATE chunk_rows SET content_hash = ? WHERE rowid = ?", packed_hashes)


def _statements(script: str) -> list[str]:
    """Split DDL into statements (triggers contain semicolons, so split on complete statements)."""
    out, buf = [], ""
    for line in script.splitlines():
        line = line.split("--", 1)[0].rstrip() if "--" in line else line.rstrip()
        if not line:
            continue
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    return out
