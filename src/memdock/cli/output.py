"""How the CLI speaks: tables for people, JSON for pipelines, one-line errors on stderr."""

from __future__ import annotations

import logging
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

import orjson


def is_tty(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def emit_json(data: Any) -> None:
    sys.stdout.write(
        orjson.dumps(
            data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_DATACLASS
        ).decode()
        + "\n"
    )


def error(message: str) -> None:
    prefix = "memdock: error: "
    sys.stderr.write(prefix + message + "\n")


def warn(message: str) -> None:
    sys.stderr.write("memdock: warning: " + message + "\n")


class _StderrLines(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        (warn if record.levelno < logging.ERROR else error)(record.getMessage())


def show_core_warnings() -> None:
    """Warnings the core logs (a broken adapter descriptor skipped, ...) reach a CLI user as `memdock: warning:`
    lines."""
    logger = logging.getLogger("memdock")
    if not any(isinstance(h, _StderrLines) for h in logger.handlers):
        handler = _StderrLines(logging.WARNING)
        logger.addHandler(handler)
        logger.propagate = False


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    width = max(20, (os.get_terminal_size().columns if is_tty() else 160))
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    budget = width - 2 * (len(headers) - 1)
    while sum(widths) > budget and max(widths) > 12:
        widths[widths.index(max(widths))] -= 1

    def fmt(r: list[str]) -> str:
        return "  ".join((c if len(c) <= w else c[: w - 1] + "…").ljust(w) for c, w in zip(r, widths)).rstrip()

    lines = [fmt(cells[0]), "  ".join("-" * w for w in widths)]
    lines += [fmt(r) for r in cells[1:]]
    return "\n".join(lines)


class Progress:
    """A one-line progress display on a terminal's stderr; silent otherwise or when quiet."""

    def __init__(self, label: str, *, total: int | None = None, quiet: bool = False):
        self.label, self.total = label, total
        self.enabled = not quiet and is_tty(sys.stderr)
        self._last = ""

    def update(self, done: int, total: int | None = None, note: str = "") -> None:
        if not self.enabled:
            return
        total = total if total is not None else self.total
        text = f"{self.label}: {done}" + (f"/{total}" if total else "") + (f" {note}" if note else "")
        if text != self._last:
            sys.stderr.write("\r\x1b[2K" + text[:200])
            sys.stderr.flush()
            self._last = text

    def done(self) -> None:
        if self.enabled and self._last:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()


def hit_card(rank: int, hit: Any, width: int = 100) -> str:
    """A hit as a few readable lines: rank, score, kind and id; its first line; a snippet of the rest."""
    head = f"{rank}. {hit.score:.3f}  {hit.kind:<7} {hit.id}"
    if hit.provenance.get("thread_id") and hit.provenance["thread_id"] != hit.id:
        head += f"  in {hit.provenance['thread_id']}"
    first, _, rest = hit.text.partition("\n")
    if hit.name and hit.name not in first:
        first, rest = hit.name, hit.text
    lines = [head, "   " + textwrap.shorten(first, width - 3, placeholder="…")]
    body = " ".join(rest.split())
    if body:
        lines += textwrap.wrap(
            textwrap.shorten(body, 2 * (width - 3), placeholder="…"),
            width - 3,
            initial_indent="   ",
            subsequent_indent="   ",
        )
    return "\n".join(lines)
