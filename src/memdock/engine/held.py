"""A streamed run's checkpointed ids, held until the journal segment is sealed (`engine/stream.py`).

The adapter may checkpoint records while the pass is still writing them; the ledger takes them only once the
segment holds every record. Up to LIMIT ids wait in memory, the rest in a spool file (deleted when closed), so a
large run's ids do not grow the core's memory without bound."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import orjson

LIMIT = 100_000
READ = 1 << 20


class HeldIds:
    """Ids added by one thread (the call's), taken in the order they came by another (the run's)."""

    def __init__(self, spill_dir: Path | None = None, limit: int = LIMIT):
        self.spill_dir, self.limit = spill_dir, limit
        self._lock = threading.Lock()
        self._lists: list[list[str]] = []
        self.in_memory = 0
        self._file: IO[bytes] | None = None
        self._read = 0

    def add(self, ids: list[str]) -> None:
        with self._lock:
            if self._file is None and self.in_memory + len(ids) <= self.limit:
                self._lists.append(ids)
                self.in_memory += len(ids)
                return
            if self._file is None:
                self._file = tempfile.TemporaryFile(dir=self.spill_dir)  # noqa: SIM115  # closed by close()
            self._file.seek(0, 2)
            self._file.write(orjson.dumps(ids) + b"\n")

    def take(self) -> Iterator[list[str]]:
        """The ids held now, a checkpoint's list at a time (the spooled ones read back a piece at a time)."""
        with self._lock:
            lists, self._lists, self.in_memory = self._lists, [], 0
        yield from lists
        while lines := self._spooled():
            yield from (orjson.loads(line) for line in lines)

    def _spooled(self) -> list[bytes]:
        with self._lock:
            if self._file is None:
                return []
            self._file.seek(self._read)
            piece = self._file.read(READ)
            cut = piece.rfind(b"\n") + 1
            if piece and not cut:  # one checkpoint longer than READ (each is written whole, with its newline)
                piece += self._file.readline()
                cut = len(piece)
            self._read += cut
            return piece[:cut].splitlines()

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
