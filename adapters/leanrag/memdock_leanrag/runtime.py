"""One data dir's state for the life of a process: the checkout's modules, the catalog, the models, the timings."""

from __future__ import annotations

import threading
from pathlib import Path

from .bridge import LeanRAG, load, prepare_environment
from .build import GRAPH, repair
from .catalog import Catalog
from .checkout import locate
from .models import LLM, Cache, Embedder, Timings
from .settings import Settings


class Runtime:
    def __init__(self, settings: Settings, data_dir: Path):
        self.settings, self.data_dir = settings, data_dir
        self.root = locate(settings)
        data_dir.mkdir(parents=True, exist_ok=True)
        prepare_environment(data_dir)  # before anything imports numba, torch or tiktoken
        repair(data_dir)
        self.catalog = Catalog(data_dir)
        self.timings = Timings()
        self.embedder = Embedder(settings, self.timings)
        self._lr: LeanRAG | None = None
        self._lock = threading.Lock()

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / GRAPH

    def leanrag(self) -> LeanRAG:
        if self._lr is None:
            self._lr = load(self.root, self.data_dir)
        self._lr.dbu.ACTIVE = str(self.graph_dir)
        return self._lr

    def llm(self, cached: bool = False) -> LLM:
        self.settings.require_models()
        cache = None
        if cached:

            def get(k: str) -> str | None:
                with self._lock:
                    return self.catalog.cached_answer(k)

            def put(k: str, v: str) -> None:
                with self._lock:
                    self.catalog.cache_answer(k, v)

            def drop(keys: list[str]) -> None:
                with self._lock, self.catalog.transaction():
                    self.catalog.forget_answers(keys)

            cache = Cache(get, put, drop)
        return LLM(self.settings, self.timings, cache)

    def close(self) -> None:
        self.catalog.close()
