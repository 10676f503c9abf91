"""An adapter's stderr: captured to a bounded log file, redacted, with a tail kept for error messages."""

from __future__ import annotations

import errno
import os
import threading
from collections import deque
from pathlib import Path
from typing import IO

from ..atomic import create_new
from .redact import Redactor

DEFAULT_MAX_BYTES = 8 * 1024 * 1024
TAIL_BYTES = 4096


class StderrLog(threading.Thread):
    """Drains a pipe until EOF. The file keeps at most max_bytes (then only a note of what was dropped).

    When the file cannot be written (a full disk), the pipe is still drained and the tail still kept:
    the tail is what explains the failure."""

    def __init__(self, path: Path, redactor: Redactor, *, max_bytes: int = DEFAULT_MAX_BYTES):
        """Creates PATH now, before the adapter starts: it must not exist (the adapter could have made it a link)."""
        super().__init__(daemon=True, name=f"stderr:{path.parent.name}")
        self.path, self.redactor, self.max_bytes = path, redactor, max_bytes
        self._log: IO[bytes] | None
        try:
            self._log = open(create_new(path), "wb")  # noqa: SIM115  (open for the thread's life)
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            self._log = None
        self.pipe: IO[bytes] | None = None
        self.total = 0
        self.dropped = 0
        self._tail: deque[bytes] = deque()
        self._tail_len = 0

    def attach(self, pipe: IO[bytes]) -> None:
        """Start draining PIPE (the adapter's stderr) into the log."""
        self.pipe = pipe
        self.start()

    def close(self) -> None:
        """Close the log without draining (the adapter never started)."""
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            try:
                self._log.close()
            except OSError:
                pass
            self._log = None

    def run(self) -> None:
        assert self.pipe is not None
        try:
            self._drain(self.pipe)
        finally:
            self._close_log()
            try:
                self.pipe.close()
            except OSError:
                pass

    def _drain(self, pipe: IO[bytes]) -> None:
        carry = b""
        keep = max(0, self.redactor.longest - 1)
        fd = pipe.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            data = self.redactor.bytes(carry + chunk)
            if chunk and keep and len(data) > keep:
                data, carry = data[:-keep], data[-keep:]
            elif chunk and keep:
                data, carry = b"", data
            else:
                carry = b""
            self._write(data)
            if not chunk:
                break
        if self.dropped:
            self._to_file(
                f"\n[memdock: {self.dropped} bytes of stderr dropped past the {self.max_bytes}-byte log "
                "limit]\n".encode()
            )

    def _to_file(self, data: bytes) -> None:
        if self._log is None:
            return
        try:
            self._log.write(data)
            self._log.flush()
        except OSError:
            self._close_log()

    def _write(self, data: bytes) -> None:
        if not data:
            return
        self.total += len(data)
        room = self.max_bytes - (self.total - len(data) - self.dropped)
        if room > 0:
            self._to_file(data[:room])
        if len(data) > max(room, 0):
            self.dropped += len(data) - max(room, 0)
        self._tail.append(data[-TAIL_BYTES:])
        self._tail_len += len(self._tail[-1])
        while self._tail_len - len(self._tail[0]) >= TAIL_BYTES:
            self._tail_len -= len(self._tail.popleft())

    def tail(self, limit: int = TAIL_BYTES) -> str:
        return b"".join(self._tail)[-limit:].decode("utf-8", "replace")
