"""An input stream's lines split, checked and parsed on a thread of their own, ahead of the adapter's loop.

Without it the adapter takes turns with the core: it reads a group of records, then writes it, and while it writes
only the pipe's buffer (1 MiB) lets the core go on making the next lines. The reader thread keeps taking the pipe's
bytes while the adapter writes, up to AHEAD_BYTES of lines (held parsed), so memory stays bounded; past that the
core waits as before. It reads a block at a time (one system call, one take of the GIL per
block, not per 8 KiB line buffer) and splits it in C.

Errors come where they would unread: after every line before them. A line that is not `TYPE JSON` (no space, or
its JSON does not parse), an end line that counts another number of records, and an input that stops without its
end line are `invalid_input`, naming the line."""

from __future__ import annotations

import queue
import threading
from collections.abc import Collection, Iterator
from typing import Any, BinaryIO

import orjson

from ..errors import InvalidInputError

END = b"end"
READ_BYTES = 1 << 20
AHEAD_BYTES = 8 << 20
KINDS = 64  # line types remembered (by their bytes) with how they are read

Item = tuple[str, Any]
"""(type, what of the line the adapter keeps): the parsed record of a type it reads now, the line of one it holds
(newline included), None for one it skips."""


class ReadAhead:
    """STREAM's lines as Items, read on a thread; PARSE's types parsed, KEEP's kept as lines, others counted only.
    WHERE names the input in errors. `close()` once done with it (a loop stopped early included)."""

    def __init__(self, stream: BinaryIO, where: str, parse: Collection[str], keep: Collection[str]):
        self.stream, self.where, self.parse, self.keep = stream, where, parse, keep
        self._queue: queue.SimpleQueue[tuple[list[Item], int] | BaseException | None] = queue.SimpleQueue()
        self._room = threading.Condition()
        self._held = 0  # bytes of lines read and not yet taken
        self._closed = False
        self._kinds: dict[bytes, tuple[str, bool, bool]] = {}
        self._thread = threading.Thread(target=self._run, name="memdock-stream-read", daemon=True)
        self._thread.start()

    def __iter__(self) -> Iterator[Item]:
        while True:
            got = self._queue.get()
            if got is None:
                return
            if isinstance(got, BaseException):
                raise got
            items, size = got
            with self._room:
                self._held -= size
                self._room.notify()
            yield from items

    def close(self) -> None:
        """Stop reading: the thread ends at its next block. (One blocked on the pipe's read ends with the process:
        it is a daemon.)"""
        with self._room:
            self._closed = True
            self._room.notify()

    def _run(self) -> None:
        try:
            for block in self._blocks():
                with self._room:
                    self._held += block[1]
                self._queue.put(block)
            self._queue.put(None)
        except BaseException as exc:  # handed to the adapter's loop, after the lines before it
            self._queue.put(exc)

    def _blocks(self) -> Iterator[tuple[list[Item], int]]:
        """The lines as they come, a block (what one read gave) at a time, with its size in bytes."""
        read = getattr(self.stream, "read1", self.stream.read)
        number, rest = 0, b""
        while self._wait_room():
            data = read(READ_BYTES)
            lines = (rest + data).split(b"\n")
            rest = lines.pop() if data else b""
            if not data and lines == [b""]:
                lines = []
            items: list[Item] = []
            try:
                ended = self._items(lines, number, items)
            except InvalidInputError:
                yield items, len(data)
                raise
            number += len(items)
            yield items, len(data)
            if ended:
                return
            if not data:
                raise InvalidInputError(
                    f"{self.where}: the input ended after {number} records without its end line (the core "
                    "stopped writing it); nothing of it is committed",
                    details={"read": number},
                )

    def _items(self, lines: list[bytes], before: int, items: list[Item]) -> bool:
        """LINES (the BEFORE lines before them read) onto ITEMS up to the end line; whether it came. The common
        case in one loop, each line's type looked up by its bytes: a line is split and parsed only once."""
        loads, kinds, append = orjson.loads, self._kinds, items.append
        for line in lines:
            kind, space, body = line.partition(b" ")
            how = kinds.get(kind) if space else None
            if how is None:
                if kind == END:
                    self._check_end(line, before + len(items))
                    return True
                if not space:
                    raise InvalidInputError(
                        f"{self.where}: line {before + len(items) + 1}: not a `TYPE JSON` record line (no space)"
                    )
                how = self._kind(kind)
            name, parse, keep = how
            if parse:
                try:
                    append((name, loads(body)))
                except orjson.JSONDecodeError as exc:
                    raise InvalidInputError(
                        f"{self.where}: line {before + len(items) + 1}: not a JSON record: {exc}"
                    ) from None
            else:
                append((name, line + b"\n" if keep else None))
        return False

    def _kind(self, kind: bytes) -> tuple[str, bool, bool]:
        """How a line of type KIND is read: (its name, parsed, kept); remembered for the next (up to KINDS types:
        an input of many made-up types costs a decode a line, no more memory)."""
        name = kind.decode("ascii", "replace")
        how = (name, name in self.parse, name not in self.parse and name in self.keep)
        if len(self._kinds) < KINDS:
            self._kinds[kind] = how
        return how

    def _wait_room(self) -> bool:
        """Wait until less than AHEAD_BYTES are held; False once closed."""
        with self._room:
            self._room.wait_for(lambda: self._closed or self._held < AHEAD_BYTES)
            return not self._closed

    def _check_end(self, line: bytes, seen: int) -> None:
        said = line[len(END) :].strip()
        if said != str(seen).encode():
            raise InvalidInputError(
                f"{self.where}: the input's end says {said.decode('ascii', 'replace')} records; "
                f"{seen} came; nothing of it is committed",
                details={"said": said.decode("ascii", "replace"), "read": seen},
            )
