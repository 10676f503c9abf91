"""memdock's private temp folders (tempdirs.py): gone on the way out; one a killed process left (text in it) is
removed by the next memdock that makes one, or forgets; one whose owner lives is never touched."""

import errno
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from memdock import Memory
from memdock.tempdirs import private_dir, sweep

HOLD = """
import sys
from memdock.tempdirs import private_dir
with private_dir(sys.argv[1]) as d:
    (d / "note.txt").write_text("the secret ferry timetable")
    print(d, flush=True)
    sys.stdin.readline()
"""


@pytest.fixture
def temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "temp"
    root.mkdir()
    monkeypatch.setenv("TMPDIR", str(root))
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def holder(kind: str) -> tuple[subprocess.Popen, Path]:
    """A process holding a private folder of KIND, text in it, until its stdin says go."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdout is not None
    return p, Path(p.stdout.readline().strip())


def test_a_private_dir_goes_on_the_way_out_with_its_lock(temp: Path) -> None:
    with private_dir("add") as d:
        assert d.parent == temp and d.name.startswith("memdock-add-")
        assert (temp / f"{d.name}.lock").exists()
        (d / "x").write_text("text")
    assert not list(temp.iterdir())


def test_a_killed_process_s_folder_goes_at_the_next_private_dir_and_a_living_one_s_stays(temp: Path) -> None:
    alive, kept = holder("migrate")
    dead, left = holder("remember")
    dead.kill()
    dead.wait()
    assert (left / "note.txt").exists(), "a killed process cannot remove its folder"
    with private_dir("add"):
        assert not left.exists() and not (temp / f"{left.name}.lock").exists()
        assert (kept / "note.txt").read_text() == "the secret ferry timetable"
    alive.communicate("go\n")
    assert alive.returncode == 0
    assert not list(temp.iterdir())


def test_forget_removes_what_a_killed_remember_left(temp: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    with Memory("sqlite", data_dir=store) as m:
        kept = m.remember("the ferry leaves at noon").id
    dead, left = holder("remember")
    os.kill(dead.pid, signal.SIGKILL)
    dead.wait()
    with Memory("sqlite", data_dir=store) as m:
        m.forget([kept])
    assert not left.exists() and not list(temp.iterdir())


def test_sweep_leaves_other_files_alone(temp: Path) -> None:
    other = [temp / "memdock-notes.lock", temp / "memdock-add-x.txt", temp / "someone-else.lock"]
    for f in other:
        f.write_text("")
    sweep()
    assert all(f.exists() for f in other)


def test_forget_needs_no_temp_dir(temp: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget only sweeps: where no temp dir is usable (tempfile finds none of TMPDIR, /tmp, /var/tmp, /usr/tmp and
    the working dir writable) it still deletes, as it did before it swept."""
    store = tmp_path / "store"
    with Memory("sqlite", data_dir=store) as m:
        kept = m.remember("the ferry leaves at noon").id
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.setattr(tempfile, "_candidate_tempdir_list", lambda: [str(tmp_path / "gone")])
    with Memory("sqlite", data_dir=store) as m:
        assert kept in m.forget([kept]).deleted


def test_a_temp_dir_that_takes_no_locks_still_gives_a_private_dir(temp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """flock(2) refused by the temp dir's filesystem (ENOLCK; ENOSYS on Lustre without its flock option): the folder
    goes unowned (removed on the way out only, as before it had an owner) rather than failing remember, migrate
    and add, and is never left behind."""

    def refused(fd: int, op: int) -> None:
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(fcntl, "flock", refused)
    with private_dir("remember") as d:
        (d / "note.txt").write_text("the secret ferry timetable")
    assert not list(temp.iterdir())


def test_sweep_follows_no_link(temp: Path, tmp_path: Path) -> None:
    """In a shared temp dir a folder name may be a link to elsewhere, and a lock file a link to a file of ours: the
    sweep removes neither what a link points at nor a folder whose lock is only reached through a link."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("kept")
    (temp / "memdock-add-abc.lock").write_text("")
    (temp / "memdock-add-abc").symlink_to(elsewhere)
    (temp / "memdock-add-def").mkdir()
    (temp / "memdock-add-def" / "note.txt").write_text("kept")
    (temp / "memdock-add-def.lock").symlink_to(elsewhere / "keep.txt")
    sweep()
    assert (elsewhere / "keep.txt").read_text() == "kept"
    assert (temp / "memdock-add-def" / "note.txt").read_text() == "kept"
