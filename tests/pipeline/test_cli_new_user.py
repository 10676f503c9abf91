"""The command line as a new user meets it: remember from stdin, errors as JSON under --json, a missing id or
store is a non-zero exit, export names --force, a thread is forgotten by its name, an emptied one not exported."""

import json
import subprocess
from pathlib import Path

import pytest
from support import cli

from memdock import Memory


def memdock(*args: str, home: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return cli.memdock(*args, home=home, stdin=stdin, text=False)


def test_remember_dash_reads_the_note_from_stdin(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    told = memdock(
        "remember",
        "-",
        "--thread",
        "kitchen",
        *store,
        home=tmp_path,
        stdin="The kettle descaler is ünder the sink\n".encode(),
    )
    assert told.returncode == 0, told.stderr
    found = json.loads(memdock("recall", "descaler", "--json", *store, home=tmp_path).stdout)
    assert found["hits"][0]["text"].startswith("The kettle descaler is ünder the sink")


@pytest.mark.parametrize(
    "stdin,said",
    [
        (b"", "stdin is empty"),
        (b"  \n\t", "stdin is empty"),
        (b"caf\xe9 au lait\n", "stdin is not UTF-8 text: byte 3 (line 1)"),
    ],
)
def test_remember_dash_refuses_empty_or_undecodable_stdin(tmp_path, stdin, said):
    out = memdock("remember", "-", "--data-dir", str(tmp_path / "store"), home=tmp_path, stdin=stdin)
    assert out.returncode == 4 and said in out.stderr.decode()
    assert not (tmp_path / "store").exists(), "nothing was stored, no store was made"


def test_errors_under_json_are_one_object_on_stdout_with_the_same_exit_codes(tmp_path):
    bad_limit = memdock("recall", "x", "-n", "5000", "--json", home=tmp_path)
    assert bad_limit.returncode == 4
    error = json.loads(bad_limit.stdout)["error"]
    assert error["category"] == "invalid_input" and "--limit/-n" in error["message"] and "details" in error

    missing = memdock("recall", "x", "--data-dir", str(tmp_path / "nowhere"), "--json", home=tmp_path)
    assert missing.returncode == 3
    assert json.loads(missing.stdout)["error"]["category"] == "config"

    usage = memdock("recall", "x", "--no-such-flag", "--json", home=tmp_path)
    assert usage.returncode == 2
    assert json.loads(usage.stdout)["error"]["category"] == "usage"

    bad_mode = memdock("recall", "x", "--mode", "psychic", "--json", home=tmp_path)
    assert bad_mode.returncode == 4
    assert json.loads(bad_mode.stdout)["error"]["category"] == "invalid_input"

    plain = memdock("recall", "x", "-n", "5000", home=tmp_path)
    assert plain.returncode == 4 and plain.stdout == b""


def test_a_missing_id_or_store_is_a_non_zero_exit(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("remember", "a note to keep", *store, home=tmp_path).returncode == 0
    gone = memdock("forget", "entry:doesnotexist", *store, home=tmp_path)
    assert gone.returncode == 1 and b"not found: entry:doesnotexist" in gone.stdout
    assert memdock("recall", "note", "--data-dir", str(tmp_path / "nowhere"), home=tmp_path).returncode == 3


def test_export_twice_names_the_force_flag(tmp_path):
    store = ["--data-dir", str(tmp_path / "store")]
    assert memdock("remember", "a note to export", *store, home=tmp_path).returncode == 0
    assert memdock("export", "-o", str(tmp_path / "x"), *store, home=tmp_path).returncode == 0
    again = memdock("export", "-o", str(tmp_path / "x"), *store, home=tmp_path)
    assert again.returncode == 4 and b"--force" in again.stderr and b"overwrite=True" not in again.stderr


def test_a_thread_is_forgotten_by_its_name(tmp_path):
    with Memory(data_dir=tmp_path / "store") as memory:
        memory.remember("tea over coffee", thread="prefs")
        memory.remember("coffee at nine", thread="office")
        forgotten = memory.forget("prefs")
        assert forgotten.deleted and not forgotten.not_found
        assert memory.recall("coffee", thread="prefs").hits == []
        assert len(memory.recall("coffee").hits) == 1


def test_a_thread_emptied_by_forget_is_not_exported(tmp_path):
    with Memory(data_dir=tmp_path / "store") as memory:
        emptied = memory.remember("the printer is on floor 2", thread="office")
        memory.remember("a second note", thread="misc")
        memory.forget(emptied.id)
    out = memdock("export", "-o", str(tmp_path / "x"), "--data-dir", str(tmp_path / "store"), home=tmp_path)
    assert out.returncode == 0, out.stderr
    threads = [json.loads(line) for f in (tmp_path / "x").glob("thread*.jsonl") for line in f.read_text().splitlines()]
    assert [t["title"] for t in threads] == ["misc"]
