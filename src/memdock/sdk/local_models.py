"""Finding a local model for an adapter: a directory, or one shipped in a `gt-<name>` package."""

from __future__ import annotations

import importlib
from pathlib import Path

from ..errors import ConfigError


def resolve_model_path(model: str) -> Path:
    """A directory as given, or the weights a `gt-<name>` package ships for offline use (e.g. all-MiniLM-L6-v2)."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    module = "gt_" + model.rsplit("/", 1)[-1].lower().replace("-", "_")
    try:
        return Path(importlib.import_module(module).get_model_path())
    except (ImportError, AttributeError):
        raise ConfigError(f"embedding_model {model!r}: no such directory, and no package {module} ships it") from None
