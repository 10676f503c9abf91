"""Every shell (and Python) block of README.md and docs/getting-started.md, run as a reader would: in order, in
one fresh temporary folder per page, with memdock's home inside it. A documented command that stops working
fails here, naming the page and line of its block."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doc_blocks import ROOT, SHELL, Block, blocks

PAGES = ["README.md", "docs/getting-started.md"]
MARKS = re.compile(r"^(skip|installed) \(.+\)$")
INSTALL = re.compile(r"^python3 -m venv \.venv && \. \.venv/bin/activate && pip install [^&]+&& ")


def runnable(block: Block) -> str | None:
    """The text to run, or None for a block that is not run (another language, or marked skip)."""
    if block.skipped or block.lang not in SHELL | {"python"}:
        return None
    if block.mark.startswith("installed"):
        lines = block.body.splitlines()
        stripped = [INSTALL.sub("", line) for line in lines]
        assert stripped != lines, f"{block.where}: marked installed, but no line starts with the install prefix"
        return "\n".join(stripped) + "\n"
    return block.body


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDOCK_")}
    env["MEMDOCK_HOME"] = str(folder / ".memdock-home")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_page(page: str, folder: Path, root: Path = ROOT) -> int:
    """Run a page's blocks in order in FOLDER (with a copy of the repository's fixtures); return how many ran."""
    shutil.copytree(ROOT / "fixtures", folder / "fixtures")
    env, ran = environment(folder), 0
    for block in blocks(page, root):
        code = runnable(block)
        if code is None:
            continue
        argv = ["bash", "-euo", "pipefail", "-c", code] if block.lang in SHELL else [sys.executable, "-c", code]
        out = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, (
            f"{block.where}: the documented block failed (exit {out.returncode})\n{code}\n"
            f"--- stdout\n{out.stdout[-3000:]}\n--- stderr\n{out.stderr[-3000:]}"
        )
        ran += 1
    return ran


@pytest.mark.parametrize("page", PAGES)
def test_every_command_block_of_the_page_runs(page, tmp_path):
    assert run_page(page, tmp_path) >= 2, f"{page}: fewer runnable blocks than expected; is the parser broken?"


@pytest.mark.parametrize("page", PAGES)
def test_every_mark_says_what_and_why(page):
    for block in blocks(page):
        if block.mark:
            assert MARKS.match(block.mark), f"{block.where}: mark {block.mark!r} is not `skip (why)`/`installed (why)`"


def test_a_failing_command_fails_the_page(tmp_path):
    """The runner is not blind: a block whose command fails (an unknown flag here) fails the test, naming it."""
    (tmp_path / "page.md").write_text(
        "```bash\nmemdock --version\n```\n\n```bash\nmemdock recall x --no-such-flag\n```\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(AssertionError, match=r"page\.md:5: the documented block failed \(exit 2\)"):
        run_page("page.md", work, root=tmp_path)


def test_skip_and_installed_marks_are_read(tmp_path):
    text = (
        "<!-- docs-test: skip (a server) -->\n```bash\nmemdock mcp\n```\n"
        "<!-- docs-test: installed (set-up) -->\n```bash\n"
        "python3 -m venv .venv && . .venv/bin/activate && pip install . && memdock --version\n```\n"
    )
    (tmp_path / "page.md").write_text(text)
    first, second = blocks("page.md", tmp_path)
    assert runnable(first) is None
    assert runnable(second) == "memdock --version\n"
