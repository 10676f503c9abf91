"""Reading a file the adapter wrote, in a directory it can write: never through a link, only a regular file, capped.

A hostile adapter can put anything at the result path: a symlink to a user's file or to /dev/zero, a FIFO
that blocks the reader for ever, a sparse file of terabytes. Each is a protocol error here, decided from the
open descriptor (fstat), so nothing can be swapped between the check and the read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..errors import BackendError

DEFAULT_MAX_RESULT_BYTES = 256 * 1024 * 1024
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_capped(path: Path, cap: int, source: str) -> bytes | None:
    """The bytes of PATH, or None when it does not exist. Raises BackendError for anything but a regular file
    of at most CAP bytes, naming the size and the cap (`limits.max_result_bytes` in adapter.json)."""
    try:
        fd = os.open(path, _OPEN)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BackendError(f"{source}: result file {path} is a symbolic link; memdock never follows one",
                               details={"result": str(path)}) from None
        raise BackendError(f"{source}: cannot open result file {path}: {exc.strerror}", details={"result": str(path)}) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
            raise BackendError(f"{source}: result file {path} is {kind}, not a regular file", details={"result": str(path)})
        if st.st_size > cap:
            raise _too_big(source, path, st.st_size, cap)
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > cap:
            raise _too_big(source, path, total, cap, growing=True)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _too_big(source: str, path: Path, size: int, cap: int, *, growing: bool = False) -> BackendError:
    size_text = f"more than {cap} bytes (it grew while read)" if growing else f"{size} bytes"
    return BackendError(
        f"{source}: result file {path} is {size_text}, over the cap of {cap} bytes (limits.max_result_bytes "
        "in adapter.json); large results go by reference",
        details={"result": str(path), "size": size, "cap": cap},
    )
