"""A full disk under tantivy's writer, recognised where the adapter calls it.

tantivy hands Python its I/O errors as text in a ValueError. A write of its own thread (a commit) says the errno:
"An IO error occurred: 'No space left on device (os error 28)'". That text is read here only, of a ValueError only
(the one type tantivy raises), and only for the errno as Rust prints it (`ERRNO_SAID`): the core reads no error's
text, so elsewhere a ValueError quoting a user's "Disk quota exceeded" stays what it is. A write of an indexing
thread (a segment flushed when the writer's heap is spent, or at the commit) only kills the thread, and the
writer then says "An index writer was killed ... (io::Error most likely)": the cause is a full
disk when the device holding the index has less than a megabyte left, as the files tantivy wrote up to the failure
still take the space (`Writers.rollback` deletes them afterwards), or when a file written there now fails with
ENOSPC or EDQUOT: a quota spent, or a device out of inodes, leaves the device's free bytes as they were.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile

from memdock.diskfull import disk_full, is_disk_full, nearly_full
from memdock.errors import BackendError, MemdockError

KILLED = "index writer was killed"
# ENOSPC or EDQUOT as Rust's io::Error prints it: Display "... (os error 28)", Debug "Os { code: 28, kind:
# StorageFull, .. }", ENOSPC's io::ErrorKind alone "StorageFull" (Debug) or "no storage space" (Display). Case as
# Rust writes it; never the strerror alone ("Disk quota exceeded"), which any text may quote.
_CODES = f"(?:{errno.ENOSPC}|{errno.EDQUOT})"
ERRNO_SAID = re.compile(rf"\(os error {_CODES}\)|\bcode: {_CODES}\b|\bStorageFull\b|\bno storage space\b")
PROBE = 1 << 16  # bytes a probe file writes: more than a filesystem block, less than the megabyte of `nearly_full`


def is_full(exc: BaseException, folder: str | os.PathLike[str]) -> bool:
    """Whether EXC, raised while tantivy wrote the index at FOLDER, is a full disk (known before its files go)."""
    if isinstance(exc, MemdockError):
        return False
    if is_disk_full(exc, near=folder):  # an OSError's errno (a file the adapter wrote itself)
        return True
    if not isinstance(exc, ValueError):
        return False
    text = str(exc)
    return says_full(text) or (KILLED in text and (nearly_full(folder) or _write_fails_full(folder)))


def says_full(text: str) -> bool:
    """Whether TEXT, a tantivy ValueError's, gives ENOSPC or EDQUOT as Rust prints an io::Error."""
    return ERRNO_SAID.search(text) is not None


def _write_fails_full(folder: str | os.PathLike[str]) -> bool:
    """Whether a small file written in FOLDER (or its nearest existing parent) fails with ENOSPC or EDQUOT."""
    where = os.fspath(folder)
    while where and not os.path.isdir(where):
        where = os.path.dirname(where)
    try:
        with tempfile.TemporaryFile(dir=where or ".") as f:
            f.write(b"\0" * PROBE)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        return exc.errno in (errno.ENOSPC, errno.EDQUOT)
    return False


def as_disk_full(exc: BaseException, folder: str | os.PathLike[str], what: str) -> BackendError | None:
    """memdock's disk_full error naming FOLDER when EXC is a full disk there, else None."""
    return disk_full(folder, what) if is_full(exc, folder) else None
