"""docs/performance.md: every table of figures says, in the text of its section before it, the bench command that
printed it, and the page names the memdock version and commit the figures ran at."""

from __future__ import annotations

import re

from doc_blocks import ROOT

PAGE = ROOT / "docs" / "performance.md"
COMMAND = re.compile(r"`(?:[A-Z_]+=\S+ )*python bench/\w+\.py[^`]*`")


def sections(text: str) -> list[tuple[str, str]]:
    parts = re.split(r"^(##+ .*)$", text, flags=re.M)
    return list(zip(parts[1::2], parts[2::2]))


def tables(body: str) -> list[int]:
    """Offsets in BODY where a table with a figure in it starts."""
    starts = []
    for m in re.finditer(r"(?:^\|.*\|[ \t]*\n)+", body, re.M):
        if re.search(r"\|\s*[\d.,]+\s*(?:%|×|x)?\s*\|", m.group(0)):
            starts.append(m.start())
    return starts


def test_every_table_names_the_command_that_printed_it():
    text = PAGE.read_text(encoding="utf-8")
    unlabelled = []
    for heading, body in sections(text):
        for start in tables(body):
            if not COMMAND.search(body[:start]):
                unlabelled.append(heading)
    assert not unlabelled, f"{PAGE.name}: tables without the command that prints them, under: {unlabelled}"
    assert sum(len(tables(b)) for _, b in sections(text)) >= 8, "the page holds the benches' tables"


def test_the_page_names_the_version_and_commit():
    text = PAGE.read_text(encoding="utf-8")
    assert re.search(r"memdock \d+\.\d+\.\d+", text) and re.search(r"commit `[0-9a-f]{7,40}`", text)


def test_a_table_without_its_command_is_caught():
    body = "Some words about a run.\n\n| a | b |\n|---|---:|\n| x | 1.5 |\n"
    assert tables(body) and not COMMAND.search(body[: tables(body)[0]])
