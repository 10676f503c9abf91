"""A full disk under tantivy's writer, recognised where the adapter calls it.

tantivy hands Python its I/O errors as text in a ValueError. A write of its own thread (a commit) says the errno:
"An IO error occurred: 'No space left on device (os error 28)'" (memdock.diskfull.says_disk_full reads it). A
write of an indexing thread (a segment flushed when the writer's heap is spent, or at the commit) only kills the
thread, and the writer then says "An index writer was killed ... (io::Error most likely)": the cause is a full
disk when the device holding the index has less than a megabyte left, as the files tantivy wrote up to the failure
still take the space (`Writers.rollback` deletes them afterwards).
"""

from __future__ import annotations

import os

from memdock.diskfull import disk_full, is_disk_full, nearly_full
from memdock.errors import BackendError, MemdockError

KILLED = "index writer was killed"


def is_full(exc: BaseException, folder: str | os.PathLike[str]) -> bool:
    """Whether EXC, raised while tantivy wrote the index at FOLDER, is a full disk (known before its files go)."""
    if isinstance(exc, MemdockError):
        return False
    return is_disk_full(exc, near=folder) or (
        isinstance(exc, ValueError) and KILLED in str(exc) and nearly_full(folder)
    )


def as_disk_full(exc: BaseException, folder: str | os.PathLike[str], what: str) -> BackendError | None:
    """memdock's disk_full error naming FOLDER when EXC is a full disk there, else None."""
    return disk_full(folder, what) if is_full(exc, folder) else None
