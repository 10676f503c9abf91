"""README.md is what a newcomer reads whole: at most 200 lines, opening with the two set-up commands, adding a
notes folder (no flags) on its first screen, and every link in it leads to a file that exists (the docs site
checks its own links with `mkdocs build --strict`)."""

from __future__ import annotations

import re

from doc_blocks import ROOT, blocks

README = ROOT / "README.md"
MAIN_JOB = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && memdock add fixtures/threads -f watercooler"
    ' && memdock recall "why was the search endpoint slow" -n 3 && memdock search facts "migrate_v2" -n 2'
)
TEST_SUITE = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' && python -m pytest -q"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_at_most_200_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 200


def test_the_readme_opens_with_the_two_commands():
    first, second = (b.body.splitlines() for b in blocks("README.md")[:2])
    assert MAIN_JOB in first, "the first block runs the main job on the default backend"
    assert TEST_SUITE in second, "the second block runs the whole test suite"


def test_the_first_screen_adds_a_notes_folder_with_no_flags():
    first_screen = README.read_text(encoding="utf-8").splitlines()[:60]
    assert "memdock add notes" in [line.split("#")[0].strip() for line in first_screen], (
        "a newcomer sees their own notes folder added, the format read from the files (issue: no -f needed)"
    )


def test_every_relative_link_leads_to_a_file():
    text = README.read_text(encoding="utf-8")
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    assert targets, "the README links its documentation"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"
