"""Private folders in the system's temp dir that a killed memdock does not leave behind.

`remember` builds its notes' bundle there, `migrate` its export, `add` the empty bundle that prunes the files that
left a source: each holds text. A process killed with one open cannot remove it, so each folder has an owner: a
lock file beside it (`memdock-remember-k2j4.lock` for `memdock-remember-k2j4`), held with flock(2) for as long
as the folder lives. The kernel lets go of the lock when its process dies, however it dies, so any memdock that
makes a folder, or forgets (`engine/backend.StoreBackend.delete`), removes the folders whose lock it can take:
those of dead processes. A pid in the name would not do: pids are reused, and a container sharing /tmp has its own.

The lock file is locked under a name no sweeper reads and only then renamed into place (the lock stays with the
file), so a sweeper never takes the lock of a folder whose owner is still setting it up.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .atomic import create_new

PREFIX = "memdock-"
_LOCKED = re.compile(rf"{re.escape(PREFIX)}[a-z]+-[a-z0-9_]+\.lock")
_NO_LOCKS = frozenset({errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, errno.EINVAL})
"""What flock(2) says on a filesystem that takes no locks (Lustre without its flock option says ENOSYS)."""


@contextlib.contextmanager
def private_dir(kind: str) -> Iterator[Path]:
    """A new folder `memdock-KIND-*` in the system's temp dir (mode 0700), removed on the way out; one a killed
    process left is removed by the next memdock that makes one (see the module's docstring)."""
    sweep()
    root = Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-", dir=root))
    fd = None
    try:
        fd = _lock(root, folder.name)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if fd is not None:
            with contextlib.suppress(OSError):
                (root / f"{folder.name}.lock").unlink()
            os.close(fd)


def sweep() -> None:
    """Remove the private folders of processes that are gone (their lock files free), with their lock files."""
    try:  # no usable temp dir (tempfile raises): nothing of ours can be in one
        root = Path(tempfile.gettempdir())
        names = [n for n in os.listdir(root) if _LOCKED.fullmatch(n)]
    except OSError:
        return
    for name in names:
        lock = root / name
        try:
            fd = os.open(lock, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its owner lives
            os.close(fd)
            continue
        try:
            if os.fstat(fd).st_uid == os.getuid():
                shutil.rmtree(root / name.removesuffix(".lock"), ignore_errors=True)
                lock.unlink(missing_ok=True)
        finally:
            os.close(fd)


def _lock(root: Path, name: str) -> int | None:
    """A lock file held for folder NAME: made and locked under a name sweep ignores, then moved into place. None
    where the filesystem takes no locks: the folder then has no owner, and goes on the way out only."""
    staging = root / f".{name}.lock-{os.urandom(4).hex()}"
    fd = create_new(staging, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.rename(staging, root / f"{name}.lock")
    except BaseException as exc:
        os.close(fd)
        staging.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.errno in _NO_LOCKS:
            return None
        raise
    return fd
