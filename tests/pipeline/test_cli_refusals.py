"""The batch commands through the real CLI (a `memdock` process): where nothing useful can be produced they say why,
exit non-zero and leave no bundle behind; never a traceback."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THREADS = ROOT / "fixtures" / "threads"


def memdock(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "memdock", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("refusals")
    assert memdock("import", THREADS, "-f", "watercooler", "-o", root / "corpus", "-q", cwd=root).returncode == 0
    return root / "corpus"


@pytest.mark.parametrize(
    "options,words",
    [
        (["--max-tokens", "0"], "--max-tokens must be an integer from 1 to 1,000,000, got 0"),
        (["--max-tokens", "-1"], "--max-tokens must be an integer from 1 to 1,000,000, got -1"),
        (
            ["--max-tokens", "10", "--overlap", "10"],
            "overlap (--overlap) must be an integer from 0 to max_tokens - 1 (9), got 10",
        ),
        (["--max-tokens", "10", "--overlap", "50"], "got 50"),
        (["--overlap", "-1"], "--overlap must be an integer from 0 to 999,999, got -1"),
    ],
)
def test_chunk_refuses_impossible_windows(corpus, tmp_path, options, words):
    out = memdock("chunk", corpus, "-o", tmp_path / "chunks", *options, cwd=tmp_path)
    assert out.returncode == 4 and words in out.stderr
    assert not (tmp_path / "chunks").exists()


HUGE = "1" + "0" * 30
BOUNDED = [  # every integer option of the CLI: a number past 64 bits, and past Python's int() digit limit
    (["query", "x", "-n", HUGE], "--limit/-n must be an integer from 1 to 1,000, got " + HUGE),
    (["query", "x", "-n", "0"], "--limit/-n must be an integer from 1 to 1,000, got 0"),
    (["search", "nodes", "x", "--limit", HUGE], "--limit/-n must be an integer from 1 to 1,000"),
    (
        ["chunk", "CORPUS", "-o", "OUT", "--max-tokens", "99999999999999999999999"],
        "--max-tokens must be an integer from 1 to 1,000,000",
    ),
    (["chunk", "CORPUS", "-o", "OUT", "--overlap", HUGE], "--overlap must be an integer from 0 to 999,999"),
    (
        ["import", "SRC", "-f", "text", "-o", "OUT", "--max-entry-bytes", HUGE],
        "--max-entry-bytes must be an integer from 1 to 67,108,864",
    ),
    (
        ["validate", "CORPUS", "--max-errors", "9" * 5000],
        "--max-errors must be an integer from 0 to 1,000,000, got 999",
    ),
    (["validate", "CORPUS", "--max-errors", "-1"], "--max-errors must be an integer from 0 to 1,000,000, got -1"),
    (["conformance", "null", "--resume-filler", HUGE], "--resume-filler must be an integer from 1 to 1,000,000"),
    (["query", "x", "-n", "ten"], "--limit/-n must be an integer from 1 to 1,000, got ten"),
]


@pytest.mark.parametrize("argv,words", BOUNDED, ids=lambda v: " ".join(v)[:40] if isinstance(v, list) else None)
def test_an_integer_option_out_of_range_is_refused_naming_it_before_any_work(corpus, tmp_path, argv, words):
    places = {"CORPUS": corpus, "OUT": tmp_path / "out", "SRC": THREADS}
    store = ["--data-dir", tmp_path / "store"] if argv[0] in ("query", "search", "index") else []
    out = memdock(*[places.get(a, a) for a in argv], *store, cwd=tmp_path)
    assert out.returncode == 4 and words in out.stderr, out.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "store").exists()


def test_a_manifest_file_name_of_5000_characters_is_refused_by_name(corpus, tmp_path):
    bundle = tmp_path / "long"
    shutil.copytree(corpus, bundle)
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"][0]["path"] = "x" * 5000 + ".jsonl"
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    words = "manifest.json: $.files[0].path: file name is 5006 bytes; a bundle's file names are at most 255"
    validated = memdock("validate", bundle, cwd=tmp_path)
    assert validated.returncode != 0 and words in validated.stdout + validated.stderr
    for command in (["index", bundle, "--data-dir", tmp_path / "store"], ["chunk", bundle, "-o", tmp_path / "chunks"]):
        out = memdock(*command, cwd=tmp_path)
        assert out.returncode == 4 and words in out.stderr
    assert not (tmp_path / "chunks").exists()


def test_a_source_that_does_not_exist_is_an_error_and_writes_nothing(tmp_path):
    out = memdock("import", tmp_path / "nowhere.md", "-f", "watercooler", "-o", tmp_path / "corpus", cwd=tmp_path)
    assert (
        out.returncode == 4
        and "nothing to import" in out.stderr
        and "nowhere.md: no such file or directory" in out.stderr
    )
    assert not (tmp_path / "corpus").exists()


def test_a_folder_without_files_of_the_format_is_an_error(tmp_path):
    out = memdock("import", THREADS, "-f", "chat", "-o", tmp_path / "corpus", cwd=tmp_path)
    assert out.returncode == 4 and "no file the chat importer reads is in this folder" in out.stderr
    assert not (tmp_path / "corpus").exists()


def test_one_missing_source_beside_a_good_one_is_still_partial(tmp_path):
    out = memdock(
        "import", THREADS, tmp_path / "nowhere.md", "-f", "watercooler", "-o", tmp_path / "corpus", cwd=tmp_path
    )
    assert out.returncode == 10 and "nowhere.md: no such file or directory" in out.stderr
    assert (tmp_path / "corpus" / "manifest.json").exists()


def test_chat_on_files_that_are_not_locomo_is_an_error_naming_why(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"sample_id": "x", "qa": []}]))
    (tmp_path / "b.json").write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    out = memdock(
        "import", tmp_path / "a.json", tmp_path / "b.json", "-f", "chat", "-o", tmp_path / "corpus", cwd=tmp_path
    )
    assert out.returncode == 4 and "no entries imported from 2 file(s) read as chat; no bundle written" in out.stderr
    assert "a.json: " in out.stderr and "b.json: " in out.stderr
    assert not (tmp_path / "corpus").exists()


def test_watercooler_on_files_with_no_entries_is_an_error(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "notes.md").write_text("# Just a heading\n\nSome prose and no entries.\n")
    (src / "empty.md").write_text("")
    out = memdock("import", src, "-f", "watercooler", "-o", tmp_path / "corpus", cwd=tmp_path)
    assert out.returncode == 4 and "no entries imported from 2 file(s) read as watercooler" in out.stderr
    assert "empty.md: no entries found: is this a watercooler file?" in out.stderr
    assert "notes.md: no entries found" in out.stderr
    assert not (tmp_path / "corpus").exists()


def test_a_file_without_entries_beside_good_ones_is_a_warning(tmp_path):
    shutil.copytree(THREADS, tmp_path / "src")
    (tmp_path / "src" / "empty.md").write_text("")
    out = memdock("import", tmp_path / "src", "-f", "watercooler", "-o", tmp_path / "corpus", cwd=tmp_path)
    assert out.returncode == 0 and "empty.md: no entries found: is this a watercooler file?" in out.stderr


def test_indexing_a_folder_of_raw_sources_says_to_import_first(tmp_path):
    out = memdock("index", THREADS, "--data-dir", tmp_path / "store", cwd=tmp_path)
    assert out.returncode == 4 and "is not a memdock bundle" in out.stderr and "run `memdock import" in out.stderr
    assert "incomplete" not in out.stderr


def test_a_bundle_whose_writer_died_is_still_called_incomplete(corpus, tmp_path):
    shutil.copytree(corpus, tmp_path / "half")
    (tmp_path / "half" / "manifest.json").unlink()
    out = memdock("index", tmp_path / "half", "--data-dir", tmp_path / "store", cwd=tmp_path)
    assert out.returncode == 4 and "incomplete bundle" in out.stderr


@pytest.mark.parametrize("command", ["import", "chunk"])
def test_an_occupied_output_names_the_force_switch(corpus, tmp_path, command):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    source = [THREADS, "-f", "watercooler"] if command == "import" else [corpus]
    out = memdock(command, *source, "-o", tmp_path / "out", cwd=tmp_path)
    assert out.returncode == 4 and "is not empty; add --force to replace the bundle there" in out.stderr
    assert "overwrite=True" not in out.stderr
    assert (tmp_path / "out" / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "argv,words",
    [
        ([b"query", b"zebra\xff"], "QUERY has a lone surrogate (U+DCFF, an undecodable byte 0xFF) at character 5"),
        ([b"query", b"zebra", b"--since", b"\xfe"], "--since has a lone surrogate (U+DCFE"),
        ([b"query", b"zebra", b"--until", b"friday"], "--until 'friday' is not an ISO 8601 date-time"),
        ([b"search", b"facts", b"x", b"--group", b"g\xff"], "--thread has a lone surrogate"),
        ([b"search", b"facts", b"x", b"--thread", b"g\xff"], "--thread has a lone surrogate"),
        ([b"recall", b"zebra", b"--thread", b"g\xff"], "--thread has a lone surrogate"),
        ([b"get", b"node", b"x\xff"], "ID has a lone surrogate"),
        ([b"forget", b"entry:a", b"x\xff"], "ID has a lone surrogate"),
    ],
)
def test_query_arguments_that_are_not_utf8_are_refused_by_name(tmp_path, argv, words):
    """argv bytes that are not UTF-8 arrive as lone surrogates; they once crashed writing the adapter's request."""
    out = subprocess.run(
        [sys.executable, "-m", "memdock", *argv, b"--data-dir", str(tmp_path / "store").encode()],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert "Traceback" not in out.stderr, out.stderr
    assert out.returncode == 4 and words in out.stderr
