"""A backend's store on disk: the adapter's data dir, the core's ledger, the writer lock, work dirs.

    <store>/data/          the adapter's data dir (the only persistent place it may write)
    <store>/ledger.sqlite  what the backend has durably committed (the core's, not the adapter's)
    <store>/write.lock     held by prepare, index and delete
    <store>/work/<run>/    one per call: request, result, stderr.log, tmp/ (removed after success)
    <store>/.memdock-store the marker that makes the folder memdock's own
    <store>/backend        the name of the backend whose memory it holds, written by its first write

A folder becomes a store only if it is new or empty (the marker is written then), already carries the marker,
or is a store an older memdock made (nothing in it but the names above, and a ledger, a lock or memdock-named
run dirs to show it was used; the marker is added). Any other folder is refused: memdock deletes old run dirs
under work/ and gives the adapter write access to data/, so it must never adopt a user's folder.
Pruning removes only entries named like `new_work_dir`'s run dirs.

A store on a read-only filesystem still answers reads: work dirs then go to the system temp dir, and
writes fail up front with the reason.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

from filelock import FileLock, Timeout

from ..atomic import temp_pattern, write_atomic
from ..config import memdock_home
from ..errors import ConfigError, InvalidInputError, TransientError
from ..ids import digest
from .ledger import Ledger
from .store_backend import BACKEND_FILE, older_store_owner, other_backend, recorded_backend

KEEP_FAILED_RUNS = 20
MARKER = ".memdock-store"
MARKER_TEXT = "memdock store, format 1\n"
_OWN_NAMES = frozenset(
    {
        MARKER,
        BACKEND_FILE,
        "data",
        "work",
        "journal",
        "ledger.sqlite",
        "ledger.sqlite-wal",
        "ledger.sqlite-shm",
        "ledger.sqlite-journal",
        "write.lock",
        "write.lock.owner",
    }
)
_USED_SIGNS = ("ledger.sqlite", "write.lock")
_MARKER_BEING_WRITTEN = re.compile(temp_pattern(MARKER))
_RUN_DIR = re.compile(r"\d{8}T\d{6}-[a-z_]+-[0-9a-f]{8}")
_WORKER_DIR = re.compile(r"worker-[A-Za-z0-9_.-]+-[0-9a-f]{8}")


def _run_dir_name(label: str) -> str:
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{label}-{uuid.uuid4().hex[:8]}"


class Store:
    def __init__(self, root: str | os.PathLike[str]):
        self.root = Path(root).resolve()
        self.data_dir = self.root / "data"
        self.work_root = self.root / "work"
        self.ledger_path = self.root / "ledger.sqlite"
        self.journal_path = self.root / "journal"
        self.lock_path = self.root / "write.lock"

    def ensure(self) -> Store:
        self._claim()
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            self.work_root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if not self.data_dir.is_dir():
                raise ConfigError(f"cannot create the store at {self.root}: {exc.strerror}") from None
        if not os.access(self.work_root, os.W_OK):
            self.work_root = self._temp_work_root()
        return self

    def _claim(self) -> None:
        """Refuse a folder that is not memdock's own; mark a new, empty or older-memdock store as ours."""
        if (self.root / MARKER).is_file():
            return
        try:
            entries = sorted(p.name for p in self.root.iterdir())
        except FileNotFoundError:
            entries = []
        except NotADirectoryError:
            raise ConfigError(
                f"the store {self.root} is not a directory; choose a new or empty folder (--data-dir)",
                details={"store": str(self.root)},
            ) from None
        except OSError as exc:
            raise ConfigError(
                f"cannot read the store at {self.root}: {exc.strerror}", details={"store": str(self.root)}
            ) from None
        if entries and not self._older_store(entries) and not self._being_claimed(entries):
            foreign = next((n for n in entries if n not in _OWN_NAMES), None)
            why = f"it holds {foreign!r}" if foreign else "it has no memdock ledger, lock or run dirs"
            raise ConfigError(
                f"refusing to use {self.root} as a memdock store: it is not empty and not a memdock store ({why}, and "
                f"no {MARKER} marker). memdock deletes old run dirs under its work/ and lets the adapter write its "
                "data/, so it only uses a new or empty folder, or one it made. Nothing there was changed; choose "
                "another --data-dir.",
                details={"store": str(self.root)},
            )
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            write_atomic(self.root / MARKER, MARKER_TEXT.encode())
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise  # the callers' disk-full handling names the place
            if not entries:
                raise ConfigError(
                    f"cannot create the store at {self.root}: {exc.strerror}", details={"store": str(self.root)}
                ) from None
            # an older store on a read-only filesystem: recognised above, used unmarked for reads

    def _being_claimed(self, entries: list[str]) -> bool:
        """Another call (a thread or process opening the same new store at the same moment) is writing the
        marker: only our names and the marker's temp file are there. Found by the concurrent MCP test."""
        if (self.root / MARKER).is_file():
            return True
        ours = [n for n in entries if n in _OWN_NAMES or _MARKER_BEING_WRITTEN.fullmatch(n)]
        return len(ours) == len(entries) and any(_MARKER_BEING_WRITTEN.fullmatch(n) for n in entries)

    def _older_store(self, entries: list[str]) -> bool:
        """A store made by a memdock from before the marker: only its names, and signs that memdock used it
        (a ledger, a lock, memdock-named run dirs, or its place: a default store under MEMDOCK_HOME/stores)."""
        if any(n not in _OWN_NAMES for n in entries):
            return False
        if any(n in entries for n in _USED_SIGNS):
            return True
        work = self.root / "work"
        try:
            runs = [p.name for p in work.iterdir()] if work.is_dir() and not work.is_symlink() else []
        except OSError:
            return False
        if not all(_RUN_DIR.fullmatch(n) or _WORKER_DIR.fullmatch(n) for n in runs):
            return False
        return bool(runs) or self.root.parent == (memdock_home() / "stores").resolve()

    def _temp_work_root(self) -> Path:
        root = Path(tempfile.gettempdir()) / f"memdock-work-{digest(str(self.root), length=12)}"
        root.mkdir(mode=0o700, exist_ok=True)
        return root

    def check_writable(self) -> None:
        """Raise a clear error when this store cannot be written (read-only filesystem, no permission)."""
        for path in (self.root, self.data_dir):
            if path.exists() and not os.access(path, os.W_OK):
                reason = "read-only filesystem" if _read_only_fs(path) else "permission denied"
                raise ConfigError(
                    f"the store at {self.root} is not writable ({reason}); index, prepare and delete "
                    "need to write there. Reads still work.",
                    details={"store": str(self.root)},
                )

    def new_work_dir(self, label: str) -> Path:
        d = self.work_root / _run_dir_name(label)
        (d / "tmp").mkdir(parents=True)
        return d

    def discard(self, work_dir: Path) -> None:
        shutil.rmtree(work_dir, ignore_errors=True)

    def prune(self, keep: int = KEEP_FAILED_RUNS) -> None:
        """Keep the KEEP newest failed run dirs. Only names `new_work_dir` makes are ever removed."""
        runs = sorted(
            (p for p in self.work_root.iterdir() if _RUN_DIR.fullmatch(p.name) and p.is_dir() and not p.is_symlink()),
            key=lambda p: p.name,
        )
        for old in runs[:-keep] if keep else runs:
            shutil.rmtree(old, ignore_errors=True)

    def backend(self) -> str | None:
        """The backend whose memory this store holds, as its first write recorded it (None before, or in a store
        an older memdock wrote)."""
        return recorded_backend(self.root)

    def bind(self, backend: str, store_files: Sequence[str] = ()) -> None:
        """Record BACKEND as this store's at its first write; refuse a write by another backend, whose data would
        sit beside the first one's in data/ while the ledger, shared by both, counted the records as stored. A
        store whose data/ already holds files and no record (an older memdock's) is bound by what its files say
        (`older_store_owner`, from the STORE_FILES the writer's adapter.json declares), or left unbound where they
        cannot tell: binding it to whichever wrote next could lock out its own."""
        recorded = self.backend()
        if recorded is None:
            held = sorted(p.name for p in self.data_dir.iterdir())
            if held and not older_store_owner(self.root, backend, store_files, held, self._ledger_store_files):
                return
            write_atomic(self.root / BACKEND_FILE, f"{backend}\n".encode())
        elif recorded != backend:
            raise ConfigError(other_backend(self.root, recorded, backend), details={"store": str(self.root)})

    def _ledger_store_files(self) -> list[str] | None:
        """The files the ledger noted as holding the backend's store at its last write (none for an older one);
        None when it counts no records (a first run that never finished: nothing of its could be lost). Opened
        as the write about to run opens it (the lock is held), so a damaged ledger is named, not a traceback."""
        if not self.ledger_path.exists():
            return None
        ledger = Ledger(self.ledger_path)
        try:
            return None if ledger.empty() else list(ledger.store_files())
        finally:
            ledger.close()

    @contextlib.contextmanager
    def write_lock(
        self, timeout: float = 10.0, backend: str | None = None, store_files: Sequence[str] = ()
    ) -> Iterator[None]:
        """Only one writer per store. A lock held past TIMEOUT is a clear, retryable error. BACKEND: the writer's
        backend, recorded as the store's or refused if the store holds another's (`bind`, with the STORE_FILES its
        adapter.json declares)."""
        self.ensure()
        self.check_writable()
        lock = FileLock(str(self.lock_path))
        owner = self.root / "write.lock.owner"
        try:
            lock.acquire(timeout=timeout)
        except Timeout:
            who = owner.read_text().strip() if owner.exists() else "another process"
            raise TransientError(
                f"{self.root} is locked by another writer ({who}); waited {timeout:g}s. Wait for it to finish and try "
                "again.",
                details={"lock": str(self.lock_path)},
            ) from None
        try:
            owner.write_text(f"pid {os.getpid()}")
            if backend is not None:
                self.bind(backend, store_files)
            yield
        finally:
            owner.unlink(missing_ok=True)
            lock.release()


def store_holding(path: str | os.PathLike[str]) -> Path | None:
    """The memdock store PATH is, or lies inside (its marker in PATH or a folder above), if any."""
    here = Path(os.path.realpath(path))
    for folder in (here, *here.parents):
        if (folder / MARKER).is_file():
            return folder
    return None


def refuse_output_in_store(out: str | os.PathLike[str]) -> None:
    """An output may not lie inside a store: with --force it could replace a journal segment, the memory itself."""
    inside = store_holding(out)
    if inside is not None:
        raise InvalidInputError(
            f"{out} is inside the memdock store {inside}; write the export to a folder outside any store"
        )


def _read_only_fs(path: Path) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
