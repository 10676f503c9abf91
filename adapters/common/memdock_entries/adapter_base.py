"""The protocol side the entry-catalog adapters share: one runtime per config and data dir (a worker keeps it across
requests), and the operations routed to the adapter package's modules, imported only when first used
(`capabilities` must stay quick: mem0's import alone takes seconds). A runtime whose data dir was removed between
calls is dropped, so a call never answers from files that no longer exist: it starts an empty store, or fails saying
why it cannot.

An adapter names its `package`, its `settings_class` (with `from_config` and `cache_key`) and builds its runtime in
`make_runtime`; the package provides `indexer.index(rt, ctx)`, `retrieval.search_memories / search_episodes /
get_node(rt, params)` and `forget.delete(rt, params)`.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from memdock.errors import BackendError
from memdock.sdk import Adapter, Context


def _recreate(data_dir: Path) -> None:
    """The data dir was removed since the last call: start an empty one, or say why this process cannot."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackendError(
            f"the data dir {data_dir} was removed while this adapter process had it open, and it cannot make it again "
            f"({exc.strerror}; the sandbox allows writes only beneath the folder it was started with). What was stored "
            "there is gone; the next adapter process starts an empty store",
            details={"data_dir": str(data_dir)},
            retryable=False,
        ) from None


FEATURES = {
    "embeddings": True,
    "entity_extraction": False,
    "graph_query": False,
    "temporal": False,
    "incremental": True,
    "delete": True,
    "retrieval": True,
    "concurrent_index": False,
}


class EntryAdapter(Adapter):
    package = ""
    settings_class: Any = None

    def __init__(self) -> None:
        self._runtime: Any = None
        self._runtime_key: tuple | None = None

    def make_runtime(self, settings: Any, data_dir: Path) -> Any:
        raise NotImplementedError

    def settings(self, ctx: Context) -> Any:
        return self.settings_class.from_config(ctx.config)

    def _rt(self, ctx: Context) -> Any:
        settings = self.settings(ctx)
        key = (settings.cache_key(), str(ctx.data_dir))
        gone = self._runtime is not None and not self._runtime.catalog.path.exists()
        if self._runtime is None or self._runtime_key != key or gone:
            self.close()
            if gone:
                _recreate(ctx.data_dir)
            self._runtime, self._runtime_key = self.make_runtime(settings, ctx.data_dir), key
        return self._runtime

    def _module(self, name: str) -> Any:
        return importlib.import_module(f"{self.package}.{name}")

    def index(self, ctx: Context) -> dict:
        return self._module("indexer").index(self._rt(ctx), ctx)

    def query(self, ctx: Context) -> dict:
        return self._module("retrieval").search_memories(self._rt(ctx), ctx.params)

    def search_nodes(self, ctx: Context) -> dict:
        return self._module("retrieval").search_memories(self._rt(ctx), ctx.params)

    def search_episodes(self, ctx: Context) -> dict:
        return self._module("retrieval").search_episodes(self._rt(ctx), ctx.params)

    def get_node(self, ctx: Context) -> dict:
        return self._module("retrieval").get_node(self._rt(ctx), ctx.params)

    def delete(self, ctx: Context) -> dict:
        return self._module("forget").delete(self._rt(ctx), ctx.params)

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
