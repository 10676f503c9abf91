"""The LeanRAG adapter's entry point: protocol operations mapped onto the memdock_leanrag package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memdock.sdk import Context, adapter_json
from memdock.sdk.kit.runtime import GraphAdapter, supports
from memdock_leanrag.hits import SCORE_SEMANTICS
from memdock_leanrag.settings import PINNED_COMMIT, Settings


class LeanRAGAdapter(GraphAdapter):
    package = "memdock_leanrag"
    settings_class = Settings
    descriptor_path = adapter_json(__file__)
    features = supports(
        "embeddings", "entity_extraction", "graph_query", "incremental", "delete", "retrieval", concurrent_index=False
    )
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {
        "node": "leanrag:node:<16 hex of sha1(entity name)> (entities and aggregates)",
        "fact": "leanrag:fact:<16 hex of sha1(source, target, level)>",
        "episode": "our chunk id",
    }

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = self.settings(ctx)
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

    def make_runtime(self, settings: Settings, data_dir: Path) -> Any:
        from memdock_leanrag.runtime import Runtime

        return Runtime(settings, data_dir)

    def healthcheck(self, ctx: Context) -> dict:
        from memdock.errors import MemdockError
        from memdock_leanrag.health import check

        try:
            rt = self.runtime(ctx)
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": {"checkout": exc.message}, "message": exc.message}
        return check(rt)

    def prepare(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        rt.leanrag()
        return {"ok": True, "details": {"checkout": str(rt.root), **rt.catalog.counts()}}

    def delete(self, ctx: Context) -> dict:
        from memdock_leanrag.forget import delete

        return delete(self.runtime(ctx), ctx.params, ctx.log)
