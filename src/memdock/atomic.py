"""Durable, atomic file replacement: temp file in the same directory, fsync, rename, fsync the directory."""

from __future__ import annotations

import os
import re

_CREATE_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def create_new(path: str | os.PathLike[str], mode: int = 0o666, *, dir_fd: int | None = None) -> int:
    """Open a file that did not exist, never through a link: safe in a directory someone else can write."""
    return os.open(path, _CREATE_NEW, mode, dir_fd=dir_fd)


def fsync_dir(path: str | os.PathLike[str]) -> None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_name(name: str) -> str:
    """The name `write_atomic` gives the temp file of NAME, beside it."""
    return f".{name}.tmp-{os.urandom(8).hex()}"


def temp_pattern(name: str) -> str:
    """A regular expression matching every temp name `temp_name(NAME)` can give (for cleaners of our leftovers)."""
    return rf"\.{re.escape(name)}\.tmp-[0-9a-f]{{16}}"


def write_atomic(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Readers see the old file or the new one, never a part. durable=False skips the fsyncs
    (for files that need not survive a power cut, such as a request or a result). The temp file has a random
    name and is created new, never through a link, so a hostile writer of the directory cannot redirect it."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    tmp = os.path.join(directory, temp_name(name))
    fd = create_new(tmp)
    try:
        with open(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if durable:
        fsync_dir(directory or ".")
