"""Issue 33, broken 8 and an ugly case: a source folder holding a FIFO, a link to /dev/zero, or a file symlink
out of the folder. `memdock import`/`add` reads the regular files in it and names each of the others; nothing
blocks, nothing outside the folder is read.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "threads").glob("*.md"))[0]

SECRET = "outside-secret-canary-5d1e"


def folder_with(tmp_path: Path, *odd: str) -> Path:
    src = tmp_path / "notes"
    src.mkdir()
    (src / "good.md").write_bytes(FIXTURE.read_bytes())
    if "fifo" in odd:
        os.mkfifo(src / "pipe.md")
    if "zero" in odd:
        (src / "zero.md").symlink_to("/dev/zero")
    if "escape" in odd:
        (tmp_path / "id_rsa.md").write_text(f"# Key\n\n{SECRET}\n")
        (src / "key.md").symlink_to(tmp_path / "id_rsa.md")
    return src


def memdock(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEMDOCK_HOME": str(tmp_path / "home")}
    return subprocess.run(
        [sys.executable, "-m", "memdock", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )


@pytest.mark.parametrize("fmt", ["watercooler", "text"])
@pytest.mark.parametrize("odd,named", [("fifo", "pipe.md"), ("zero", "zero.md")])
def test_a_fifo_or_a_device_link_is_skipped_and_named(tmp_path, odd, named, fmt):
    src = folder_with(tmp_path, odd)
    out = memdock(tmp_path, "import", str(src), "-f", fmt, "-o", str(tmp_path / "corpus"))
    assert out.returncode == 10, out  # partial: the other files were read
    problem = next(line for line in out.stderr.splitlines() if named in line)
    assert "not a regular file" in problem or "outside the source folder" in problem, problem
    assert (tmp_path / "corpus").is_dir()


def test_add_reads_the_rest_of_a_folder_holding_both(tmp_path):
    src = folder_with(tmp_path, "fifo", "zero")
    store = tmp_path / "store"
    added = memdock(tmp_path, "add", str(src), "-f", "watercooler", "--data-dir", str(store))
    assert added.returncode == 10, added
    assert "pipe.md" in added.stderr and "zero.md" in added.stderr, added
    assert "sent" in added.stdout + added.stderr


def test_a_file_symlink_out_of_the_source_folder_is_refused_and_named(tmp_path):
    src = folder_with(tmp_path, "escape")
    store = tmp_path / "store"
    added = memdock(tmp_path, "add", str(src), "-f", "text", "--data-dir", str(store))
    assert "key.md" in added.stderr and "outside the source folder" in added.stderr, added
    recalled = memdock(tmp_path, "recall", "secret canary key", "--data-dir", str(store), "--json")
    assert SECRET not in recalled.stdout
    assert not any(SECRET.encode() in p.read_bytes() for p in store.rglob("*") if p.is_file())


def test_a_file_name_that_is_not_utf8_is_named_and_skipped(tmp_path):
    src = folder_with(tmp_path)
    (src / os.fsdecode(b"bad\xff.md")).write_bytes(FIXTURE.read_bytes())
    added = memdock(tmp_path, "add", str(src), "-f", "watercooler", "--data-dir", str(tmp_path / "store"), "--json")
    assert added.returncode == 10, added.stderr
    assert "Traceback" not in added.stderr
    assert "bad\ufffd.md: the file name is not valid UTF-8" in added.stderr


def test_a_file_name_holding_terminal_escapes_is_shown_inert(tmp_path):
    """A name that would clear the screen or retitle the terminal is printed with its control bytes written out."""
    src = folder_with(tmp_path)
    (src / "x\x1b]0;owned\x07\x1b[2J.md").symlink_to("/dev/zero")
    out = memdock(tmp_path, "add", str(src), "-f", "text", "--data-dir", str(tmp_path / "store"))
    assert out.returncode == 10, out.stderr
    assert "\x1b" not in out.stderr and "\x07" not in out.stderr
    assert "x\\x1b]0;owned\\x07\\x1b[2J.md" in out.stderr, out.stderr
