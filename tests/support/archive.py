"""Extracting a `git archive` of this repository into a test's folder."""

from __future__ import annotations

import tarfile
from pathlib import Path


def extract_all(tar: tarfile.TarFile, dest: Path) -> None:
    """With tarfile's data filter where this Python has it (3.12+, and the 3.10/3.11 security releases that added
    it: 3.11.2, Debian's python3, has none); the archive is git's own output of this repository either way."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
    else:
        tar.extractall(dest)
