"""Chunk vectors: fill in the ones a model has not embedded yet, as float32 blobs beside the chunks, and move
the store's vector version when they change (`vector_index` reloads on it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .db import transaction
from .embedders import Embedder
from .ingest import chunk_body
from .vector_cache import VectorCache, text_key

if TYPE_CHECKING:
    from memdock.bundle import BundleReader

BACKFILL_BATCH = 256


def version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'vectors_version'").fetchone()
    return int(row[0]) if row else 0


def bump(conn: sqlite3.Connection) -> None:
    """Move the vector version, which makes every worker's `VectorIndex` reload: after vectors are added or
    deleted."""
    conn.execute(
        "INSERT INTO meta(key, value) VALUES ('vectors_version', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )


def missing(conn: sqlite3.Connection, model: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM chunks c LEFT JOIN chunk_vectors v ON v.rowid = c.rowid AND v.model = ? "
        "WHERE v.rowid IS NULL",
        (model,),
    ).fetchone()[0]


def embedding_text(author: str | None, title: str | None, body: str) -> str:
    """What the model sees: who spoke, the entry's title, the text. Not the chunk's header line: its thread
    label, role and ISO time are noise to a sentence model. Questions name people ("what did Caroline
    research?") and a turn's text rarely does: on LoCoMo, prefixing the speaker raised MiniLM's recall@5
    on the first conversation from 0.19 to 0.36 (bench/locomo.py has the full figures)."""
    lead = ": ".join(x for x in (author, title) if x)
    return f"{lead}: {body}" if lead else body


def _embed(embedder: Embedder, texts: list[str], cache: VectorCache | None) -> list[bytes]:
    """TEXTS' vectors: from CACHE where a prepare job made them, the rest from EMBEDDER."""
    keys = [text_key(t) for t in texts]
    cached = cache.get(embedder.name, keys) if cache is not None else {}
    todo = [i for i, k in enumerate(keys) if k not in cached]
    fresh = dict(zip(todo, embedder.embed([texts[i] for i in todo]))) if todo else {}
    return [fresh[i] if i in fresh else cached[k] for i, k in enumerate(keys)]


def backfill(
    conn: sqlite3.Connection,
    embedder: Embedder,
    progress: Callable[[int, int], None],
    cache: VectorCache | None = None,
) -> int:
    """Embed every chunk that has no vector from EMBEDDER's model (taking what CACHE holds); each batch is its
    own transaction."""
    total, done = missing(conn, embedder.name), 0
    while True:
        rows = conn.execute(
            "SELECT c.rowid, c.author, n.name, c.body FROM chunks c LEFT JOIN chunk_vectors v ON v.rowid = c.rowid "
            "AND v.model = ? LEFT JOIN nodes n ON n.id = c.entry_id WHERE v.rowid IS NULL LIMIT ?",
            (embedder.name, BACKFILL_BATCH),
        ).fetchall()
        if not rows:
            return done
        vecs = _embed(embedder, [embedding_text(author, title, body) for _, author, title, body in rows], cache)
        with transaction(conn, "storing vectors"):
            conn.executemany(
                "INSERT OR REPLACE INTO chunk_vectors(rowid, model, vec) VALUES (?,?,?)",
                [(r[0], embedder.name, v) for r, v in zip(rows, vecs)],
            )
            bump(conn)
        done += len(rows)
        progress(done, total)


def _bundle_texts(reader: BundleReader, stored: sqlite3.Connection | None) -> Iterator[str]:
    """The text backfill will embed for each chunk of READER, once it is indexed: author and title from the
    chunk's entry in the bundle, or else as the store holds that entry."""
    entries = {r["id"]: (r.get("author"), r.get("title") or "") for r in reader.records("entry")}
    for r in reader.records("chunk"):
        known = entries.get(r["entry_id"])
        if known is None:
            row = None
            if stored is not None:
                row = stored.execute("SELECT author, name FROM nodes WHERE id = ?", (r["entry_id"],)).fetchone()
            known = (row[0], row[1]) if row else (None, "")
            entries[r["entry_id"]] = known
        author = r.get("author")
        yield embedding_text(author if author is not None else known[0], known[1], chunk_body(r))


def prepare_bundle(
    reader: BundleReader,
    stored: sqlite3.Connection | None,
    embedder: Embedder,
    cache: VectorCache,
    progress: Callable[[int, int], None],
) -> tuple[int, int]:
    """Embed READER's chunks into CACHE ahead of the index run; (embedded, already cached)."""
    total = reader.count("chunk") if "chunk" in reader.record_types() else 0
    embedded = cached = done = 0
    batch: list[str] = []

    def flush() -> None:
        nonlocal embedded, cached, done
        keys = [text_key(t) for t in batch]
        have = cache.get(embedder.name, keys)
        todo = [(k, t) for k, t in dict(zip(keys, batch)).items() if k not in have]
        if todo:
            cache.put(embedder.name, list(zip((k for k, _ in todo), embedder.embed([t for _, t in todo]))))
        embedded, cached, done = embedded + len(todo), cached + len(batch) - len(todo), done + len(batch)
        batch.clear()
        progress(done, total)

    for text in _bundle_texts(reader, stored) if total else ():
        batch.append(text)
        if len(batch) >= BACKFILL_BATCH:
            flush()
    if batch:
        flush()
    return embedded, cached
