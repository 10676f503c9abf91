"""Where the files that ship beside the code live: schemas and bundled adapters.

In a wheel they are packaged under memdock/_data; in a source checkout
(including an editable install) they sit at the repository root.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _first_existing(*candidates: Path) -> Path:
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[-1]


@cache
def schemas_dir(version: str = "v1") -> Path:
    return _first_existing(_PACKAGE / "_data" / "schemas" / version, _PACKAGE.parents[1] / "schemas" / version)


@cache
def bundled_adapters_dir() -> Path:
    return _first_existing(_PACKAGE / "_data" / "adapters", _PACKAGE.parents[1] / "adapters")
