"""The protocol side adapters over a framework share: one runtime per config and data dir (a worker keeps it across
requests), and operations routed to the adapter package's modules, imported only when first used (`capabilities`
must stay quick: a framework's import alone can take seconds).

A runtime whose data dir was removed between calls is dropped, so a call never answers from files that no longer
exist: it starts an empty store, or fails saying why it cannot.

    class MyAdapter(RuntimeAdapter):
        package = "memdock_mine"
        settings_class = Settings          # a SchemaSettings dataclass
        descriptor_path = adapter_json(__file__)
        index = route("indexer", "index", ctx=True)        # memdock_mine.indexer.index(runtime, ctx)
        query = route("retrieval", "search", "query")      # memdock_mine.retrieval.search(runtime, "query", params)

        def make_runtime(self, settings, data_dir):
            from memdock_mine.runtime import Runtime      # heavy imports happen here, on first use
            return Runtime(settings, data_dir)

A runtime has `close()`, and `catalog.path` when it keeps a file in the data dir whose loss means the data dir went.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from ...errors import BackendError
from ...operations import FEATURES
from ..adapter import Adapter, Context


def recreate(data_dir: Path) -> None:
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


def supports(*names: str, **fixed: bool) -> dict[str, bool]:
    """An adapter's `features`: the NAMES it has, each True (a feature not named is reported false), and FIXED values
    that override what the SDK would report (`concurrent_index=False` whatever adapter.json's parallel_writers). A name
    that is neither a protocol feature nor `retrieval` is refused when the class is defined, not as a silent false."""
    unknown = sorted((set(names) | set(fixed)) - set(FEATURES) - {"retrieval"})
    if unknown:
        raise ValueError(f"unknown features {unknown}; known: {sorted(FEATURES)} and retrieval")
    return dict.fromkeys(names, True) | fixed


def route(module: str, function: str, *leading: Any, ctx: bool = False) -> Any:
    """An operation that calls PACKAGE.MODULE.FUNCTION(runtime, ctx) when CTX, else (runtime, *LEADING, params)."""

    def operation(self: RuntimeAdapter, context: Context) -> Any:
        target = getattr(self.module(module), function)
        runtime = self.runtime(context)
        return target(runtime, context) if ctx else target(runtime, *leading, context.params)

    operation.__name__ = operation.__qualname__ = f"{module}.{function}"
    operation.__doc__ = f"Routed to the adapter package's {module}.{function}."
    return operation


class RuntimeAdapter(Adapter):
    """An Adapter that keeps one runtime per (settings, data dir) and routes operations to its package's modules."""

    package = ""
    settings_class: Any = None

    def __init__(self) -> None:
        self._runtime: Any = None
        self._runtime_key: tuple[Any, ...] | None = None

    def make_runtime(self, settings: Any, data_dir: Path) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.make_runtime")

    def settings(self, ctx: Context) -> Any:
        return self.settings_class.from_config(ctx.config)

    def module(self, name: str) -> Any:
        return importlib.import_module(f"{self.package}.{name}")

    def runtime(self, ctx: Context) -> Any:
        """The runtime for this config and data dir: the one kept from an earlier request when both are the same
        and its catalog is still there, else a new one."""
        settings = self.settings(ctx)
        key = (settings.cache_key(), str(ctx.data_dir))
        gone = self._runtime is not None and _catalog_gone(self._runtime)
        if self._runtime is None or self._runtime_key != key or gone:
            self.close()
            if gone:
                recreate(ctx.data_dir)
            self._runtime, self._runtime_key = self.make_runtime(settings, ctx.data_dir), key
        return self._runtime

    def close(self) -> None:
        if self._runtime is not None:
            runtime, self._runtime, self._runtime_key = self._runtime, None, None
            runtime.close()


def _catalog_gone(runtime: Any) -> bool:
    path = getattr(getattr(runtime, "catalog", None), "path", None)
    return path is not None and not Path(path).exists()


class GraphAdapter(RuntimeAdapter):
    """A RuntimeAdapter over a graph framework whose package has `indexer.index(runtime, ctx)`,
    `retrieval.search(runtime, operation, params)` for query and every search, and `retrieval.get_node` and
    `retrieval.get_edge(runtime, params)`."""

    index = route("indexer", "index", ctx=True)
    query = route("retrieval", "search", "query")
    search_nodes = route("retrieval", "search", "search_nodes")
    search_facts = route("retrieval", "search", "search_facts")
    search_episodes = route("retrieval", "search", "search_episodes")
    get_node = route("retrieval", "get_node")
    get_edge = route("retrieval", "get_edge")
