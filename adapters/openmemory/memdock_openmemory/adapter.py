"""The OpenMemory adapter's entry point: the shared entry-adapter operations over the memdock_openmemory package."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memdock_entries.adapter_base import EntryAdapter

from memdock.errors import MemdockError
from memdock.sdk import Context, adapter_json
from memdock.sdk.kit.runtime import supports
from memdock_openmemory.retrieval import SCORE_SEMANTICS
from memdock_openmemory.settings import Settings


class OpenMemoryAdapter(EntryAdapter):
    package = "memdock_openmemory"
    settings_class = Settings
    descriptor_path = adapter_json(__file__)
    features = supports("incremental", "delete", "retrieval")
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {
        "node": "OpenMemory memory uuid (recorded in catalog.sqlite against our entry id)",
        "episode": "our entry id",
    }

    def make_runtime(self, settings: Settings, data_dir: Path) -> Any:
        from memdock_openmemory.runtime import Runtime

        return Runtime(settings, data_dir)

    def active_features(self, ctx: Context) -> dict[str, bool]:
        return {**self.features, "entity_extraction": self.settings(ctx).infer}

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = self.settings(ctx)
        return {
            **super().capabilities(ctx),
            "extra": {
                "server": s.base,
                "user_id": s.user_id,
                "app": s.app,
                "infer": s.infer,
                "search": "REST substring search per query word",
            },
        }

    def healthcheck(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        checks: dict[str, Any] = {"server": rt.settings.base, "user_id": rt.settings.user_id, **rt.catalog.counts()}
        try:
            page = rt.client.user_page("healthcheck")
        except MemdockError as exc:
            hint = (
                " (the user must exist on the server: OpenMemory creates only its USER at start)"
                if (exc.details or {}).get("status") == 404
                else ""
            )
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message + hint}
        checks["server_memories"] = page.get("total")
        return {
            "ok": True,
            "backend": self.name,
            "checks": checks,
            "message": f"OpenMemory at {rt.settings.base} answers; user {rt.settings.user_id} has {page.get('total')} "
            "memories",
        }

    def prepare(self, ctx: Context) -> dict:
        rt = self.runtime(ctx)
        rt.client.user_page("prepare")
        return {"ok": True, "details": rt.catalog.counts()}
