"""Re-adding a folder of markdown notes (format inferred, as `memdock add DIR` does) or of watercooler threads:
unchanged files are not read again, a removed file's notes leave the memory, an edited one is read anew."""

from pathlib import Path

import pytest

from memdock import Memory
from memdock.cli.main import main
from memdock.importers import text as text_mod
from memdock.importers import watercooler as watercooler_mod

THREAD = """# {word} plans — Thread
Status: OPEN
Topic: {word}

---
Entry: Claude (ana) 2025-12-09T02:35:37Z
Role: planner
Type: Plan
Title: The {word} plan

the {word} plan says marker{word}
"""


def note_folder(folder: Path) -> Path:
    folder.mkdir()
    for word in ("quokka", "wombat", "numbat"):
        (folder / f"{word}.md").write_text(f"# About {word}\n\nthe {word} note says marker{word}\n")
    return folder


def thread_folder(folder: Path) -> Path:
    folder.mkdir()
    for word in ("quokka", "wombat", "numbat"):
        (folder / f"{word}.md").write_text(THREAD.format(word=word))
    return folder


def add(folder: Path, store: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["add", str(folder), "--data-dir", str(store), "-q"]) == 0
    out = capsys.readouterr()
    return out.out + out.err


def recalled(store: Path, text: str) -> list[str]:
    with Memory("sqlite", data_dir=store) as m:
        return [h.text for h in m.recall(text).hits]


@pytest.mark.parametrize(
    ("make", "importer"),
    [(note_folder, text_mod.TextImporter), (thread_folder, watercooler_mod.WatercoolerImporter)],
    ids=["notes", "watercooler"],
)
def test_re_adding_a_markdown_folder_reads_only_what_changed(tmp_path, capsys, monkeypatch, make, importer):
    src, store = make(tmp_path / "src"), tmp_path / "store"
    assert "sent" in add(src, store, capsys)
    assert recalled(store, "markerquokka") and recalled(store, "markerwombat")
    reads: list[Path] = []
    read = importer.read
    monkeypatch.setattr(importer, "read", lambda self, p, ctx: reads.append(p) or read(self, p, ctx))
    assert "unchanged since the last add: 3 file(s)" in add(src, store, capsys)
    assert reads == []
    (src / "wombat.md").unlink()
    edited = (src / "numbat.md").read_text().replace("markernumbat", "markerbilby")
    (src / "numbat.md").write_text(edited)
    said = add(src, store, capsys)
    assert "deleted 0" not in said
    assert reads == [src / "numbat.md"]
    assert recalled(store, "markerwombat") == []
    assert recalled(store, "markernumbat") == []
    assert any("markerbilby" in t for t in recalled(store, "markerbilby"))
    assert any("markerquokka" in t for t in recalled(store, "markerquokka"))
