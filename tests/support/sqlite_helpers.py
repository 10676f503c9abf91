"""Helpers the sqlite tests import by name (a module of its own: `from conftest import` picks whichever
conftest.py pytest loaded first when several test folders run together)."""

import shutil
import subprocess
from pathlib import Path

from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend


def can_unshare() -> bool:
    """Whether `unshare -m` works here (root or user namespaces), to mount a small or read-only filesystem."""
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


def sqlite_backend(store: Path, **kw) -> SubprocessBackend:
    return SubprocessBackend(Registry().get("sqlite"), store, **kw)
