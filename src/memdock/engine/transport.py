"""How the store engine reaches an adapter: one `call` per protocol operation, and nothing else.

The engine (`engine/backend.py`) owns the store: its lock, the ledger, the journal, deltas, pruning and forgets.
A transport only carries one request to the adapter and its answer back, with the adapter's progress and
checkpoint events on the way, as httpx's `Client(transport=...)` carries requests. Implementations:

- `memdock.runner.transport.SubprocessTransport`: the adapter in a sandboxed subprocess (one-shot, or a pool of
  long-lived workers), with timeouts and retries; the default everywhere.
- `memdock.inprocess.InProcessTransport`: a Python adapter's SDK object called in this process.
- `memdock.engine.mock.MockTransport`: a handler function, for tests of the bookkeeping without processes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..contract import ProgressCallback
from .parallel import Job, ShardSpec

if TYPE_CHECKING:
    from .stream import InputStream

CheckpointCallback = Callable[[list[str]], None]


@dataclass(frozen=True)
class Call:
    """One request through a transport: what `Transport.call` takes, as the one object `send` gets."""

    operation: str
    params: dict[str, Any]
    on_progress: ProgressCallback | None = None
    on_checkpoint: CheckpointCallback | None = None
    offered: tuple[str, ...] | None = None
    shared: bool = True
    timeout: float | None = None
    stream: InputStream | None = None
    """The run writes the index's records to the adapter's stdin as it makes them (`engine/stream.py`)."""


class Transport(Protocol):
    """One adapter, reached somehow. NAME is the adapter's; READS_GZIP whether it reads a sealed journal
    segment's gzip parts (memdock's Python SDK does; any other adapter gets a plain bundle); PARALLEL_WRITERS
    adapter.json's `parallel_writers` (`shared`, `merge` or `serial`); STORE_FILES adapter.json's `store_files`,
    the files under the data dir that hold the backend's store (see `engine/lost.py`). A transport that can hand
    an adapter its input on stdin (`Call.stream`) also has STREAMS True."""

    name: str
    reads_gzip: bool
    parallel_writers: str
    store_files: list[str]

    def call(
        self,
        operation: str,
        params: dict[str, Any],
        *,
        on_progress: ProgressCallback | None = None,
        on_checkpoint: CheckpointCallback | None = None,
        offered: tuple[str, ...] | None = None,
        shared: bool = True,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """OPERATION's result object (already checked against response.schema.json), or the adapter's error
        raised as a MemdockError. SHARED False asks for an adapter of the call's own: no worker another call
        uses while it runs (a one-shot process, or for a write a dedicated write worker that one write at a time
        holds); TIMEOUT bounds the whole call."""
        return self.send(Call(operation, params, on_progress, on_checkpoint, offered, shared, timeout))

    def send(self, call: Call) -> dict[str, Any]:
        """`call`'s work, its arguments in one object: what a transport (a subclass of this) defines."""
        ...

    def handshake(self, params: dict[str, Any], *, refresh: bool = False) -> dict[str, Any]:
        """The `capabilities` result for PARAMS. A transport may answer it from what the adapter said before
        (the subprocess transport does, for an adapter that says its answer cannot change unseen); REFRESH asks
        the adapter itself."""
        return self.call("capabilities", params)

    def shard_job(self, timeout: float | None) -> tuple[Job, ShardSpec] | None:
        """A job and the spec template that run one shard of a parallel index elsewhere (see
        `engine/parallel.py`), or None when this transport runs one writer only."""
        ...

    def close(self) -> None: ...
