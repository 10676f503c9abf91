"""Group commit for remembers: notes that arrive while the write lane is busy are indexed together.

Every index call costs an adapter process and a pass over the store's ledger, whatever its size, so fifty
agents remembering at once should cost a few index calls, not fifty. A batch opens with the first note that
finds none open and closes when the write lane starts it; anything else sent down the lane (a forget) closes
it too, so writes keep the order their callers saw.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from .remember import Note
from .results import Remembered

Write = Callable[[list[Note]], list[Remembered]]


@dataclass
class _Batch:
    waiting: list[tuple[list[Note], asyncio.Future[list[Remembered]]]] = field(default_factory=list)
    notes: int = 0
    started: bool = False


class WriteBatcher:
    """Sends batches of notes to WRITE on LANE (a one-thread executor), at most MAX_NOTES a batch."""

    def __init__(self, lane: Executor, write: Write, max_notes: int):
        self._lane, self._write, self._max = lane, write, max_notes
        self._lock = threading.Lock()
        self._open: _Batch | None = None

    def submit(self, notes: list[Note]) -> asyncio.Future[list[Remembered]]:
        """A future for NOTES' results, in order."""
        future: asyncio.Future[list[Remembered]] = asyncio.get_running_loop().create_future()
        with self._lock:
            batch = self._open
            if batch is None or batch.started or batch.notes + len(notes) > self._max:
                batch = self._open = _Batch()
                self._lane.submit(self._flush, batch)
            batch.waiting.append((notes, future))
            batch.notes += len(notes)
        return future

    def close_batch(self) -> None:
        """Later notes go to a new batch (call before sending anything else down the lane)."""
        with self._lock:
            self._open = None

    def _flush(self, batch: _Batch) -> None:
        with self._lock:
            batch.started = True
            if self._open is batch:
                self._open = None
        notes = [n for group, _ in batch.waiting for n in group]
        try:
            results: list[Remembered] = self._write(notes)
            error: BaseException | None = None
        except BaseException as exc:  # every caller in the batch sees it
            results, error = [], exc
        start = 0
        for group, future in batch.waiting:
            part = results[start : start + len(group)]
            start += len(group)
            future.get_loop().call_soon_threadsafe(_settle, future, part, error)


def _settle(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():  # its caller gave up (deadline passed)
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)
