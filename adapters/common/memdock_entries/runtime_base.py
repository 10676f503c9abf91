"""What the entry adapters' runtimes share (mem0, MemU): the settings, the data dir, the entry catalog, the model
calls counted, and framework calls run with their errors classified by the kit (memdock.sdk.kit.models), the
framework's unusable answer (MALFORMED) a non-retryable error saying nothing of the entry was stored."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from memdock.errors import MemdockError
from memdock.sdk.kit.models import Calls, classify

from .catalog import Catalog

T = TypeVar("T")


class EntryRuntime:
    MALFORMED: ClassVar[tuple[type, ...]] = ()

    def __init__(self, settings: Any, data_dir: Path):
        self.settings, self.data_dir = settings, data_dir
        self.catalog = Catalog(data_dir)
        self.calls = Calls()

    def classify(self, exc: BaseException, where: str) -> MemdockError:
        return classify(exc, self.settings.llm_endpoint(), where, self.MALFORMED)

    def run(self, fn: Callable[[], T], where: str) -> T:
        try:
            return fn()
        except Exception as exc:
            raise self.classify(exc, where) from exc
