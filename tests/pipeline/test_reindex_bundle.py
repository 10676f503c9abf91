"""`memdock index` of a bundle unchanged since its source's last index into the store reads nothing: the manifest's
hash and each part's size, mtime and declared hash are kept in the ledger (engine/sources.bundle_plan). A bundle
that changed, was touched, or whose store lost its database is indexed as before."""

import os
import shutil
from pathlib import Path

import orjson
import pytest
from support.records_factory import chunk

from memdock import Memory
from memdock.bundle import BundleWriter
from memdock.cli import pipeline as cli_pipeline
from memdock.cli.main import main


def write(bundle: Path, texts: list[str]) -> Path:
    """A chunks bundle of TEXTS at BUNDLE (replacing one there), with a source id of its own."""
    shutil.rmtree(bundle, ignore_errors=True)
    with BundleWriter(bundle, kind="chunks", metadata={"source_id": "tests:reindex"}) as w:
        for i, text in enumerate(texts):
            w.write("chunk", chunk(i, text, thread_id=f"thread:{i // 2}"))
    return bundle


TEXTS = ["the quokka crossed the bridge", "a wombat dug under the fence", "the ferry to the pier runs late"]


def index(bundle: Path, store: Path, capsys, *more: str) -> str:
    capsys.readouterr()
    assert main(["index", str(bundle), "--data-dir", str(store), "-q", *more]) == 0
    return capsys.readouterr().out


def segments(store: Path) -> list[str]:
    return sorted(p.name for p in (store / "journal").iterdir())


def recalled(store: Path, text: str) -> list[str]:
    with Memory("sqlite", data_dir=store) as m:
        return [h.text for h in m.recall(text).hits]


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "store"


def test_an_unchanged_bundle_is_not_read_again(tmp_path, store, capsys):
    bundle = write(tmp_path / "b", TEXTS)
    assert "sent 3 record(s)" in index(bundle, store, capsys)
    written = segments(store)
    assert "unchanged since the last index" in index(bundle, store, capsys)
    out = orjson.loads(index(bundle, store, capsys, "--json"))
    assert out["skipped"] == 3 and out["details"] == {"sent": {}, "bundle_unchanged": True}
    assert segments(store) == written
    assert recalled(store, "quokka") == [TEXTS[0]]


def test_a_forgotten_record_comes_back_from_its_unchanged_bundle(tmp_path, store, capsys):
    """`memdock forget` and a re-index leave what the bundle holds (tests/service/test_reindex_origins.py)."""
    bundle = write(tmp_path / "b", TEXTS)
    index(bundle, store, capsys)
    assert main(["forget", "chunk:1", "--data-dir", str(store)]) == 0
    assert recalled(store, "wombat") == []
    assert "sent 1 record(s)" in index(bundle, store, capsys)
    assert recalled(store, "wombat") == [TEXTS[1]]


def test_a_touched_part_is_read_again_then_skipped(tmp_path, store, capsys):
    bundle = write(tmp_path / "b", TEXTS)
    index(bundle, store, capsys)
    part = next(bundle.glob("chunk-*.jsonl"))
    os.utime(part, ns=(1, 1))  # the same bytes at another mtime: nothing says they are the same without reading
    assert "sent 0 record(s) (nothing new), unchanged 3" in index(bundle, store, capsys)
    assert "unchanged since the last index" in index(bundle, store, capsys)


def test_a_changed_bundle_is_indexed_again(tmp_path, store, capsys):
    bundle = write(tmp_path / "b", TEXTS)
    index(bundle, store, capsys)
    write(bundle, [TEXTS[0], "a walrus basked on the rocks", TEXTS[2]])
    assert "sent 1 record(s)" in index(bundle, store, capsys)
    assert recalled(store, "walrus") == ["a walrus basked on the rocks"]
    assert recalled(store, "wombat") == []


def test_a_bundle_edited_by_hand_after_it_was_indexed_is_refused_with_its_line(tmp_path, store, capsys):
    bundle = write(tmp_path / "b", TEXTS)
    index(bundle, store, capsys)
    part = next(bundle.glob("chunk-*.jsonl"))
    lines = part.read_bytes().splitlines(keepends=True)
    part.write_bytes(lines[0] + lines[1].replace(b"wombat", b"badger") + lines[2])
    capsys.readouterr()
    assert main(["index", str(bundle), "--data-dir", str(store), "-q"]) != 0
    assert f"{part.name}" in capsys.readouterr().err
    assert recalled(store, "wombat") == [TEXTS[1]]


def test_a_store_that_lost_its_database_is_restored_not_skipped(tmp_path, store, capsys):
    bundle = write(tmp_path / "b", TEXTS)
    index(bundle, store, capsys)
    (store / "data" / "memory.sqlite").rename(tmp_path / "aside.sqlite")
    assert "unchanged since" not in index(bundle, store, capsys)
    assert recalled(store, "ferry") == [TEXTS[2]]
    assert "unchanged since the last index" in index(bundle, store, capsys)


def test_an_unchanged_corpus_bundle_is_not_chunked_again(tmp_path, store, capsys, monkeypatch):
    src = tmp_path / "src"
    src.mkdir()
    (src / "notes.jsonl").write_bytes(
        b"".join(orjson.dumps({"id": f"n{i}", "thread": "t", "text": t}) + b"\n" for i, t in enumerate(TEXTS))
    )
    corpus = tmp_path / "corpus"
    assert main(["import", str(src), "-f", "jsonl", "-o", str(corpus), "-q"]) == 0
    assert "sent" in index(corpus, store, capsys)

    def refuse(*args: object, **kw: object) -> None:
        raise AssertionError("an unchanged corpus was chunked again")

    monkeypatch.setattr(cli_pipeline, "CorpusFeed", refuse)
    assert "unchanged since the last index" in index(corpus, store, capsys)
    assert recalled(store, "wombat") == [TEXTS[1]]
