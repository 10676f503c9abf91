"""What every importer shares: the import context (ids, warnings, time), and the structural edges."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from .. import times
from ..ids import digest, slug
from ..sdk.implied import KEY, edge_id, edge_record
from ..sdk.implied import implied as implied_edges
from .entities import extract_entities

PROBLEM_LIMIT_PER_FILE = 20
MAX_ENTRY_BYTES = 5_000_000
"""The largest entry body, in UTF-8 bytes, that `remember` takes and the importers keep by default."""


@dataclass
class Warning_:
    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.file}{f':{self.line}' if self.line is not None else ''}: {self.message}"


@dataclass
class ParsedThread:
    """One thread as an importer read it: the thread record and its entries in order."""

    thread: dict[str, Any]
    entries: list[dict[str, Any]]
    replies: list[tuple[str, str]] = field(default_factory=list)  # (child entry id, parent entry id)


class Importer(Protocol):
    name: str

    def sources(self, path: Path) -> list[Path]: ...
    def read(self, path: Path, ctx: ImportContext) -> Iterator[ParsedThread]: ...


class ImportContext:
    """Ids, warnings and time for one import run."""

    def __init__(self, *, root: Path | None = None, now: datetime | None = None):
        self.root = root
        self.ingestion_time = to_rfc3339(now or datetime.now(UTC))
        self.warnings: list[Warning_] = []
        self.errors: list[Warning_] = []
        self._warned: dict[tuple[str, str], int] = {}
        self._files_with_problems: set[str] = set()
        self._entry_ids: set[int] = set()
        self._relative: dict[Path, str] = {}
        self._root_resolved: Path | None = None

    def warn(self, file: Path | str, line: int | None, message: str, *, kind: str | None = None) -> None:
        """Record a warning. With KIND, only the first of that kind in a file is kept and the rest counted;
        without, at most PROBLEM_LIMIT_PER_FILE per file are kept."""
        key = (str(file), kind or "")
        self._files_with_problems.add(str(file))
        n = self._warned[key] = self._warned.get(key, 0) + 1
        if n <= (1 if kind else PROBLEM_LIMIT_PER_FILE):
            self.warnings.append(Warning_(str(file), line, message))

    def error(self, file: Path | str, message: str) -> None:
        self._files_with_problems.add(str(file))
        self.errors.append(Warning_(str(file), None, message))

    def has_problems(self, file: Path | str) -> bool:
        """Whether a warning or an error names FILE."""
        return str(file) in self._files_with_problems

    def warning_lines(self) -> list[str]:
        out = [str(w) for w in self.warnings]
        for (file, kind), n in self._warned.items():
            shown = 1 if kind else PROBLEM_LIMIT_PER_FILE
            if n > shown:
                out.append(f"{file}: {n - shown} more warning(s){' of this kind: ' + kind if kind else ''}")
        return out

    def relative(self, path: Path) -> str:
        """PATH as a thread's source names it: relative to the import root (resolved once per file)."""
        known = self._relative.get(path)
        if known is None:
            known = self._relative[path] = self._resolve_relative(path)
        return known

    def _resolve_relative(self, path: Path) -> str:
        if self.root is None:
            return path.name
        if self._root_resolved is None:
            self._root_resolved = self.root.resolve()
        try:
            return str(path.resolve().relative_to(self._root_resolved))
        except ValueError:
            return path.name

    def thread_id(self, fmt: str, path: Path, *parts: str) -> str:
        key = self.relative(path)
        name = slug("-".join([path.stem, *parts]) if parts else path.stem, 60) or "thread"
        return f"thread:{name}:{digest(fmt, key, *parts, length=8)}"

    def claim_entry_id(self, wanted: str, *, thread_id: str, file: Path, line: int | None) -> str:
        """Entry ids are unique across a corpus. The first file to use an id keeps it; a later
        duplicate gets the id suffixed with a hash of its thread, and a warning names both."""
        h = hash(wanted)
        if h not in self._entry_ids:
            self._entry_ids.add(h)
            return wanted
        new = f"{wanted}~{digest(thread_id, wanted, length=8)}"
        self.warn(file, line, f"duplicate entry id {wanted} (already used by an earlier file); kept as {new}")
        self._entry_ids.add(hash(new))
        return new


_TZ_RE = re.compile(r"(Z|[+-]\d{2}:?\d{2})$", re.I)


to_rfc3339 = times.keeping_offset


def parse_time(text: str, ctx: ImportContext, file: Path, line: int | None) -> str | None:
    """An RFC 3339 string for TEXT; a time without a zone is taken as UTC, with a warning."""
    raw = text.strip()
    try:
        dt = times.parse(raw)
        zoned = times.has_zone(raw)
    except ValueError:
        ctx.warn(file, line, f"unreadable time {raw!r}; left empty", kind="unreadable time")
        return None
    if not zoned:
        ctx.warn(file, line, "time without a timezone; taken as UTC", kind="time without a timezone")
    return to_rfc3339(dt)


def edge(kind: str, source: str, target: str, thread_id: str | None, **extra: Any) -> dict[str, Any]:
    rec = {"id": edge_id(kind, source, target), "type": kind, "source_id": source, "target_id": target}
    if thread_id:
        rec["thread_id"] = thread_id
    for k, v in extra.items():
        if v is not None:
            rec[k] = v
    return rec


def structure(
    parsed: ParsedThread, ctx: ImportContext, *, implied: bool = False
) -> Iterable[tuple[str, dict[str, Any]]]:
    """The records of one thread: thread, entries, contains/follows/replies_to/mentions edges, entities. IMPLIED:
    each entry carries its contains, follows and mentions edges as `implied_edges` (payload 1.2.0, see
    `sdk/implied.py`) instead of as records."""
    t = parsed.thread
    tid = t["id"]
    now = ctx.ingestion_time
    yield "thread", t
    prev = None
    for e in parsed.entries:
        eid, when = e["id"], e.get("event_time")
        if implied:
            entities = list(extract_entities(e))
            e[KEY] = implied_edges(prev, [ent["id"] for ent in entities])
            yield "entry", e
            for ent in entities:
                yield "entity", ent
            prev = eid
            continue
        yield "entry", e
        yield "edge", _edge("contains", tid, eid, tid, None, now)
        if prev is not None:
            yield "edge", _edge("follows", eid, prev, tid, when, now)
        prev = eid
        for ent in extract_entities(e):
            yield "entity", ent
            yield "edge", _edge("mentions", eid, ent["id"], tid, when, now)
    for child, parent in parsed.replies:
        yield "edge", _edge("replies_to", child, parent, tid, None, now)


_edge = edge_record
"""`edge(kind, source, target, thread_id, event_time=when, ingestion_time=now)`, the same record (keys in the
same order) without the keyword arguments' dict: structure makes one or more per entry."""
