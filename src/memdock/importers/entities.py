"""Deterministic entity extraction, no model: people and agents, files, code symbols, URLs, issue refs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from ..ids import digest

_URL = re.compile(r"https?://[^\s<>()\"'`\]]+[^\s<>()\"'`\].,;:!?]")
# Each pattern begins with its literal and looks behind it after: a pattern that begins with a look-behind is tried
# at every position of the text, one that begins with a literal is searched for it in C (same matches).
_MENTION = re.compile(r"@(?<![\w@/.]@)([A-Za-z][\w.-]{1,38}[A-Za-z0-9_])")
_ISSUE = re.compile(r"(?:#(?<![\w/&#]#)|GH-(?<![\w/&#]GH-))(\d{1,6})\b")
_PATH = re.compile(
    r"(?<![\w/:.@-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:py|js|ts|tsx|jsx|md|json|toml|yaml|yml|rs|go|java|c|h|cpp|sh|sql|txt|html|css))\b"
)
_EXTENSION = re.compile(r"\.(?:py|js|ts|tsx|jsx|md|json|toml|yaml|yml|rs|go|java|c|h|cpp|sh|sql|txt|html|css)\b")
"""A known extension after a dot. With a `/` (tested apart: a pattern that begins with an alternation is tried at
every position of the text, one that begins with a literal is searched for it in C), what every path holds."""
_SYMBOL = re.compile(r"`([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\(\))?)`")
_AGENT = re.compile(r"^\s*([A-Za-z][\w.-]*)(?:\s*\(([^)]*)\))?")


def _entity(kind: str, name: str) -> dict[str, Any]:
    return {
        "id": _entity_id(kind, name.lower() if kind in ("person", "agent") else name),
        "entity_type": kind,
        "name": name,
    }


@lru_cache(maxsize=1 << 16)
def _entity_id(kind: str, key: str) -> str:
    """An entity's id (kept: a corpus names the same people, files and issues over and over)."""
    return f"entity:{kind}:{digest(kind, key)}"


def author_entities(author: str) -> list[dict[str, Any]]:
    """'Claude (caleb)' is agent Claude acting for person caleb; a plain name is a person."""
    m = _AGENT.match(author or "")
    if not m:
        return []
    if m.group(2):
        return [_entity("agent", m.group(1)), _entity("person", m.group(2).strip())]
    return [_entity("person", m.group(1))]


_DOT_ALNUM = re.compile(r"\.[A-Za-z0-9]")
"""What every path holds: a dot before its extension's (or its dotted name's) first character."""


_SPACE = re.compile(r"\s")
_UP_TO_LAST_SPACE = re.compile(r".*\s", re.S)
"""The text up to its last space (the `.*` goes to the end in one step, then back a character at a time to it)."""


def _paths(text: str) -> list[str]:
    """`_PATH.findall(text)`, searched only in the words that hold a dot before a letter or digit (every path has
    one, and a path holds no space: the pattern's look-behind and `\\b` see a space beside a word as they see the
    text's ends, so the same matches, without trying the pattern at each position of the text). Each such word is
    found around its dot (found in C), not by splitting the text: a long note's other words are never split out.
    Either of the pattern's alternatives holds a `/` or a known extension after a dot (`_EXTENSION`): a word with
    neither (`e.g.`, `v1.2`) is not tried. (`\\s` is what `str.split` splits at: tests/unit/test_entity_paths.py.)"""
    found: list[str] = []
    end = -1  # the end of the last word searched
    for m in _DOT_ALNUM.finditer(text):
        at = m.start()
        if at < end:  # in the word just searched
            continue
        before = _UP_TO_LAST_SPACE.match(text, 0, at)
        after = _SPACE.search(text, at)
        end = after.start() if after else len(text)
        word = text[before.end() if before else 0 : end]
        if "/" in word or _EXTENSION.search(word):
            found += _PATH.findall(word)
    return found


@lru_cache(maxsize=1 << 12)
def _authored(author: str) -> tuple[tuple[str, str, str], ...]:
    """`author_entities(AUTHOR)` as (id, entity_type, name) each, kept: a corpus has few authors and many entries
    (each entry gets dicts of its own)."""
    return tuple((e["id"], e["entity_type"], e["name"]) for e in author_entities(author))


def extract_entities(entry: dict[str, Any]) -> Iterator[dict[str, Any]]:
    seen: set[str] = set()
    body = entry.get("body", "")
    found: list[dict[str, Any]] = []
    author = entry.get("author")
    if author:
        found += [{"id": i, "entity_type": kind, "name": name} for i, kind, name in _authored(author)]
    scrubbed = body
    if "/" in body and "://" in body:  # a character looked for first (memchr): the three in a row cost more
        found += [_entity("url", u) for u in _URL.findall(body)]
        scrubbed = _URL.sub(" ", body)
    # The character tests skip patterns that cannot match: each pattern's look-behind makes a full scan costly.
    if "@" in scrubbed:
        found += [_entity("person", m) for m in _MENTION.findall(scrubbed)]
    if "#" in scrubbed or ("G" in scrubbed and "GH-" in scrubbed):
        found += [_entity("issue", f"#{n}") for n in _ISSUE.findall(scrubbed)]
    if "/" in scrubbed or _EXTENSION.search(scrubbed):
        found += [_entity("file", p) for p in _paths(scrubbed)]
    if "`" in scrubbed:
        found += [_entity("symbol", s.removesuffix("()")) for s in _SYMBOL.findall(scrubbed) if not _PATH.fullmatch(s)]
    for ent in found:
        if ent["id"] not in seen:
            seen.add(ent["id"])
            yield ent
