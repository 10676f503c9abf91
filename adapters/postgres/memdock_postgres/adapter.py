"""The postgres adapter's entry point: protocol operations mapped onto the memdock_postgres package.

The adapter holds no state of the memory: everything is in the database, so any number of front ends (workers,
MCP servers, Python processes, on any host) answer from the same rows and see each other's writes at once."""

from __future__ import annotations

import time

from memdock_entries import rerank

from memdock.sdk import Adapter, Context, adapter_json
from memdock.sdk.checkpoints import Checkpoints
from memdock.sdk.kit.runtime import supports
from memdock.sdk.params import query_text
from memdock_postgres import delete, fusion, ingest, schema, search, vectors
from memdock_postgres.settings import Settings
from memdock_postgres.store import Store

EMPTY = {"hits": [], "backend": "postgres", "reason": "the memory is empty: nothing has been indexed"}


class PostgresAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    features = supports(
        "graph_query", "temporal", "incremental", "delete", "retrieval", "metadata_filter", embeddings=False
    )
    score = {
        "range": [0.0, 1.0],
        "semantics": "query: the idf-weighted share of the query's terms the chunk holds, as sqlite scores it "
        "(1 = every term, whatever the store size; BM25's idf; a word in more than 20,000 chunks counted as "
        "20,000), ties ordered by Postgres's ts_rank_cd; the turn after a top hit that asks a question (a question "
        "mark in its header or text), in a conversation (a thread imported as chat or irc), comes with it as its "
        "likely answer, scored 0.9 times the hit's score (extra.neighbour_of names the hit; neighbour_weight sets "
        "the share for every thread, 0 turns it off); bm25 and hybrid hits are ordered by extra.rank_value, their "
        "place raised by their session's best places, by a time they name when the query asks when, by a date the "
        "query names, and lowered for another speaker's turn naming the one the query names, as sqlite orders them "
        "(docs/concepts/recall.md; their scores stay their own); search_nodes, search_episodes and search_facts: "
        "ts_rank_cd with normalisation 32 (r/(r+1)), titles and names weighted 1.0, bodies 0.4; vector and "
        "hybrid: with embeddings configured, mode vector scores (cosine - 0.2) / 0.6 clipped to [0, 1] (pgvector HNSW, "
        "as sqlite scores vectors), mode hybrid (auto's choice then) the weighted reciprocal-rank fusion of the word "
        "and vector rankings over its maximum (weights 1 and hybrid_vector_weight, k hybrid_rrf_k); without "
        "embeddings, vector and hybrid answer with bm25, marked degraded",
        "stable_as_store_grows": True,
    }

    def __init__(self) -> None:
        self._store: Store | None = None

    def active_features(self, ctx: Context) -> dict[str, bool]:
        return {**self.features, "embeddings": bool(Settings.from_config(ctx.config).embedding_provider)}

    def _embed(self, ctx: Context, store: Store) -> int:
        """Embed the chunks that lack a vector, when embeddings are configured; how many were embedded."""
        embedder = store.settings.embedder()
        if embedder is None:
            return 0
        with store.connection("embedding chunks") as conn:
            return vectors.backfill(
                conn, store.settings.postgres_schema, embedder, lambda n: ctx.progress(n, None, "embedding chunks")
            )

    def _open(self, ctx: Context, *, create: bool) -> Store | None:
        """The pool on the configured memory (kept while the config stays the same); None when there is no
        memory yet and CREATE is false."""
        settings = Settings.from_config(ctx.config)
        if self._store is None or self._store.settings != settings:
            if self._store is not None:
                self._store.close()
            self._store = Store(settings)
        return self._store if self._store.open(create=create) else None

    def healthcheck(self, ctx: Context) -> dict:
        store = self._open(ctx, create=False)
        where = Settings.from_config(ctx.config).where()
        if store is None:
            return {"ok": True, "backend": self.name, "checks": {}, "message": f"{where}: no memory yet"}
        with store.connection("checking health") as conn:
            checks = {"server": conn.info.server_version, **schema.counts(conn, store.settings.postgres_schema)}
        checks["schema_version"] = schema.SCHEMA_VERSION
        return {"ok": True, "backend": self.name, "checks": checks, "message": f"{where}: ok"}

    def prepare(self, ctx: Context) -> dict:
        store = self._open(ctx, create=True)
        assert store is not None
        details = {"memory": store.settings.where(), "schema_version": schema.SCHEMA_VERSION}
        return {"ok": True, "details": {**details, "vectors_added": self._embed(ctx, store)}}

    def index(self, ctx: Context) -> dict:
        started = time.monotonic()
        reader = ctx.staged_bundle()
        present = [t for t in ingest.ORDER if t in reader.record_types()]
        total = sum(reader.count(t) for t in present)
        store = self._open(ctx, create=True)
        assert store is not None
        committed = Checkpoints(ctx, total)
        with store.connection("indexing") as conn:
            run = ingest.Ingest(conn, on_commit=committed, batch_size=store.settings.batch_size)
            for rtype in present:
                run.run(rtype, reader.records(rtype))
            run.flush()
            resolved = run.refresh_unresolved()
        embedded = self._embed(ctx, store)
        ignored = {t: reader.count(t) for t in reader.record_types() if t not in ingest.ORDER}
        return {
            "indexed": run.counts,
            "checkpoints": committed.count,
            "seconds": time.monotonic() - started,
            "details": {"facts_resolved_late": resolved, "vectors_added": embedded, "ignored": ignored},
        }

    def _read(self, ctx: Context, doing: str, fn, *args, empty: dict | None = None, **kw) -> dict:
        store = self._open(ctx, create=False)
        if store is None:
            return dict(EMPTY if empty is None else empty)
        with store.connection(doing) as conn:
            return fn(conn, ctx.params, *args, **kw)

    def query(self, ctx: Context) -> dict:
        query_text(ctx.params)
        s = Settings.from_config(ctx.config)
        weights, formats = rerank.configured(
            *map(_float, (s.session_pool_weight, s.time_cue_weight, s.question_date_weight, s.addressed_turn_weight))
        )
        ranking = fusion.Ranking(
            neighbour_weight=_float(s.neighbour_weight),
            weights=weights,
            formats=formats,
            embedder=s.embedder(),
            vector_weight=float(s.hybrid_vector_weight),
            rrf_k=int(s.hybrid_rrf_k),
        )
        return self._read(ctx, "searching chunks", search.run_query, ranking)

    def search_nodes(self, ctx: Context) -> dict:
        query_text(ctx.params)
        return self._read(ctx, "searching nodes", search.search_nodes)

    def search_episodes(self, ctx: Context) -> dict:
        query_text(ctx.params)
        return self._read(ctx, "searching episodes", search.search_nodes, episodes=True)

    def search_facts(self, ctx: Context) -> dict:
        query_text(ctx.params)
        return self._read(ctx, "searching facts", search.search_facts)

    def get_node(self, ctx: Context) -> dict:
        return self._read(ctx, "reading a node", search.get_node, empty={"item": None})

    def get_edge(self, ctx: Context) -> dict:
        return self._read(ctx, "reading an edge", search.get_edge, empty={"item": None})

    def delete(self, ctx: Context) -> dict:
        ids = ctx.params.get("ids")
        nothing = {"deleted": [], "not_found": list(ids) if isinstance(ids, list) else []}
        return self._read(ctx, "deleting", delete.delete, empty=nothing)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)
