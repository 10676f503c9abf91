"""Reading a file in a directory an adapter can write (its data dir, its work dir): never through a link, only a
regular file, never more than a cap.

A hostile adapter can put anything there: a symlink to a user's file or to /dev/zero, a FIFO that blocks the
reader for ever, a sparse file of terabytes. The checks are made on the open descriptor (fstat), so nothing
can be swapped between the check and the read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator

_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
_CHUNK = 1 << 20

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(Exception):
    """PATH is KIND ("a symbolic link", "a FIFO", ...), not a regular file; it was not read."""

    def __init__(self, path: str | os.PathLike[str], kind: str):
        self.path, self.kind = os.fspath(path), kind
        super().__init__(f"{self.path} is {kind}, not a regular file")


@contextlib.contextmanager
def open_regular(path: str | os.PathLike[str]) -> Iterator[tuple[int, os.stat_result]]:
    """A blocking descriptor on PATH and its fstat. Raises NotRegularFile for a link or anything but a regular
    file (opening one never blocks); FileNotFoundError and other OSErrors pass through."""
    try:
        fd = os.open(path, _OPEN)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegularFile(path, "a symbolic link") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file"))
        os.set_blocking(fd, True)
        yield fd, st
    finally:
        os.close(fd)


def read_upto(fd: int, limit: int) -> Iterator[bytes]:
    """The bytes of FD in pieces of at most 1 MiB, LIMIT bytes in all at most (a file may grow while read)."""
    total = 0
    while total < limit:
        piece = os.read(fd, min(_CHUNK, limit - total))
        if not piece:
            return
        total += len(piece)
        yield piece
