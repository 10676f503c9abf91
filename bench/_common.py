"""The set-up the bench scripts share: the repository's folders they import from, put on sys.path.

A script runs as `python bench/NAME.py`, so bench/ is already first on sys.path and `from _common import ...`
works before memdock itself is importable from src/.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def on_path(*folders: str) -> Path:
    """Insert ROOT/FOLDER at the front of sys.path for each FOLDER in turn (so the last one named comes first, as
    successive `sys.path.insert(0, ...)` calls would); returns ROOT."""
    for folder in folders:
        path = str(ROOT / folder)
        if path in sys.path:
            sys.path.remove(path)
        sys.path.insert(0, path)
    return ROOT
