"""Reading an adapter's stdout: protocol events only, under an overall and an idle deadline."""

from __future__ import annotations

import os
import selectors
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..protocol import Event, parse_event

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024
QUARANTINE_SAMPLES = 5
_SAMPLE_CHARS = 200
_SAMPLE_WINDOW = 4096  # redacted whole before the sample is cut, so a secret is never cut in two


class Deadline(Exception):
    def __init__(self, kind: str, seconds: float):
        super().__init__(kind)
        self.kind, self.seconds = kind, seconds


class LineTooLong(Exception):
    """A line passed the cap on a channel where every line is data (worker mode)."""

    def __init__(self, cap: int):
        super().__init__(f"a stdout line longer than {cap} bytes")
        self.cap = cap


@dataclass
class Quarantine:
    """Stray stdout lines: never parsed as data; counted (lines, over-long lines, bytes), a few sampled."""

    count: int = 0
    overlong: int = 0
    dropped_bytes: int = 0
    samples: list[str] = field(default_factory=list)

    def add(self, line: bytes, redact: Callable[[bytes], bytes] | None = None, *, size: int | None = None) -> None:
        self.count += 1
        self.dropped_bytes += len(line) if size is None else size
        if len(self.samples) < QUARANTINE_SAMPLES:
            head = line[:_SAMPLE_WINDOW]
            self.samples.append((redact(head) if redact else head)[:_SAMPLE_CHARS].decode("utf-8", "replace"))


class EventChannel:
    """Splits stdout into lines in linear time. A line longer than MAX_LINE is dropped and counted (or, when
    STRICT, raises LineTooLong): memory stays bounded by MAX_LINE whatever the adapter writes."""

    def __init__(
        self,
        fd: int,
        quarantine: Quarantine,
        redact: Callable[[bytes], bytes] = lambda b: b,
        *,
        max_line: int = DEFAULT_MAX_EVENT_BYTES,
        strict: bool = False,
    ):
        self.fd = fd
        self.quarantine = quarantine
        self.redact = redact
        self.max_line, self.strict = max_line, strict
        self._partial = bytearray()
        self._lines: deque[bytes] = deque()
        self._skipping = 0  # bytes of an over-long line discarded so far, until its newline
        self._sel = selectors.DefaultSelector()
        self._sel.register(fd, selectors.EVENT_READ)
        self.eof = False
        self._exit_fd: int | None = None
        self._exited: Callable[[], bool | None] = lambda: True

    def close(self) -> None:
        self._sel.close()

    def watch_exit(self, fd: int, exited: Callable[[], bool | None]) -> None:
        """FD becomes readable as the adapter's own process ends. Once EXITED() says True the idle clock stops
        (its leftover children, which may hold stdout open, have a bounded grace); False stops the watch."""
        self._exit_fd, self._exited = fd, exited
        self._sel.register(fd, selectors.EVENT_READ)

    def _overlong(self, head: bytes, size: int) -> None:
        self.quarantine.overlong += 1
        self.quarantine.add(head, self.redact, size=size)
        if self.strict:
            raise LineTooLong(self.max_line)

    def _feed(self, chunk: bytes) -> None:
        if self._skipping:
            nl = chunk.find(b"\n")
            if nl < 0:
                self._skipping += len(chunk)
                self.quarantine.dropped_bytes += len(chunk)
                return
            self.quarantine.dropped_bytes += nl
            self._skipping = 0
            chunk = chunk[nl + 1 :]
        parts = chunk.split(b"\n")
        if len(parts) > 1:
            self._partial += parts[0]
            self._lines.append(bytes(self._partial))
            self._partial = bytearray()
            self._lines.extend(parts[1:-1])
        self._partial += parts[-1]
        if len(self._partial) > self.max_line:
            head, size = bytes(self._partial[:_SAMPLE_WINDOW]), len(self._partial)
            self._partial = bytearray()
            self._skipping = size
            self._overlong(head, size)

    def _next_event(self) -> Event | None:
        while self._lines:
            line = self._lines.popleft()
            if len(line) > self.max_line:
                self._overlong(line[:_SAMPLE_WINDOW], len(line))
                continue
            text = line.strip()
            if not text:
                continue
            ev = parse_event(text) if text[:1] == b"{" else None
            if ev is None:
                self.quarantine.add(line, self.redact)
                continue
            return ev
        return None

    def events(
        self, *, timeout: float | None, idle: float | None, waited: Callable[[], bool] | None = None
    ) -> Iterator[Event]:
        """Yield events until EOF. Raises Deadline('timeout'|'idle'); any event resets the idle clock, and so does
        each look while WAITED() says the adapter's silence is the caller's (it is still making its input)."""
        start = last = time.monotonic()
        while True:
            ev = self._next_event()
            if ev is not None:
                last = time.monotonic()
                yield ev
                continue
            if self.eof:
                if self._partial.strip():
                    self.quarantine.add(bytes(self._partial), self.redact)
                self._partial = bytearray()
                return
            now = time.monotonic()
            if waited is not None and waited():
                last = now
            waits = []
            if timeout is not None:
                waits.append((start + timeout - now, "timeout", timeout))
            if idle is not None:
                waits.append((last + idle - now, "idle", idle))
            wait, kind, secs = min(waits) if waits else (None, "", 0.0)
            if wait is not None and wait <= 0:
                raise Deadline(kind, secs)
            for key, _mask in self._sel.select(wait):
                if key.fd == self._exit_fd:
                    exited = self._exited()
                    if exited is not None:
                        self._sel.unregister(key.fd)
                        self._exit_fd = None
                        idle = None if exited else idle
                    continue
                chunk = os.read(self.fd, 1 << 16)
                if not chunk:
                    self.eof = True
                else:
                    self._feed(chunk)
