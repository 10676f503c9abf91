"""The sqlite adapter's entry point: protocol operations mapped onto the memdock_sqlite package."""

from __future__ import annotations

import os
import sqlite3
import time
from typing import Any

from memdock.diskfull import is_disk_full
from memdock.errors import BackendError, MemdockError
from memdock.sdk import Adapter, Context, adapter_json, gc_pace
from memdock.sdk.checkpoints import Checkpoints
from memdock.sdk.kit.runtime import supports
from memdock.sdk.params import query_text
from memdock.sdk.stream import record_groups
from memdock_sqlite import bulk, db, facts, graph, implied, ingest, search, vector_cache, vector_index, vectors
from memdock_sqlite.delete import delete as delete_records
from memdock_sqlite.settings import Settings

EMPTY = {"hits": [], "backend": "sqlite", "reason": "the store is empty: nothing has been indexed"}


class SqliteAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    input_stream = True
    implied_edges = True
    features = supports("graph_query", "temporal", "incremental", "delete", "retrieval", "metadata_filter")
    score = {
        "range": [0.0, 1.0],
        "semantics": "bm25: the idf-weighted share of the query's terms the chunk holds (1 = every term, whatever "
        "the store size; ties ordered by BM25; a word in more than 20,000 chunks has its count estimated); vector: "
        "(cosine - 0.2) / 0.6 clipped to [0, 1]; hybrid: ranked by reciprocal-rank fusion, scored as the larger of "
        "the two (comparable with bm25 scores); the turn after a top hit that asks a question (a question mark in its "
        "header or text), in a conversation (a thread imported as chat or irc), comes with it as its likely answer, "
        "scored 0.9 times the hit's score "
        "(extra.neighbour_of names the hit; neighbour_weight sets the share for every thread, 0 turns it off); "
        "min_score cuts below it",
        "stable_as_store_grows": True,
    }

    def __init__(self) -> None:
        self._reader: tuple[tuple, sqlite3.Connection] | None = None
        self._vectors = vector_index.VectorIndex()

    def active_features(self, ctx: Context) -> dict[str, bool]:
        return {**self.features, "embeddings": bool(Settings.from_config(ctx.config).embedding_provider)}

    # -- connections ---------------------------------------------------------------------------

    def _read(self, ctx: Context) -> tuple[sqlite3.Connection | None, tuple]:
        """A cached read connection, reopened when the database file is replaced."""
        path = db.db_path(ctx.data_dir)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None, ()
        identity = (str(path), st.st_dev, st.st_ino)
        if self._reader and self._reader[0] == identity:
            return self._reader[1], identity
        if self._reader:
            self._reader[1].close()
            self._reader = None
        conn = db.open_db(ctx.data_dir, write=False)
        if conn is not None:
            self._reader = (identity, conn)
        return conn, identity

    def _sql(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_disk_full(exc):
                raise  # the protocol loop reports it as disk full, naming the data dir
            raise BackendError(f"{db.DB_NAME} in the data dir: {exc}", details={"sqlite_error": str(exc)}) from None

    # -- operations ----------------------------------------------------------------------------

    def healthcheck(self, ctx: Context) -> dict:
        provider = Settings.from_config(ctx.config).embedding_provider
        checks: dict = {"sqlite": sqlite3.sqlite_version, "embeddings": provider or "off"}
        try:
            conn, _ = self._read(ctx)
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message}
        if conn is None:
            return {"ok": True, "backend": self.name, "checks": checks, "message": "no database yet (nothing indexed)"}
        try:
            integrity = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            checks["layout"] = db.layout(conn)
            for table in ("nodes", "chunks", "edges", "chunk_vectors"):
                checks[table] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            checks["edges"] += conn.execute("SELECT count(*) FROM links").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            integrity = str(exc)
        checks["integrity"] = integrity
        ok = integrity == "ok"
        return {
            "ok": ok,
            "backend": self.name,
            "checks": checks,
            "message": f"{db.db_path(ctx.data_dir)}: " + ("ok" if ok else f"integrity check failed: {integrity}"),
        }

    def prepare(self, ctx: Context) -> dict:
        """Without params: create or migrate the database and embed the chunks that lack vectors. With
        params.bundle: embed that bundle's chunks into the vector cache ahead of its index run, writing nothing
        the store's readers see (several of these run at once, one per shard, before one writer indexes)."""
        if ctx.params.get("bundle"):
            return self._prepare_bundle(ctx)
        conn = db.open_writer(ctx.data_dir)
        try:
            embedded = self._backfill(ctx, conn)
            return {
                "ok": True,
                "details": {
                    "database": str(db.db_path(ctx.data_dir)),
                    "schema_version": db.SCHEMA_VERSION,
                    "vectors_added": embedded,
                },
            }
        finally:
            conn.close()

    def _prepare_bundle(self, ctx: Context) -> dict:
        embedder = Settings.from_config(ctx.config).embedder()
        if embedder is None:
            return {"ok": True, "details": {"vectors_prepared": 0, "vectors_cached": 0}}
        reader = ctx.staged_bundle()
        stored = db.open_db(ctx.data_dir, write=False)
        cache = vector_cache.VectorCache.create(ctx.data_dir)
        try:
            embedded, cached = vectors.prepare_bundle(
                reader, stored, embedder, cache, lambda done, total: ctx.progress(done, total, "embedding chunks")
            )
        finally:
            cache.close()
            if stored is not None:
                stored.close()
        return {"ok": True, "details": {"vectors_prepared": embedded, "vectors_cached": cached}}

    def _backfill(self, ctx: Context, conn: sqlite3.Connection) -> int:
        embedder = Settings.from_config(ctx.config).embedder()
        if embedder is None:
            return 0
        cache = vector_cache.VectorCache.existing(ctx.data_dir)
        try:
            added = vectors.backfill(
                conn, embedder, lambda done, total: ctx.progress(done, total, "embedding chunks"), cache
            )
        finally:
            if cache is not None:
                cache.close()
        vector_cache.remove(ctx.data_dir)
        return added

    def index(self, ctx: Context) -> dict:
        with gc_pace.paced():
            return self._index_run(ctx)

    def _index_run(self, ctx: Context) -> dict:
        started = time.monotonic()
        reader = ctx.input_stream() if ctx.streamed else ctx.staged_bundle()
        present = [t for t in ingest.ORDER if ctx.streamed or t in reader.record_types()]
        total = None if ctx.streamed else sum(reader.count(t) for t in present)  # a stream's is known at its end
        committed = Checkpoints(ctx, total)
        size = Settings.from_config(ctx.config).batch_size
        loaded = bulk.fresh(ctx.data_dir)
        if loaded:
            deferred = bulk.Deferred(lambda done: ctx.progress(done, total))
            # one transaction: nothing reads the file before it is in place
            with bulk.load(ctx.data_dir) as conn, db.transaction(conn, "indexing"):
                run, details = self._ingest(conn, reader, present, deferred, max(size, bulk.BATCH), whole=True)
            deferred.report(committed)
        else:
            conn = db.open_writer(ctx.data_dir)
            try:
                run, details = self._in_place(ctx, conn, reader, present, committed, size)
            finally:
                conn.close()
        details["vectors_added"] = self._embed(ctx)
        details["ignored"] = {t: reader.count(t) for t in reader.record_types() if t not in ingest.ORDER}
        details["bulk_load"] = loaded
        return {
            "indexed": run.counts,
            "checkpoints": committed.count,
            "seconds": time.monotonic() - started,
            "details": details,
        }

    def _embed(self, ctx: Context) -> int:
        """Embed the chunks that lack vectors, once the run's records are in place and reported committed (an
        embedding endpoint that fails loses none of them)."""
        if not Settings.from_config(ctx.config).embedding_provider:
            return 0
        conn = db.open_writer(ctx.data_dir)
        try:
            return self._backfill(ctx, conn)
        finally:
            conn.close()

    def _in_place(self, ctx: Context, conn: sqlite3.Connection, reader, present, committed, size: int):
        """A run into the database where it is: batch by batch, each committed and checkpointed; a streamed run in
        one transaction, its records checkpointed once it is committed, so an input that ends without its end line
        (the core refused a record, or died) leaves the database as it was, as the core's ledger and journal do."""
        if not ctx.streamed:
            return self._ingest(conn, reader, present, committed, size)
        held = bulk.Deferred(lambda done: ctx.progress(done, None))
        with db.transaction(conn, "indexing"):
            done = self._ingest(conn, reader, present, held, size)
        held.report(committed)
        return done

    def _ingest(self, conn: sqlite3.Connection, reader, present, on_commit, size: int, *, whole: bool = False):
        """Every record of READER into CONN, then what follows from them (node text, late facts); WHOLE: kept all
        or none (ingest.Ingest)."""
        derived = implied.Implied(on_commit)
        run = ingest.Ingest(conn, on_commit=derived.on_commit, batch_size=size, whole=whole)
        run.implied = derived
        for rtype, records in derived.groups(record_groups(reader, present)):
            self._sql(run.run, rtype, records)
        derived.release()
        self._sql(run.finish)
        with db.transaction(conn, "indexing"):
            resolved = facts.refresh_unresolved(conn)
        return run, {"facts_resolved_late": resolved}

    def query(self, ctx: Context) -> dict:
        query_text(ctx.params)
        conn, identity = self._read(ctx)
        if conn is None:
            return dict(EMPTY)
        settings = Settings.from_config(ctx.config)
        return self._sql(
            _snapshot,
            search.run,
            conn,
            ctx.params,
            embedder=settings.embedder(),
            vectors=self._vectors,
            identity=identity,
            **settings.search_options(),
        )

    def _graph(self, ctx: Context, fn, **kw) -> dict:
        query_text(ctx.params)
        conn, _ = self._read(ctx)
        if conn is None:
            return dict(EMPTY)
        return self._sql(_snapshot, lambda c: fn(c, ctx.params, **kw), conn)

    def search_nodes(self, ctx: Context) -> dict:
        return self._graph(ctx, graph.search_nodes)

    def search_episodes(self, ctx: Context) -> dict:
        return self._graph(ctx, graph.search_nodes, episodes=True)

    def search_facts(self, ctx: Context) -> dict:
        return self._graph(ctx, graph.search_facts)

    def _get(self, ctx: Context, fn) -> dict:
        conn, _ = self._read(ctx)
        if conn is None:
            return {"item": None}
        return self._sql(_snapshot, fn, conn, ctx.params)

    def get_node(self, ctx: Context) -> dict:
        return self._get(ctx, graph.get_node)

    def get_edge(self, ctx: Context) -> dict:
        return self._get(ctx, graph.get_edge)

    def delete(self, ctx: Context) -> dict:
        ids = ctx.params.get("ids")
        if not db.db_path(ctx.data_dir).exists():
            return {"deleted": [], "not_found": list(ids) if isinstance(ids, list) else []}
        self.close()  # this process's read snapshot must not hold the old pages past the delete
        conn = db.open_writer(ctx.data_dir)
        try:
            conn.execute("PRAGMA secure_delete = ON")  # the deleted text is overwritten, not left in free pages
            result = self._sql(delete_records, conn, ctx.params)
            self._sql(db.checkpoint, conn)
            return result
        finally:
            conn.close()

    def close(self) -> None:
        if self._reader:
            self._reader[1].close()
            self._reader = None


def _snapshot(fn: Any, conn: sqlite3.Connection, *args: Any, **kwargs: Any) -> Any:
    """FN(CONN, ...) in one read transaction: the schema its queries are built for (db.entry_of reads it at each)
    is the one they read, though a writer migrates the store meanwhile."""
    if conn.in_transaction:
        return fn(conn, *args, **kwargs)
    conn.execute("BEGIN")
    try:
        return fn(conn, *args, **kwargs)
    finally:
        if conn.in_transaction:
            conn.execute("COMMIT")
