"""The memory's tables in their Postgres schema, created and migrated by the adapter under an advisory lock.

`memdock_meta` names the format and the schema version. A schema holding tables but no `memdock_meta` (or a meta
of another format) was made by something else and is refused untouched; a version newer than this adapter reads
is refused naming both versions; an older one is migrated step by step, in one transaction, while every other
memdock process that opens the memory waits on the same advisory lock (so two versions never migrate at once).
Each table keeps the payload record whole (`rec`) beside the columns that filters and joins read, and a tsvector
(header or title weighted A, body B) under a GIN index.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from memdock.errors import BackendError, VersionError

FORMAT = "memdock-postgres"
TABLES = ("threads", "entities", "entries", "chunks", "edges")
_FILTERED = "author_keys text[] NOT NULL DEFAULT '{{}}', role text, entry_type text, ts double precision,"

# Migration N brings a schema from version N-1 to N; a published step never changes, a new one is appended.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE {s}.memdock_meta (key text PRIMARY KEY, value text NOT NULL)",
        "CREATE TABLE {s}.threads (id text PRIMARY KEY, ts double precision, rec jsonb NOT NULL, "
        "tsv tsvector NOT NULL)",
        "CREATE TABLE {s}.entities (id text PRIMARY KEY, rec jsonb NOT NULL, tsv tsvector NOT NULL)",
        "CREATE TABLE {s}.entries (id text PRIMARY KEY, thread_id text NOT NULL, " + _FILTERED + " "
        "rec jsonb NOT NULL, tsv tsvector NOT NULL)",
        "CREATE TABLE {s}.chunks (id text PRIMARY KEY, entry_id text NOT NULL, thread_id text NOT NULL, "
        + _FILTERED
        + " rec jsonb NOT NULL, tsv tsvector NOT NULL)",
        "CREATE TABLE {s}.edges (id text PRIMARY KEY, type text NOT NULL, source_id text NOT NULL, "
        "target_id text NOT NULL, thread_id text, source_kind text, resolved boolean NOT NULL, ts double precision, "
        "rec jsonb NOT NULL, tsv tsvector NOT NULL)",
    ),
    (
        *(f"CREATE INDEX {t}_tsv ON {{s}}.{t} USING gin (tsv)" for t in TABLES),
        "CREATE INDEX entries_thread ON {s}.entries (thread_id)",
        "CREATE INDEX chunks_entry ON {s}.chunks (entry_id)",
        "CREATE INDEX chunks_thread ON {s}.chunks (thread_id)",
        "CREATE INDEX edges_source ON {s}.edges (source_id)",
        "CREATE INDEX edges_target ON {s}.edges (target_id)",
        "CREATE INDEX edges_thread ON {s}.edges (thread_id)",
        "CREATE INDEX edges_unresolved ON {s}.edges (id) WHERE NOT resolved",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def _statement(text: str, schema: str) -> sql.Composed:
    return sql.SQL(text).format(s=sql.Identifier(schema))


def _lock(conn: psycopg.Connection, schema: str) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{FORMAT}:{schema}",))


def _tables(conn: psycopg.Connection, schema: str) -> list[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1",
        (schema,),
    ).fetchall()
    return [r[0] for r in rows]


def _meta(conn: psycopg.Connection, schema: str, where: str) -> int | None:
    """The stored schema version; None when the schema holds nothing yet. Raises for a store not ours."""
    tables = _tables(conn, schema)
    if "memdock_meta" not in tables:
        if tables:
            raise BackendError(
                f"{where}: the schema holds tables ({', '.join(tables[:5])}) but no memdock_meta; it was not "
                "created by the memdock postgres adapter and was left untouched (name another postgres_schema)",
                details={"schema": schema, "tables": tables[:20]},
            )
        return None
    meta: dict[str, str] = dict(conn.execute(_statement("SELECT key, value FROM {s}.memdock_meta", schema)).fetchall())
    if meta.get("format") != FORMAT:
        raise BackendError(
            f"{where}: memdock_meta names the format {meta.get('format')!r}, not {FORMAT!r}; the schema was left "
            "untouched",
            details={"schema": schema},
        )
    version = int(meta.get("schema_version", "0"))
    if version > SCHEMA_VERSION:
        raise VersionError(
            f"{where}: schema version {version} was written by a newer memdock; this adapter reads version "
            f"{SCHEMA_VERSION}. Upgrade memdock's postgres adapter; the schema was left untouched.",
            details={"schema_version": version, "supported": SCHEMA_VERSION},
        )
    return version


def _migrate(conn: psycopg.Connection, schema: str, version: int, target: int) -> None:
    if version == 0:
        conn.execute(_statement("CREATE SCHEMA IF NOT EXISTS {s}", schema))
    for step in MIGRATIONS[version:target]:
        for text in step:
            conn.execute(_statement(text, schema))
    conn.execute(
        _statement(
            "INSERT INTO {s}.memdock_meta VALUES ('format', %s), ('schema_version', %s) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            schema,
        ),
        (FORMAT, str(target)),
    )


def ensure(conn: psycopg.Connection, schema: str, where: str, *, create: bool, target: int = SCHEMA_VERSION) -> bool:
    """True when the memory's tables are there at TARGET (created or migrated now if CREATE or stale); False
    when nothing has been created yet and CREATE is false. CONN must be in autocommit mode."""
    version = _meta(conn, schema, where)
    if version == target or (version is None and not create):
        return version is not None
    with conn.transaction():
        _lock(conn, schema)
        version = _meta(conn, schema, where)  # another process may have done it while we waited
        if version is None or version < target:
            _migrate(conn, schema, version or 0, target)
    return True


def counts(conn: psycopg.Connection, schema: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for t in TABLES:
        row = conn.execute(_statement(f"SELECT count(*) FROM {{s}}.{t}", schema)).fetchone()
        out[t] = row[0] if row else 0
    return out
