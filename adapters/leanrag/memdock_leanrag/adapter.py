"""The LeanRAG adapter's entry point: protocol operations mapped onto the memdock_leanrag package."""

from __future__ import annotations

from typing import Any

from memdock.sdk import Adapter, Context, adapter_json
from memdock_leanrag.hits import SCORE_SEMANTICS
from memdock_leanrag.settings import PINNED_COMMIT, Settings


class LeanRAGAdapter(Adapter):
    descriptor_path = adapter_json(__file__)
    features = {
        "embeddings": True,
        "entity_extraction": True,
        "graph_query": True,
        "temporal": False,
        "rerank": False,
        "incremental": True,
        "delete": True,
        "retrieval": True,
        "concurrent_index": False,
    }
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {
        "node": "leanrag:node:<16 hex of sha1(entity name)> (entities and aggregates)",
        "fact": "leanrag:fact:<16 hex of sha1(source, target, level)>",
        "episode": "our chunk id",
    }

    def __init__(self) -> None:
        self._runtime: Any = None
        self._key: tuple | None = None

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = Settings.from_config(ctx.config)
        return {
            **super().capabilities(ctx),
            "extra": {
                "pinned_commit": PINNED_COMMIT,
                "leanrag_path": s.leanrag_path,
                "llm": s.llm_configured() or f"{s.llm_model} @ {s.llm_base_url}",
                "embedder": f"{s.embedding_provider}: {s.embedding_model}",
                "unsupported": "temporal validity of facts (LeanRAG keeps none), reranking, LeanRAG's answer "
                "generation "
                "(memdock returns the retrieved context as hits)",
            },
        }

    def _rt(self, ctx: Context):
        from memdock_leanrag.runtime import Runtime

        settings = Settings.from_config(ctx.config)
        key = (settings.cache_key(), str(ctx.data_dir))
        if self._runtime is None or self._key != key:
            self.close()
            self._runtime, self._key = Runtime(settings, ctx.data_dir), key
        return self._runtime

    def healthcheck(self, ctx: Context) -> dict:
        from memdock.errors import MemdockError
        from memdock_leanrag.health import check

        try:
            rt = self._rt(ctx)
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": {"checkout": exc.message}, "message": exc.message}
        return check(rt)

    def prepare(self, ctx: Context) -> dict:
        rt = self._rt(ctx)
        rt.leanrag()
        return {"ok": True, "details": {"checkout": str(rt.root), **rt.catalog.counts()}}

    def index(self, ctx: Context) -> dict:
        from memdock_leanrag.indexer import index

        return index(self._rt(ctx), ctx)

    def query(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import search

        return search(self._rt(ctx), "query", ctx.params)

    def search_nodes(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import search

        return search(self._rt(ctx), "search_nodes", ctx.params)

    def search_facts(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import search

        return search(self._rt(ctx), "search_facts", ctx.params)

    def search_episodes(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import search

        return search(self._rt(ctx), "search_episodes", ctx.params)

    def get_node(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import get_node

        return get_node(self._rt(ctx), ctx.params)

    def get_edge(self, ctx: Context) -> dict:
        from memdock_leanrag.retrieval import get_edge

        return get_edge(self._rt(ctx), ctx.params)

    def delete(self, ctx: Context) -> dict:
        from memdock_leanrag.forget import delete

        return delete(self._rt(ctx), ctx.params, ctx.log)

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
