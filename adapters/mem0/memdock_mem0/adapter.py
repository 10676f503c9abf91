"""The mem0 adapter's entry point: the shared entry-adapter operations over the memdock_mem0 package."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ["MEM0_TELEMETRY"] = "false"

from memdock_entries.adapter_base import FEATURES, EntryAdapter

from memdock.sdk import Context, adapter_json
from memdock_mem0.retrieval import SCORE_SEMANTICS
from memdock_mem0.settings import Settings


class Mem0Adapter(EntryAdapter):
    package = "memdock_mem0"
    settings_class = Settings
    descriptor_path = adapter_json(__file__)
    features = FEATURES
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {
        "node": "mem0 memory uuid (random, recorded in catalog.sqlite against our entry id)",
        "episode": "our entry id",
        "scope": "user_id = config user_id, run_id = our thread id",
    }

    def make_runtime(self, settings: Settings, data_dir: Path) -> Any:
        from memdock_mem0.runtime import Runtime

        return Runtime(settings, data_dir)

    def active_features(self, ctx: Context) -> dict[str, bool]:
        s = self.settings(ctx)
        return {
            **self.features,
            "entity_extraction": s.infer and s.llm_configured() is None,
            "embeddings": s.embedder_configured() is None,
        }

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = self.settings(ctx)
        embedder = (
            s.embedding_model
            if s.local_embedder
            else f"{s.embedding_model or 'text-embedding-3-small'} @ {s.embedding_url}"
        )
        return {
            **super().capabilities(ctx),
            "extra": {
                "infer": s.infer,
                "llm": (None if s.llm_configured() else f"{s.llm_model} @ {s.llm_url}")
                if s.infer
                else "not used (infer=false)",
                "embedder": None if s.embedder_configured() else f"{s.embedding_provider}: {embedder}",
                "vector_store": "qdrant, local mode, in the data dir",
                "user_id": s.user_id,
            },
        }

    def healthcheck(self, ctx: Context) -> dict:
        from memdock.errors import MemdockError

        rt = self.runtime(ctx)
        s = rt.settings
        checks: dict[str, Any] = {
            "llm": s.llm_configured() or (f"{s.llm_model} @ {s.llm_url}" if s.infer else "not used"),
            "embedder": s.embedder_configured() or (s.embedding_model or "text-embedding-3-small"),
            **rt.catalog.counts(),
        }
        problems = [p for p in (s.llm_configured(), s.embedder_configured()) if p]
        if problems:
            return {"ok": False, "backend": self.name, "checks": checks, "message": "; ".join(problems)}
        try:
            rt.run(lambda: rt.memory.embedding_model.embed("healthcheck", "search"), "healthcheck: embedder")
            checks["vectors"] = rt.run(
                lambda: rt.memory.vector_store.client.count(rt.memory.collection_name).count, "healthcheck"
            )
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message}
        return {
            "ok": True,
            "backend": self.name,
            "checks": checks,
            "message": f"mem0 on local Qdrant answers; {checks['vectors']} vectors",
        }

    def prepare(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        rt.settings.require_models()
        rt.memory  # noqa: B018  (creates the collection and history database)
        return {"ok": True, "details": rt.catalog.counts()}
