"""A backend's store on disk: the adapter's data dir, the core's ledger, the writer lock, work dirs.

    <store>/data/          the adapter's data dir (the only persistent place it may write)
    <store>/ledger.sqlite  what the backend has durably committed (the core's, not the adapter's)
    <store>/write.lock     held by prepare, index and delete
    <store>/work/<run>/    one per call: request, result, stderr.log, tmp/ (removed after success)

A store on a read-only filesystem still answers reads: work dirs then go to the system temp dir, and
writes fail up front with the reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator

from filelock import FileLock, Timeout

from ..errors import ConfigError, TransientError
from ..ids import digest

KEEP_FAILED_RUNS = 20


class Store:
    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()
        self.data_dir = self.root / "data"
        self.work_root = self.root / "work"
        self.ledger_path = self.root / "ledger.sqlite"
        self.lock_path = self.root / "write.lock"

    def ensure(self) -> "Store":
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.work_root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if not self.data_dir.is_dir():
                raise ConfigError(f"cannot create the store at {self.root}: {exc.strerror}") from None
        if not os.access(self.work_root, os.W_OK):
            self.work_root = self._temp_work_root()
        return self

    def _temp_work_root(self) -> Path:
        root = Path(tempfile.gettempdir()) / f"memdock-work-{digest(str(self.root), length=12)}"
        root.mkdir(mode=0o700, exist_ok=True)
        return root

    def check_writable(self) -> None:
        """Raise a clear error when this store cannot be written (read-only filesystem, no permission)."""
        for path in (self.root, self.data_dir):
            if path.exists() and not os.access(path, os.W_OK):
                reason = "read-only filesystem" if _read_only_fs(path) else "permission denied"
                raise ConfigError(f"the store at {self.root} is not writable ({reason}); index, prepare and delete "
                                  "need to write there. Reads still work.", details={"store": str(self.root)})

    def new_work_dir(self, label: str) -> Path:
        d = self.work_root / f"{time.strftime('%Y%m%dT%H%M%S')}-{label}-{uuid.uuid4().hex[:8]}"
        (d / "tmp").mkdir(parents=True)
        return d

    def discard(self, work_dir: Path) -> None:
        shutil.rmtree(work_dir, ignore_errors=True)

    def prune(self, keep: int = KEEP_FAILED_RUNS) -> None:
        runs = sorted((p for p in self.work_root.iterdir() if p.is_dir() and not p.name.startswith("worker-")), key=lambda p: p.name)
        for old in runs[:-keep] if keep else runs:
            shutil.rmtree(old, ignore_errors=True)

    @contextlib.contextmanager
    def write_lock(self, timeout: float = 10.0) -> Iterator[None]:
        """Only one writer per store. A lock held past TIMEOUT is a clear, retryable error."""
        self.ensure()
        self.check_writable()
        lock = FileLock(str(self.lock_path))
        owner = self.root / "write.lock.owner"
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            who = owner.read_text().strip() if owner.exists() else "another process"
            raise TransientError(
                f"{self.root} is locked by another writer ({who}); waited {timeout:g}s. Wait for it to finish and try again.",
                details={"lock": str(self.lock_path)},
            ) from None
        try:
            owner.write_text(f"pid {os.getpid()}")
            yield
        finally:
            owner.unlink(missing_ok=True)
            lock.release()


def _read_only_fs(path: Path) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
