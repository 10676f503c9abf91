"""`memdock add DIR` without `-f`: the format read from the files themselves, and said.

Each file is classed by its name and its first few kilobytes: `.jsonl` is jsonl, `.json` chat (LoCoMo-style),
`.md` a watercooler thread when it has a thread title (`# X — Thread`) or an `Entry:` line and markdown notes
otherwise, `.txt` an IRC log when most of its first lines are `[HH:MM] <nick> text`, plain text otherwise.
Other files (and LICENSE, COPYING, NOTICE files) are not counted. The format most files have is chosen; a tie
is refused (give `-f`). Files of another format are listed, since the chosen importer may skip them (they are
added with their own `-f`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInputError

ALIASES = {"markdown": "text", "md": "text", "locomo": "chat"}
"""Other names a user gives a format: markdown notes are the text importer's; LoCoMo files are chat JSON."""

READS = {
    "text": (".md", ".markdown", ".txt"),
    "watercooler": (".md",),
    "irc": (".txt",),
    "chat": (".json",),
    "jsonl": (".jsonl",),
}
"""The file names each importer reads in a folder (its `sources`)."""
SAMPLE_BYTES = 8192
MAX_FILES = 2000
_IRC_LINE = re.compile(r"^\[\d{2}:\d{2}\]\s+<[^>]+>")
_WATERCOOLER = re.compile(r"^(#\s+.*\s+—\s+Thread\s*|Entry:\s*\S.*\d{4}-\d{2}-\d{2}T\S+)$", re.MULTILINE)
_IRC_AUX = (".annotation.txt", ".raw.txt")
_LEGAL = ("license", "licence", "copying", "notice")  # a corpus's LICENSE.txt is not one of its notes
SHOWN = 3


@dataclass
class Detected:
    """The chosen FORMAT, the files counted per format, and the files of other formats (by format)."""

    format: str
    counts: Counter[str] = field(default_factory=Counter)
    others: dict[str, list[Path]] = field(default_factory=dict)
    capped: bool = False
    """Whether only the first MAX_FILES files were looked at (the counts are of those, not of the folder)."""

    def describe(self) -> str:
        label = "markdown/text notes" if self.format == "text" else self.format
        n = self.counts[self.format]
        counted = f"{n} of the first {MAX_FILES:,} file(s) looked at" if self.capped else f"{n} file(s)"
        said = f"format: {self.format} ({label}: {counted}); pass -f FORMAT to choose"
        for fmt, paths in self.others.items():
            shown = ", ".join(p.name for p in paths[:SHOWN]) + (", ..." if len(paths) > SHOWN else "")
            fate = f"read as {self.format}" if paths[0].suffix.lower() in READS[self.format] else "skipped"
            said += f"\n  also found {len(paths)} {fmt} file(s) ({shown}), {fate} here: add them apart with -f {fmt}"
        return said


def canonical(fmt: str) -> str:
    return ALIASES.get(fmt, fmt)


def classify(path: Path) -> str | None:
    """PATH's format, or None for a file no importer reads (or an IRC annotation beside its log)."""
    name = path.name.lower()
    if name.endswith(_IRC_AUX) or name.startswith(_LEGAL):
        return None
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".json":
        return "chat"
    if suffix not in (".md", ".markdown", ".txt"):
        return None
    try:
        with path.open("rb") as f:
            head = f.read(SAMPLE_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    if suffix == ".txt":
        lines = [line for line in head.splitlines()[:20] if line.strip()]
        if lines and sum(bool(_IRC_LINE.match(line)) for line in lines) * 2 >= len(lines):
            return "irc"
        return "text"
    return "watercooler" if _WATERCOOLER.search(head) else "text"


def _files(sources: Sequence[Path]) -> list[Path]:
    """The files of SOURCES, the first MAX_FILES + 1 at most (one more than are looked at: whether there are more)."""
    found: list[Path] = []
    for root in sources:
        if root.is_dir():
            files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))
            found.extend(files[: MAX_FILES + 1])
        elif root.is_file():
            found.append(root)
    return found[: MAX_FILES + 1]


def detect(sources: Sequence[str | Path]) -> Detected:
    """The format of SOURCES (files or folders), or an InvalidInputError naming what was found."""
    by_format: dict[str, list[Path]] = {}
    files = _files([Path(s) for s in sources])
    for path in files[:MAX_FILES]:
        fmt = classify(path)
        if fmt is not None:
            by_format.setdefault(fmt, []).append(path)
    if not by_format:
        raise InvalidInputError(
            f"no file memdock can read in {', '.join(map(str, sources))} (it reads .md, .txt, .json and .jsonl); "
            "give -f FORMAT for files named otherwise"
        )
    ranked = sorted(by_format.items(), key=lambda kv: -len(kv[1]))
    if len(ranked) > 1 and len(ranked[0][1]) == len(ranked[1][1]):
        tied = " and ".join(f"{len(paths)} {fmt}" for fmt, paths in ranked[:2])
        raise InvalidInputError(
            f"cannot tell the format: {tied} file(s) in equal numbers; give -f FORMAT (and add the others apart)"
        )
    chosen = ranked[0][0]
    counts = Counter({f: len(p) for f, p in by_format.items()})
    return Detected(chosen, counts, dict(ranked[1:]), capped=len(files) > MAX_FILES)
