"""Which backend a store's memory belongs to: the `backend` file its first write leaves in the store's folder.

A store's data/ is one adapter's and its ledger counts what that adapter holds, so a store written by tantivy and
then by sqlite would hold two half memories under one ledger. Kept apart from `engine.store` so that `config`
(which `engine.store` imports) can read it when it picks a backend.
"""

from __future__ import annotations

import os
from pathlib import Path

BACKEND_FILE = "backend"


def recorded_backend(root: str | os.PathLike[str]) -> str | None:
    """The backend name ROOT's `backend` file records, if it has one."""
    try:
        with open(Path(root) / BACKEND_FILE, "rb") as f:
            name = f.read(1024).decode("utf-8", "replace").strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return name or None


def other_backend(root: Path, recorded: str, asked: str) -> str:
    """Why ASKED may not use the store at ROOT, which holds RECORDED's memory, and what to run instead."""
    return (
        f"the store at {root} holds a memory indexed by the {recorded} backend (recorded in {root / BACKEND_FILE}), "
        f"not {asked}: use it with --backend {recorded} (or without --backend), or copy it into {asked} with "
        f"`memdock migrate --backend {recorded} --data-dir {root} --to {asked} --to-data-dir NEW_FOLDER`"
    )
