"""The fenced code blocks of a Markdown page, with the `<!-- docs-test: ... -->` mark written just before each.

A mark is how a page says what the docs tests do with a block: `skip (reason)` (a command that installs from the
package index, starts a server, or runs the whole suite) or `installed (reason)` (a set-up line whose
`python3 -m venv ... && pip install ... &&` prefix is left out, since the test runs where memdock is installed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_BLOCK = re.compile(
    r"(?:<!--\s*docs-test:\s*(?P<mark>.*?)\s*-->[ \t]*\n)?^```(?P<lang>[\w-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$",
    re.S | re.M,
)
SHELL = {"bash", "sh", "shell", "console"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    mark: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def skipped(self) -> bool:
        return self.mark.startswith("skip")


def blocks(page: str, root: Path = ROOT) -> list[Block]:
    text = (root / page).read_text(encoding="utf-8")
    found = []
    for m in _BLOCK.finditer(text):
        line = text.count("\n", 0, m.start("lang")) + 1
        found.append(Block(page, line, m["lang"], m["body"], (m["mark"] or "").strip()))
    return found


def markdown_pages() -> list[Path]:
    """README.md, CONTRIBUTING.md, CHANGELOG.md and every page under docs/: the user documentation."""
    pages = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md")]
    return [p for p in pages if p.exists()] + sorted((ROOT / "docs").rglob("*.md"))
