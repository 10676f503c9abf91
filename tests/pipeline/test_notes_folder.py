"""A folder of markdown notes as a new user has one: added with no flags (the format read from the files and
said), each note found by the words of its title; `-f markdown` accepted; a folder mixing formats decided."""

import json
from pathlib import Path

import pytest
from test_cli_messages import memdock

from memdock.errors import InvalidInputError
from memdock.importers import detect as detect_mod
from memdock.importers.detect import classify, detect

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "threads"

NOTES = {
    "coffee.md": "# Office coffee machine\n\nDescale it every month; the filter is under the sink.\n",
    "standup.md": "# Standup\n\n## Monday\nAna fixed the flaky build.\n\n## Tuesday\nBo shipped the parser.\n",
    "ideas.txt": "Try a quieter keyboard for the open space.\n",
}


def notes(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name, text in NOTES.items():
        (folder / name).write_text(text)
    return folder


def test_a_notes_folder_is_added_without_flags_and_found_by_title(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    added = memdock("add", str(notes(tmp_path / "notes")), *store, home=tmp_path)
    assert added.returncode == 0, added.stderr
    assert "format: text (markdown/text notes: 3 file(s))" in added.stderr
    found = json.loads(memdock("recall", "coffee", "--json", *store, home=tmp_path).stdout)["hits"]
    assert found and found[0]["text"].startswith("Office coffee machine")
    monday = json.loads(memdock("recall", "monday", "--json", *store, home=tmp_path).stdout)["hits"]
    assert monday and "Ana fixed" in monday[0]["text"]
    quiet = json.loads(memdock("recall", "ideas", "--json", *store, home=tmp_path).stdout)["hits"]
    assert quiet and "quieter keyboard" in quiet[0]["text"], "a note without a heading is found by its file name"


def test_markdown_is_a_format_name(tmp_path):
    out = memdock(
        "add", str(notes(tmp_path / "notes")), "-f", "markdown", "--data-dir", str(tmp_path / "s"), home=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "format:" not in out.stderr, "a format given is not announced as chosen"


@pytest.mark.parametrize(
    "folder,expected",
    [
        ("irc/dev", "irc"),
        ("locomo", "chat"),
        ("watercooler_threads/fixtures", "watercooler"),
    ],
)
def test_the_real_corpora_are_recognised(folder, expected):
    path = DATA / folder
    if not path.exists():
        pytest.skip(f"{path} is not here")
    assert detect([path]).format == expected


def test_jsonl_and_the_fixture_threads_are_recognised(tmp_path):
    (tmp_path / "log.jsonl").write_text('{"text": "hi", "thread": "t"}\n')
    assert detect([tmp_path]).format == "jsonl"
    assert detect([FIXTURES]).format == "watercooler"
    (tmp_path / "chan.txt").write_text("[12:18] <ana> hello\n[12:19] <bo> hi there\n")
    assert classify(tmp_path / "chan.txt") == "irc"


def test_a_folder_mixing_formats_takes_the_most_and_names_the_rest(tmp_path):
    folder = notes(tmp_path / "mixed")
    (folder / "export.jsonl").write_text('{"text": "a line", "thread": "t"}\n')
    found = detect([folder])
    assert found.format == "text"
    said = found.describe()
    assert "also found 1 jsonl file(s) (export.jsonl), skipped here: add them apart with -f jsonl" in said
    out = memdock("add", str(folder), "--data-dir", str(tmp_path / "s"), home=tmp_path)
    assert out.returncode == 0 and "export.jsonl" in out.stderr


def test_a_folder_larger_than_what_is_looked_at_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(detect_mod, "MAX_FILES", 5)
    for i in range(6):
        (tmp_path / f"n{i}.md").write_text(f"# note {i}\n\nbody\n")
    said = detect([tmp_path]).describe()
    assert "(markdown/text notes: 5 of the first 5 file(s) looked at)" in said
    (tmp_path / "n5.md").unlink()
    assert "(markdown/text notes: 5 file(s))" in detect([tmp_path]).describe()


def test_a_tie_or_nothing_readable_is_refused_naming_what_was_found(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"text": "x", "thread": "t"}\n')
    (tmp_path / "b.json").write_text("[]")
    with pytest.raises(InvalidInputError, match="1 jsonl and 1 chat"):
        detect([tmp_path])
    empty = tmp_path / "pictures"
    empty.mkdir()
    (empty / "cat.png").write_bytes(b"\x89PNG")
    with pytest.raises(InvalidInputError, match="no file memdock can read"):
        detect([empty])
    out = memdock("add", str(empty), "--data-dir", str(tmp_path / "s"), home=tmp_path)
    assert out.returncode == 4 and "no file memdock can read" in out.stderr


def test_a_heading_is_found_with_the_format_given_too(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("add", str(notes(tmp_path / "notes")), "-f", "text", *store, home=tmp_path).returncode == 0
    found = json.loads(memdock("recall", "coffee", "--json", *store, home=tmp_path).stdout)["hits"]
    assert found and "Descale it every month" in found[0]["text"]


def test_a_remembered_title_is_found(tmp_path):
    from memdock import Memory

    with Memory(data_dir=tmp_path / "store") as memory:
        memory.remember("Descale it every month.", title="Office coffee machine")
        assert memory.recall("coffee").hits
