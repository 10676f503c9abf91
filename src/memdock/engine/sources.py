"""Re-adding a source: which of its files changed since the last run, which left it, which can be skipped.

The ledger keeps, per source (an origin, see `memdock.bundle.source`) and per file, its size, mtime, sha256 and
the threads its records went to. A file whose size and mtime are unchanged is skipped unread; one whose mtime
moved but whose bytes hash the same is skipped too. The records of skipped files are carried into the run as
seen; the threads of files that left the source are pruned with the run's own (only that source's records, by
the usual origin rules). A file that changes while it is imported is imported as read, with a warning, and not
recorded, so the next run reads it again. A bundle given to `memdock index` is kept the same way, whole: an
unchanged one is not read (`bundle_plan`).
"""

from __future__ import annotations

import hashlib
import os
import stat as stat_mode
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

_BLOCK = 1 << 20


@dataclass
class FileState:
    size: int
    mtime_ns: int
    sha256: bytes
    threads: list[str] = field(default_factory=list)


def stat(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def sha256(path: Path) -> bytes:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
            h.update(block)
    return h.digest()


def _importable(key: str) -> bool:
    """A regular file with a UTF-8 name: the importer reads only those, and names and skips the others (so a FIFO
    or a link to a device is never opened here either)."""
    try:
        key.encode()
        return stat_mode.S_ISREG(os.stat(key).st_mode)
    except (UnicodeEncodeError, OSError):
        return False


@dataclass
class Plan:
    """What a re-add of a source does with its files."""

    origin: str
    skip: dict[Path, FileState] = field(default_factory=dict)  # unchanged: not read, their records carried
    read: dict[Path, FileState] = field(default_factory=dict)  # new or changed: imported (threads filled after)
    left: list[str] = field(default_factory=list)  # threads of files no longer in the source, to prune

    @property
    def carried(self) -> list[str]:
        return sorted({t for f in self.skip.values() for t in f.threads})

    def files(self) -> dict[str, FileState]:
        """Every file of the source as this run leaves it (a file that changed while read is not among them)."""
        return {str(p): f for p, f in {**self.skip, **self.read}.items() if f.sha256}


def plan(origin: str, paths: Iterable[Path], before: dict[str, FileState]) -> Plan:
    """Sort PATHS (every file the source holds now) against BEFORE, the ledger's record of the last run."""
    out = Plan(origin)
    now: set[str] = set()
    for path in paths:
        key = os.path.realpath(path)
        if not _importable(key):
            continue
        now.add(key)
        try:
            size, mtime = stat(path)
            old = before.get(key)
            if old is not None and (old.size, old.mtime_ns) == (size, mtime) and old.sha256:
                out.skip[Path(key)] = old
                continue
            digest = sha256(path)
        except OSError:
            continue  # the importer reports a file it cannot read
        if old is not None and old.size == size and old.sha256 == digest:
            out.skip[Path(key)] = FileState(size, mtime, digest, old.threads)
        else:
            out.read[Path(key)] = FileState(size, mtime, digest)
    changed = [f for key, f in before.items() if key not in now or Path(key) in out.read]
    out.left = sorted({t for f in changed for t in f.threads})  # a thread still there is seen, so not pruned
    return out


def bundle_plan(origin: str, manifest: Path, parts: Iterable[tuple[Path, str]], before: dict[str, FileState]) -> Plan:
    """A re-index of the bundle whose manifest is MANIFEST (PARTS: the file that holds each part, and the sha256 the
    manifest declares for it) against BEFORE: every file skipped when none changed, else every file read (an index
    reads a bundle whole), none left (it prunes by the threads it holds).

    The manifest is taken at its own sha256 and each part at the one the manifest declares (the reader checks a
    part against it as it reads, so no part is hashed here: on a first index of 100 MB that would be 0.2 s of
    CPU). A part unchanged in size and mtime is taken as unchanged, as a source file is (`plan`)."""
    now: dict[Path, FileState] = {}
    try:
        now[Path(os.path.realpath(manifest))] = FileState(*stat(manifest), sha256(manifest))
        for path, declared in parts:
            now[Path(os.path.realpath(path))] = FileState(*stat(path), declared.encode())
    except OSError:  # the index names what it cannot read
        return Plan(origin)
    if {str(p): (f.size, f.mtime_ns, f.sha256) for p, f in now.items()} == {
        p: (f.size, f.mtime_ns, f.sha256) for p, f in before.items()
    }:
        return Plan(origin, skip=now)
    return Plan(origin, read=now)


def settle(p: Plan, threads: dict[Path, list[str]]) -> list[Path]:
    """Note the THREADS each read file's records went to; returns the files that changed while they were read
    (left unrecorded, so the next run reads them again)."""
    moved = []
    for path, state in p.read.items():
        state.threads = sorted(set(threads.get(path, [])))
        try:
            unchanged = stat(path) == (state.size, state.mtime_ns) and sha256(path) == state.sha256
        except OSError:
            unchanged = False
        if not unchanged:
            state.sha256 = b""
            moved.append(path)
    return moved
