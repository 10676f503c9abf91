"""Importers turn source files into a corpus bundle: threads, entries, structural edges and entities."""

from __future__ import annotations

from typing import Any

from .base import ImportContext, Importer, ParsedThread
from .chat import ChatImporter
from .irc import IrcImporter
from .jsonl import JsonlImporter
from .text import TextImporter
from .watercooler import WatercoolerImporter

IMPORTERS: dict[str, type] = {
    "watercooler": WatercoolerImporter,
    "jsonl": JsonlImporter,
    "chat": ChatImporter,
    "irc": IrcImporter,
    "text": TextImporter,
}


def get_importer(name: str, **options: Any) -> Importer:
    from ..errors import ConfigError
    from .detect import canonical

    name = canonical(name)
    if name not in IMPORTERS:
        raise ConfigError(f"unknown format {name!r}; choose one of {', '.join(IMPORTERS)}")
    return IMPORTERS[name](**options) if options else IMPORTERS[name]()


__all__ = ["IMPORTERS", "ImportContext", "Importer", "ParsedThread", "get_importer"]
