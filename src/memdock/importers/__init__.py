"""Importers turn source files into a corpus bundle: threads, entries, structural edges and entities."""

from __future__ import annotations

import importlib
from typing import Any

from .base import ImportContext, Importer, ParsedThread

IMPORTERS: dict[str, tuple[str, str]] = {
    "watercooler": ("watercooler", "WatercoolerImporter"),
    "jsonl": ("jsonl", "JsonlImporter"),
    "chat": ("chat", "ChatImporter"),
    "irc": ("irc", "IrcImporter"),
    "text": ("text", "TextImporter"),
}
"""Each format's importer, as (module of this package, class): a run imports only the one it reads with (the CLI's
start is on every `memdock add`)."""


def importer_class(name: str) -> type:
    """The importer class of format NAME (a canonical name, a key of IMPORTERS)."""
    module, cls = IMPORTERS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)


def get_importer(name: str, **options: Any) -> Importer:
    from ..errors import ConfigError
    from .detect import canonical

    name = canonical(name)
    if name not in IMPORTERS:
        raise ConfigError(f"unknown format {name!r}; choose one of {', '.join(IMPORTERS)}")
    cls = importer_class(name)
    return cls(**options) if options else cls()


__all__ = ["IMPORTERS", "ImportContext", "Importer", "ParsedThread", "get_importer", "importer_class"]
