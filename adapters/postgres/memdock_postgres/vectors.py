"""Chunk vectors in pgvector, made when embeddings are configured (the same `embedding_*` config and models as
the sqlite adapter): a `chunk_vectors` table beside the chunks, an HNSW index on cosine distance, and a trigger
that drops a chunk's vector when its text changes, so no writer can leave a stale one.

The table is made on first use, not by a schema migration: a memory without embeddings needs no pgvector. Its
model and width are kept in memdock_meta; a memory embedded by another model is embedded again (the table
recreated) under the schema's advisory lock. Filling in the vectors locks the chunks it embeds (SKIP LOCKED), so
shard jobs that finish at once embed disjoint chunks, never one twice."""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import psycopg
from memdock_entries.embedders import Embedder

from memdock.errors import ConfigError

from . import schema

BATCH = 256
_TRIGGER = (
    "CREATE OR REPLACE FUNCTION chunk_text_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "DELETE FROM chunk_vectors WHERE id = NEW.id; RETURN NEW; END $$",
    "CREATE TRIGGER chunk_text_changed AFTER UPDATE ON chunks FOR EACH ROW "
    "WHEN (OLD.rec->>'text' IS DISTINCT FROM NEW.rec->>'text') EXECUTE FUNCTION chunk_text_changed()",
)
_MISSING = (
    "SELECT c.id, c.rec->>'author', e.rec->>'title', c.rec->>'text', c.rec->>'header' FROM chunks c "
    "LEFT JOIN entries e ON e.id = c.entry_id WHERE NOT EXISTS (SELECT 1 FROM chunk_vectors v WHERE v.id = c.id) "
    "ORDER BY c.id LIMIT %s FOR UPDATE OF c SKIP LOCKED"
)


def literal(vec: bytes) -> str:
    """A float32 little-endian vector as pgvector's text form."""
    return "[" + ",".join(f"{x:.7g}" for x in struct.unpack(f"<{len(vec) // 4}f", vec)) + "]"


def embedding_text(author: str | None, title: str | None, text: str, header: str | None) -> str:
    """What the model sees, as in the sqlite adapter (memdock_sqlite.vectors.embedding_text says why): who spoke,
    the entry's title, the chunk's body without its header line."""
    body = text[len(header) + 1 :] if header and text.startswith(header + "\n") else text
    lead = ": ".join(x for x in (author, title) if x)
    return f"{lead}: {body}" if lead else body


def _meta(conn: psycopg.Connection) -> dict[str, str]:
    return dict(conn.execute("SELECT key, value FROM memdock_meta WHERE key LIKE 'vector_%'").fetchall())


def ready(conn: psycopg.Connection, model: str) -> bool:
    """Whether the memory holds vectors of MODEL (the table is there for it)."""
    return _meta(conn).get("vector_model") == model


def ensure(conn: psycopg.Connection, schema_name: str, model: str, dims: int) -> None:
    """The vector table for MODEL at width DIMS, (re)made if the memory has none or another model's."""
    if _meta(conn) == {"vector_model": model, "vector_dims": str(dims)}:
        return
    try:
        with conn.transaction():
            schema._lock(conn, schema_name)
            if _meta(conn) == {"vector_model": model, "vector_dims": str(dims)}:
                return
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
            conn.execute("DROP TABLE IF EXISTS chunk_vectors CASCADE")
            conn.execute(
                f"CREATE TABLE chunk_vectors (id text PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE, "
                f"embedding public.vector({dims}) NOT NULL)"
            )
            conn.execute(
                "CREATE INDEX chunk_vectors_hnsw ON chunk_vectors USING hnsw (embedding public.vector_cosine_ops)"
            )
            conn.execute("DROP TRIGGER IF EXISTS chunk_text_changed ON chunks")
            for statement in _TRIGGER:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO memdock_meta VALUES ('vector_model', %s), ('vector_dims', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (model, str(dims)),
            )
    except psycopg.errors.FeatureNotSupported as exc:
        raise ConfigError(f"embeddings need the pgvector extension on the server: {exc}") from None
    except psycopg.errors.UndefinedFile as exc:
        raise ConfigError(f"embeddings need the pgvector extension installed on the server: {exc}") from None


def backfill(
    conn: psycopg.Connection, schema_name: str, embedder: Embedder, progress: Callable[[int], None] | None = None
) -> int:
    """Embed every chunk that has no vector; returns how many were added."""
    added = 0
    if not ready(conn, embedder.name):
        probe = embedder.embed(["memdock"])[0]
        ensure(conn, schema_name, embedder.name, len(probe) // 4)
    while True:
        with conn.transaction():
            rows = conn.execute(_MISSING, (BATCH,)).fetchall()
            if not rows:
                return added
            vecs = embedder.embed([embedding_text(a, t, x, h) for _, a, t, x, h in rows])
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO chunk_vectors (id, embedding) VALUES (%s, %s::public.vector) "
                    "ON CONFLICT (id) DO UPDATE SET embedding = excluded.embedding",
                    [(r[0], literal(v)) for r, v in zip(rows, vecs)],
                )
        added += len(rows)
        if progress is not None:
            progress(added)


def nearest(
    conn: psycopg.Connection, query: bytes, k: int, where: str, args: dict[str, Any]
) -> list[tuple[dict[str, Any], float]]:
    """The K chunks nearest QUERY (cosine) that pass WHERE (conditions over alias c), with their cosine.

    HNSW's search list is widened to K, and with filters the scan goes on until K pass (pgvector's iterative
    scan), so a selective filter does not empty the answer."""
    conn.execute(f"SET hnsw.ef_search = {max(40, min(k, 1000))}")
    if where:
        conn.execute("SET hnsw.iterative_scan = relaxed_order")
    rows = conn.execute(
        "SELECT c.rec, 1 - d FROM (SELECT v.id, v.embedding OPERATOR(public.<=>) %(qv)s::public.vector AS d "
        f"FROM chunk_vectors v JOIN chunks c ON c.id = v.id WHERE true{where} ORDER BY d LIMIT %(k)s) n "
        "JOIN chunks c ON c.id = n.id ORDER BY d, c.id",
        {**args, "qv": literal(query), "k": k},
    ).fetchall()
    return [(rec, float(cos)) for rec, cos in rows]
