"""The ledger: a re-run sends only what changed and deletes what vanished (through a real adapter)."""

import shutil

import pytest

from memdock.chunking import chunk_bundle
from memdock.importers.pipeline import import_corpus
from memdock.registry import Registry
from memdock.runner.backend import SubprocessBackend

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="node-grep needs Node.js")

THREAD = """# t — Thread
Status: OPEN

---
Entry: Ana 2025-01-01T00:00:00Z
Title: one

alpha apples

---
Entry: Bo 2025-01-01T01:00:00Z
Title: two

bravo bananas

---
Entry: Cy 2025-01-01T02:00:00Z
Title: three

charlie cherries
"""


def build(tmp_path, text, name):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "t.md").write_text(text)
    import_corpus([src / "t.md"], "watercooler", tmp_path / f"c-{name}")
    chunk_bundle(tmp_path / f"c-{name}", tmp_path / f"k-{name}")
    return tmp_path / f"k-{name}"


def test_rerun_sends_changes_and_deletes_what_vanished(tmp_path):
    b = SubprocessBackend(Registry().get("node-grep"), tmp_path / "store")
    first = b.index(build(tmp_path, THREAD, "1"))
    assert first.details["sent"]["chunk"] == 3
    again = b.index(build(tmp_path, THREAD, "1b"))
    assert again.details["sent"] == {} and again.skipped > 0
    edited = THREAD.replace("bravo bananas", "bravo blueberries").replace(
        "\n---\nEntry: Cy 2025-01-01T02:00:00Z\nTitle: three\n\ncharlie cherries\n", "\n"
    )
    third = b.index(build(tmp_path, edited, "2"))
    assert third.details["sent"]["chunk"] == 1
    assert third.deleted > 0
    assert [h.text.split("\n")[-1] for h in b.query("blueberries").hits] == ["bravo blueberries"]
    assert b.query("bananas").hits == [] and b.query("cherries").hits == []
    assert b.query("apples").hits
