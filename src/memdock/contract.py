"""What every backend offers, whatever runs it: result types, capabilities and the MemoryBackend protocol.

The result types live in memdock.results and the protocol in memdock.seam (which needs `typing`, so it is loaded
on first use: an adapter imports this module at every one-shot start). Both sit below this module, which only
gathers them: neither imports it.
"""

from __future__ import annotations

from .operations import FEATURES, OPERATIONS, WRITE_OPERATIONS  # noqa: F401  (re-exported)
from .records import Hit as Hit
from .results import Capabilities as Capabilities
from .results import DeleteResult as DeleteResult
from .results import GetResult as GetResult
from .results import HealthStatus as HealthStatus
from .results import IndexResult as IndexResult
from .results import PrepareResult as PrepareResult
from .results import SearchResult as SearchResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .seam import MemoryBackend as MemoryBackend

    ProgressCallback = Callable[[dict[str, Any]], None]


def __getattr__(name: str) -> Any:
    if name == "MemoryBackend":
        from .seam import MemoryBackend

        return MemoryBackend
    if name == "ProgressCallback":
        from .seam import ProgressCallback

        return ProgressCallback
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
