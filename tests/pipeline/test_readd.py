"""Re-adding a source is cheap and exact: unchanged files are not read again, a file that left the folder leaves the
memory, a file that changes while it is imported is read again next time; two adds at once lose nothing."""

import os
import subprocess
import sys
from pathlib import Path

import orjson

from memdock import Memory
from memdock.cli.main import main
from memdock.importers import jsonl as jsonl_mod


def notes(folder: Path, n: int = 3, word: str = "quokka") -> Path:
    folder.mkdir(exist_ok=True)
    for i in range(n):
        line = {"id": f"{word}{i}", "thread": f"{word}-{i}", "text": f"the {word} number {i} likes marker{word}{i}"}
        (folder / f"f{i}.jsonl").write_bytes(orjson.dumps(line) + b"\n")
    return folder


def add(folder: Path, store: Path, capsys) -> str:
    capsys.readouterr()
    assert main(["add", str(folder), "-f", "jsonl", "--data-dir", str(store), "-q"]) == 0
    out = capsys.readouterr()
    return out.out + out.err


def recalled(store: Path, text: str) -> list[str]:
    with Memory("sqlite", data_dir=store) as m:
        return [h.text for h in m.recall(text).hits]


def test_an_unchanged_source_is_not_read_again_even_when_touched(tmp_path, capsys, monkeypatch):
    src, store = notes(tmp_path / "src"), tmp_path / "store"
    assert "sent" in add(src, store, capsys)
    reads: list[Path] = []
    read = jsonl_mod.JsonlImporter.read
    monkeypatch.setattr(jsonl_mod.JsonlImporter, "read", lambda self, p, ctx: reads.append(p) or read(self, p, ctx))
    os.utime(src / "f1.jsonl", ns=(1, 1))  # the same bytes at another mtime
    assert "unchanged since the last add: 3 file(s)" in add(src, store, capsys)
    assert reads == []
    (src / "f2.jsonl").write_bytes(orjson.dumps({"id": "w", "thread": "quokka-2", "text": "a walrus"}) + b"\n")
    assert "sent" in add(src, store, capsys)
    assert reads == [src / "f2.jsonl"]
    assert recalled(store, "walrus") == ["a walrus"] and recalled(store, "markerquokka0")


def test_a_file_removed_from_a_re_added_folder_is_no_longer_recalled(tmp_path, capsys):
    src, store = notes(tmp_path / "src"), tmp_path / "store"
    add(src, store, capsys)
    assert recalled(store, "markerquokka1")
    (src / "f1.jsonl").unlink()
    assert "deleted 0" not in add(src, store, capsys)
    assert recalled(store, "markerquokka1") == []
    assert recalled(store, "markerquokka0") and recalled(store, "markerquokka2")
    other = notes(tmp_path / "other", word="wombat")  # another source's records are not this source's to prune
    add(other, store, capsys)
    (src / "f0.jsonl").unlink()
    add(src, store, capsys)
    assert recalled(store, "markerquokka0") == [] and recalled(store, "markerwombat0")


def test_a_source_file_that_changes_while_it_is_imported_is_read_again_next_time(tmp_path, capsys, monkeypatch):
    src, store = notes(tmp_path / "src"), tmp_path / "store"
    read = jsonl_mod.JsonlImporter.read

    def racing(self, path, ctx):
        yield from read(self, path, ctx)
        if path.name == "f1.jsonl":  # written to after the importer read it, before the run ends
            with open(path, "ab") as f:
                f.write(orjson.dumps({"id": "late", "thread": "quokka-1", "text": "a late platypus"}) + b"\n")

    monkeypatch.setattr(jsonl_mod.JsonlImporter, "read", racing)
    assert "f1.jsonl: changed while it was imported" in add(src, store, capsys)
    monkeypatch.undo()
    assert recalled(store, "platypus") == []
    out = add(src, store, capsys)
    assert "unchanged since" not in out and "sent" in out
    assert recalled(store, "platypus") == ["a late platypus"]
    assert "unchanged since the last add: 3 file(s)" in add(src, store, capsys)


def test_two_adds_on_one_store_at_once_lose_nothing(tmp_path):
    store = tmp_path / "store"
    sources = [notes(tmp_path / w, n=20, word=w) for w in ("emu", "ibis")]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "memdock", "add", str(s), "-f", "jsonl", "--data-dir", str(store), "-q"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for s in sources
    ]
    outcomes = [(r.wait(timeout=600), r.stderr.read().decode()) for r in runs]  # type: ignore[union-attr]
    for (code, err), src in zip(outcomes, sources):
        if code != 0:  # refused while the other held the store: says so, and a second try completes
            assert "lock" in err.lower() or "busy" in err.lower(), err
            assert main(["add", str(src), "-f", "jsonl", "--data-dir", str(store), "-q"]) == 0
    for word in ("emu", "ibis"):
        for i in (0, 19):
            assert recalled(store, f"marker{word}{i}"), (word, i)
    with Memory("sqlite", data_dir=store) as m:
        assert sum(m.threads().values()) == 40
