"""How the CLI speaks: tables for people, JSON for pipelines, one-line errors on stderr."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn


def is_tty(stream: Any = None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def emit_json(data: Any) -> None:
    import orjson

    sys.stdout.write(
        orjson.dumps(
            data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_DATACLASS
        ).decode()
        + "\n"
    )


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if c not in (0x09, 0x0A)}


def shown(message: str) -> str:
    """MESSAGE with its control characters written out (`\\x1b`): a file name or a note in a message must not
    drive the terminal (clear it, retitle it, hide what follows)."""
    return message.translate(_CONTROL)


def error(message: str) -> None:
    prefix = "memdock: error: "
    sys.stderr.write(prefix + shown(message) + "\n")


def failed(exc: Any, as_json: bool) -> None:
    """A MemdockError said on stderr, and under --json also as one object on stdout:
    `{"error": {"category", "message", "details"}}` (the exit code is the error's, as without --json)."""
    error(str(exc))
    if as_json:
        emit_json({"error": {"category": exc.category, "message": exc.message, "details": exc.details}})


class JsonUsageParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors, under --json, are a JSON error object on stdout (exit 2 still)."""

    def error(self, message: str) -> NoReturn:
        emit_json({"error": {"category": "usage", "message": message, "details": {"usage": self.format_usage()}}})
        self.exit(2, f"{self.prog}: error: {message}\n")


def note(message: str) -> None:
    sys.stderr.write("memdock: " + shown(message) + "\n")


def warn(message: str) -> None:
    sys.stderr.write("memdock: warning: " + shown(message) + "\n")


def show_core_warnings() -> None:
    """Warnings the core logs (a broken adapter descriptor skipped, ...) reach a CLI user as `memdock: warning:`
    lines."""
    import logging

    class _StderrLines(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            (warn if record.levelno < logging.ERROR else error)(record.getMessage())

    logger = logging.getLogger("memdock")
    if not any(type(h).__name__ == "_StderrLines" for h in logger.handlers):
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
    """A one-line progress display on a terminal's stderr (percent, count, rate and ETA when the total is known);
    silent off a terminal or when quiet. Redrawn at most every REFRESH seconds, and at the end."""

    REFRESH = 0.1
    ETA_AFTER = (1.0, 0.01)  # seconds run and share done before an ETA is shown: the first frames' rate is noise

    def __init__(
        self,
        label: str,
        *,
        total: int | None = None,
        quiet: bool = False,
        unit: str = "",
        clock: Callable[[], float] = time.monotonic,
    ):
        self.label, self.total, self.unit, self.clock = label, total, unit, clock
        self.enabled = not quiet and is_tty(sys.stderr)
        self.started = clock()
        self._last = ""
        self._drawn = float("-inf")

    def update(self, done: int, total: int | None = None, note: str = "") -> None:
        if not self.enabled:
            return
        total = total if total is not None else self.total
        now = self.clock()
        if now - self._drawn < self.REFRESH and done != total:
            return
        text = self.line(done, total, now - self.started, note)
        if text != self._last:
            sys.stderr.write("\r\x1b[2K" + text[:200])
            sys.stderr.flush()
            self._last, self._drawn = text, now

    def line(self, done: int, total: int | None, elapsed: float, note: str = "") -> str:
        """`label: 42.0% 4.2/10.0 MB · 3.1 MB/s · ETA 2s note` (without a total: count and rate only)."""
        rate = done / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.label}:"]
        if total:
            parts.append(f"{100 * min(done, total) / total:5.1f}%")
            parts.append(f"{self._amount(done)}/{self._amount(total)}")
        else:
            parts.append(self._amount(done))
        if rate > 0:
            parts.append(f"· {self._amount(rate)}/s")
            if total and done < total and elapsed >= self.ETA_AFTER[0] and done >= self.ETA_AFTER[1] * total:
                parts.append(f"· ETA {_duration((total - done) / rate)}")
        if note:
            parts.append(note)
        return " ".join(parts)

    def _amount(self, n: float) -> str:
        if self.unit == "B":
            return f"{n / 1e6:,.1f} MB"
        return f"{n:,.0f}{' ' + self.unit if self.unit else ''}"

    def done(self) -> None:
        if self.enabled and self._last:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
            self._last = ""


def _duration(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


def hit_card(rank: int, hit: Any, width: int = 100) -> str:
    """A hit as a few readable lines: rank, score, kind and id; its first line; a snippet of the rest."""
    head = f"{rank}. {hit.score:.3f}  {hit.kind:<7} {hit.id}"
    if hit.provenance.get("thread_id") and hit.provenance["thread_id"] != hit.id:
        head += f"  in {hit.provenance['thread_id']}"
    if hit.provenance.get("source"):
        head += f"  from {hit.provenance['source']}"
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


def item_card(hit: Any) -> str:
    """One node or edge in full: kind and id, its text, its fields, and its edges one per line."""
    lines = [f"{hit.kind} {hit.id}", hit.text, ""]
    fields = {**hit.provenance, **(hit.extra or {})}
    edges = fields.pop("edges", None)
    width = max((len(k) for k in fields), default=0)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in fields.items() if not isinstance(v, (list, dict))]
    lines += [f"  {k.ljust(width)}  {json.dumps(v)}" for k, v in fields.items() if isinstance(v, (list, dict))]
    if isinstance(edges, list) and edges:
        lines += ["", f"  edges ({len(edges)}):"]
        for e in edges:
            arrow = "->" if e.get("direction") == "out" else "<-"
            lines.append(f"    {arrow} {e.get('type', '?'):<10} {e.get('other_id', '')}")
            if e.get("fact"):
                lines.append(f"       {textwrap.shorten(str(e['fact']), 110, placeholder='…')}")
    return "\n".join(lines).rstrip()
