"""Which backend a store's memory belongs to: the `backend` file its first write leaves in the store's folder.

A store's data/ is one adapter's and its ledger counts what that adapter holds, so a store written by tantivy and
then by sqlite would hold two half memories under one ledger. Kept apart from `engine.store` so that `config`
(which `engine.store` imports) can read it when it picks a backend.

The file is read as untrusted: memdock writes only an adapter's name there (adapter.json's `name` pattern), so
anything else (a directory, a link, a FIFO, an empty file, a path) is refused naming the file, never taken as
a backend to run nor as "no backend yet" (which would let the next write take the store over).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import ConfigError
from ..untrusted import NotRegularFile, open_regular, read_upto

BACKEND_FILE = "backend"
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")  # adapter.schema.json's `name`


def recorded_backend(root: str | os.PathLike[str]) -> str | None:
    """The backend name ROOT's `backend` file records, if it has one (None: no file, a store not yet bound)."""
    path = Path(root) / BACKEND_FILE
    try:
        with open_regular(path) as (fd, _):
            text = b"".join(read_upto(fd, 1024)).decode("utf-8", "replace").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFile as exc:
        raise _damaged(path, f"it is {exc.kind}") from None
    except OSError as exc:
        raise _damaged(path, exc.strerror or str(exc)) from None
    if not _NAME.fullmatch(text):
        raise _damaged(path, f"it holds {text[:80]!r}, not a backend's name")
    return text


def _damaged(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"cannot tell which backend the store at {path.parent} belongs to from {path} ({why}): memdock writes the "
        "name of the backend that first wrote the store there; write that name into it (e.g. `sqlite`), or remove "
        "it if the store is new (its next write records it again)",
        details={"file": str(path)},
    )


def other_backend(root: Path, recorded: str, asked: str, source: str | None = None) -> str:
    """Why ASKED (named by SOURCE: --backend, MEMDOCK_BACKEND or a config file) may not use the store at ROOT,
    which holds RECORDED's memory, and what to run instead."""
    named = f"{asked} (from {source})" if source else asked
    instead = f"--backend {recorded}" + (" (or without --backend)" if source == "--backend" else "")
    return (
        f"the store at {root} holds a memory indexed by the {recorded} backend (recorded in {root / BACKEND_FILE}), "
        f"not {named}: use it with {instead}, or copy it into {asked} with "
        f"`memdock migrate --backend {recorded} --data-dir {root} --to {asked} --to-data-dir NEW_FOLDER`"
    )


def older_store_owner(
    root: Path, backend: str, store_files: Sequence[str], held: Sequence[str], noted: Callable[[], Sequence[str] | None]
) -> bool:
    """Whether the files HELD in the data/ of a store an older memdock wrote (no `backend` file) are BACKEND's,
    which names STORE_FILES in its adapter.json: True when the first of them (in every store it writes) is there,
    or a file named after it (its SQLite `-wal`, `-shm` or `-journal`, a load's `.loading`, a copy moved aside as
    `.corrupt`), or the ledger noted it (NOTED, read only when needed: a store the backend lost), or the ledger
    counts no records at all (NOTED gives None: a first run left data/ unfinished); False when BACKEND names none
    (nothing tells). A backend that names its files and finds none of them would write a second store beside
    another backend's: refused, naming how to bind the store to the backend that wrote it."""
    if not store_files:
        return False
    first = store_files[0]  # in every store it writes (lost.py)
    if any(_named_after(name, first) for name in held):
        return True
    ledger_files = noted()
    if ledger_files is None:  # data/ holds what a first run left unfinished: no record counted is lost
        return True
    if first in ledger_files:
        return True
    shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
    raise ConfigError(
        f"the store at {root} was written by an older memdock with another backend than {backend}: its data/ holds "
        f"{shown}, not {backend}'s {first}. Name the backend that wrote it with --backend (its next "
        f"write records it in {root / BACKEND_FILE}); if it is {backend}'s and its files were moved away, write "
        f"`{backend}` into {root / BACKEND_FILE}; or copy the memory into {backend} with `memdock migrate`",
        details={"store": str(root)},
    )


def _named_after(name: str, store_file: str) -> bool:
    """NAME is STORE_FILE, or a file named after it (`memory.sqlite-wal`, `memory.sqlite.loading`)."""
    return name == store_file or name.startswith((f"{store_file}-", f"{store_file}."))
