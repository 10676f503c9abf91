"""The OpenMemory adapter's entry point: protocol operations mapped onto the memdock_openmemory package."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "common"))

from memdock.errors import MemdockError  # noqa: E402
from memdock.sdk import Adapter, Context, serve  # noqa: E402

from memdock_openmemory.retrieval import SCORE_SEMANTICS  # noqa: E402
from memdock_openmemory.settings import Settings  # noqa: E402


class OpenMemoryAdapter(Adapter):
    name = "openmemory"
    version = "1.0.0"
    descriptor_path = Path(__file__).with_name("adapter.json")
    features = {"embeddings": False, "entity_extraction": False, "graph_query": False, "temporal": False,
                "incremental": True, "delete": True, "retrieval": True, "concurrent_index": False}
    score = {"range": [0.0, 1.0], "semantics": SCORE_SEMANTICS}
    id_shapes = {"node": "OpenMemory memory uuid (recorded in catalog.sqlite against our entry id)", "episode": "our entry id"}

    def __init__(self) -> None:
        self._runtime: Any = None
        self._runtime_key: tuple | None = None

    def active_features(self, ctx: Context) -> dict[str, bool]:
        return {**self.features, "entity_extraction": Settings.from_config(ctx.config).infer}

    def capabilities(self, ctx: Context) -> dict[str, Any]:
        s = Settings.from_config(ctx.config)
        return {**super().capabilities(ctx), "extra": {"server": s.base, "user_id": s.user_id, "app": s.app, "infer": s.infer,
                                                      "search": "REST substring search per query word"}}

    def _rt(self, ctx: Context):
        from memdock_openmemory.runtime import Runtime

        settings = Settings.from_config(ctx.config)
        key = (settings.cache_key(), str(ctx.data_dir))
        if self._runtime is None or self._runtime_key != key:
            self.close()
            self._runtime, self._runtime_key = Runtime(settings, ctx.data_dir), key
        return self._runtime

    def healthcheck(self, ctx: Context) -> dict:
        rt = self._rt(ctx)
        checks: dict[str, Any] = {"server": rt.settings.base, "user_id": rt.settings.user_id, **rt.catalog.counts()}
        try:
            page = rt.client.user_page("healthcheck")
        except MemdockError as exc:
            hint = " (the user must exist on the server: OpenMemory creates only its USER at start)" \
                if (exc.details or {}).get("status") == 404 else ""
            return {"ok": False, "backend": self.name, "checks": checks, "message": exc.message + hint}
        checks["server_memories"] = page.get("total")
        return {"ok": True, "backend": self.name, "checks": checks,
                "message": f"OpenMemory at {rt.settings.base} answers; user {rt.settings.user_id} has {page.get('total')} memories"}

    def prepare(self, ctx: Context) -> dict:
        rt = self._rt(ctx)
        rt.client.user_page("prepare")
        return {"ok": True, "details": rt.catalog.counts()}

    def index(self, ctx: Context) -> dict:
        from memdock_openmemory.indexer import index

        return index(self._rt(ctx), ctx)

    def query(self, ctx: Context) -> dict:
        from memdock_openmemory.retrieval import search_memories

        return search_memories(self._rt(ctx), ctx.params)

    def search_nodes(self, ctx: Context) -> dict:
        from memdock_openmemory.retrieval import search_memories

        return search_memories(self._rt(ctx), ctx.params)

    def search_episodes(self, ctx: Context) -> dict:
        from memdock_openmemory.retrieval import search_episodes

        return search_episodes(self._rt(ctx), ctx.params)

    def get_node(self, ctx: Context) -> dict:
        from memdock_openmemory.retrieval import get_node

        return get_node(self._rt(ctx), ctx.params)

    def delete(self, ctx: Context) -> dict:
        from memdock_openmemory.forget import delete

        return delete(self._rt(ctx), ctx.params)

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None


if __name__ == "__main__":
    sys.exit(serve(OpenMemoryAdapter()))
