"""Reading an adapter's stdout: protocol events only, under an overall and an idle deadline."""

from __future__ import annotations

import os
import selectors
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..protocol import Event, parse_event

MAX_EVENT_BYTES = 64 * 1024 * 1024
QUARANTINE_SAMPLES = 5


class Deadline(Exception):
    def __init__(self, kind: str, seconds: float):
        super().__init__(kind)
        self.kind, self.seconds = kind, seconds


@dataclass
class Quarantine:
    """Stray stdout lines: never parsed as data; counted, sampled and reported."""

    count: int = 0
    samples: list[str] = field(default_factory=list)

    def add(self, line: bytes) -> None:
        self.count += 1
        if len(self.samples) < QUARANTINE_SAMPLES:
            self.samples.append(line[:200].decode("utf-8", "replace"))


class EventChannel:
    def __init__(self, fd: int, quarantine: Quarantine, redact: Callable[[bytes], bytes] = lambda b: b):
        self.fd = fd
        self.quarantine = quarantine
        self.redact = redact
        self._buf = b""
        self._sel = selectors.DefaultSelector()
        self._sel.register(fd, selectors.EVENT_READ)
        self.eof = False

    def close(self) -> None:
        self._sel.close()

    def events(self, *, timeout: float | None, idle: float | None) -> Iterator[Event]:
        """Yield events until EOF. Raises Deadline('timeout'|'idle'); any event resets the idle clock."""
        start = last = time.monotonic()
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                if not line.strip():
                    continue
                ev = parse_event(line)
                if ev is None:
                    self.quarantine.add(self.redact(line))
                    continue
                last = time.monotonic()
                yield ev
            if self.eof:
                if self._buf.strip():
                    self.quarantine.add(self.redact(self._buf))
                    self._buf = b""
                return
            now = time.monotonic()
            waits = []
            if timeout is not None:
                waits.append((start + timeout - now, "timeout", timeout))
            if idle is not None:
                waits.append((last + idle - now, "idle", idle))
            wait, kind, secs = min(waits) if waits else (None, "", 0.0)
            if wait is not None and wait <= 0:
                raise Deadline(kind, secs)
            if not self._sel.select(wait):
                continue
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                self.eof = True
                continue
            self._buf += chunk
            if len(self._buf) > MAX_EVENT_BYTES and b"\n" not in self._buf:
                self.quarantine.add(self.redact(self._buf[:200]))
                self._buf = b""
