"""A full disk, wherever it happens (a bundle writer, the ledger, an adapter's database), is one error.

It is a `backend` error (exit code 7, not retryable: running again only helps once space is freed) with
`details.reason = "disk_full"` and `details.path`, the file or directory that could not be written.
SQLite reports a full disk as SQLITE_FULL and rolls the transaction back itself, so the cause must be
recognised before any cleanup hides it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Iterator

from .errors import BackendError, MemdockError

TYPE_CHECKING = False  # adapters import this module at start: no `typing`

if TYPE_CHECKING:
    import sqlite3

_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_SQLITE_FULL = 13
_SQLITE_IOERR = 10
_NEARLY_FULL = 1 << 20
_SAID = re.compile(r"no space left on device|disk full|database or disk is full|disk quota exceeded|\bENOSPC\b", re.I)


def _is_sqlite_error(exc: BaseException) -> bool:
    """Whether EXC is an SQLite error, without importing sqlite3 (an adapter that never loaded it has none)."""
    sqlite = sys.modules.get("sqlite3")
    return sqlite is not None and isinstance(exc, sqlite.Error)


def is_disk_full(exc: BaseException, near: str | os.PathLike[str] | None = None) -> bool:
    """Whether EXC is a full disk. NEAR, a path on the device written to, lets an SQLite "disk I/O error"
    count as one when that device is (nearly) full."""
    if near is not None and _io_error_on_a_full_device(exc, near):
        return True
    if isinstance(exc, OSError):
        return exc.errno in _ERRNOS
    if _is_sqlite_error(exc):
        return getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL or "database or disk is full" in str(exc)
    if isinstance(exc, MemdockError):
        return exc.details.get("reason") == "disk_full"
    return False


def said_disk_full(error: MemdockError) -> bool:
    """Whether an adapter's failure was a full disk: its envelope says so, or (when it could not even write
    its result) its stderr does, in the words any runtime uses for ENOSPC."""
    if error.details.get("reason") == "disk_full":
        return True
    return error.category == "backend" and bool(_SAID.search(str(error.details.get("stderr_tail") or "")))


def disk_full(path: str | os.PathLike[str], what: str = "") -> BackendError:
    where = os.fspath(path)
    doing = f" while {what}" if what else ""
    return BackendError(
        f"disk full: no space left on the device holding {where}{doing}; free some space and run it again",
        details={"reason": "disk_full", "path": where},
    )


def _io_error_on_a_full_device(exc: BaseException, path: str | os.PathLike[str]) -> bool:
    """SQLite reports a failed write to its journal or shared memory as a bare "disk I/O error", without the
    errno; with less than a megabyte left on the device, a full disk is the cause."""
    if not _is_sqlite_error(exc) or (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF != _SQLITE_IOERR:
        return False
    return nearly_full(path)


def nearly_full(path: str | os.PathLike[str]) -> bool:
    """Whether the device holding PATH (or its nearest existing parent) has less than a megabyte left: the cause
    of a failed write that a library reports without its errno."""
    where = os.fspath(path)
    while where and not os.path.exists(where):
        where = os.path.dirname(where)
    try:
        st = os.statvfs(where or ".")
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < _NEARLY_FULL


def reraise_disk_full(exc: BaseException, path: str | os.PathLike[str], what: str = "") -> None:
    """Raise disk_full (from EXC) when EXC is a full disk; return otherwise, for the caller to re-raise EXC."""
    if isinstance(exc, MemdockError):
        return
    if is_disk_full(exc, near=path):
        raise disk_full(getattr(exc, "filename", None) or path, what) from exc


@contextlib.contextmanager
def disk_full_as_error(path: str | os.PathLike[str], what: str = "") -> Iterator[None]:
    """Turn a full disk inside the block into disk_full(PATH); every other error passes unchanged."""
    try:
        yield
    except Exception as exc:
        if isinstance(exc, OSError) or _is_sqlite_error(exc):
            reraise_disk_full(exc, path, what)
        raise


@contextlib.contextmanager
def sqlite_transaction(
    conn: sqlite3.Connection, path: str | os.PathLike[str], *, immediate: bool = False, what: str = ""
) -> Iterator[sqlite3.Connection]:
    """BEGIN, then COMMIT, or ROLLBACK on error (unless SQLite already rolled back, as it does on a full
    disk, when a ROLLBACK would only say "no transaction is active" and hide the cause). A full disk is
    raised as disk_full(PATH)."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        reraise_disk_full(exc, path, what)
        raise
