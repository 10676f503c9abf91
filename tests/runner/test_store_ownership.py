"""A store root must be memdock's own: a user's folder given as --data-dir / data_dir is refused up front, and
pruning old run dirs never removes anything memdock did not name."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memdock import Memory
from memdock.engine.store import MARKER, Store
from memdock.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED = ROOT / "tests" / "adapters" / "scripted"


def memdock(*args, home: Path) -> subprocess.CompletedProcess:
    out = subprocess.run(
        [sys.executable, "-m", "memdock", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "MEMDOCK_HOME": str(home)},
    )
    assert "Traceback" not in out.stderr, out.stderr
    return out


def query(store: Path, home: Path, behavior: str) -> subprocess.CompletedProcess:
    return memdock("query", "hello", "-b", SCRIPTED, "--data-dir", store, "-c", f"behavior={behavior}", home=home)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(root.rglob("*"))}


def test_a_user_folder_with_a_work_subfolder_is_refused_and_loses_nothing(tmp_path):
    project = tmp_path / "project"
    for i in range(1, 26):
        (project / "work" / f"2025-report-{i:02}").mkdir(parents=True)
        (project / "work" / f"2025-report-{i:02}" / "notes.txt").write_text(f"precious {i}")
    before = snapshot(project)
    out = query(project, tmp_path / "home", "exit_4")  # a failing call used to prune work/ down to 20 entries
    assert out.returncode == 3, out.stderr
    assert f"refusing to use {project} as a memdock store" in out.stderr and "'work'" not in out.stderr
    assert snapshot(project) == before  # no data/, no marker, all 25 folders


def test_a_user_folder_is_refused_through_the_python_api(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.docx").write_text("precious")
    with (
        pytest.raises(ConfigError, match="it holds 'thesis.docx'"),
        Memory(str(SCRIPTED), data_dir=tmp_path / "mine") as m,
    ):
        m.recall("x")
    assert os.listdir(tmp_path / "mine") == ["thesis.docx"]


def test_an_empty_folder_becomes_a_marked_store_and_a_query_makes_no_new_one(tmp_path):
    store = tmp_path / "empty"
    store.mkdir()
    assert query(store, tmp_path / "home", "ok").returncode == 0
    assert (store / ".memdock-store").is_file() and (store / "data").is_dir()
    assert query(store, tmp_path / "home", "ok").returncode == 0

    out = query(tmp_path / "mistyped", tmp_path / "home", "ok")
    assert out.returncode == 3 and "there is no store at" in out.stderr
    assert not (tmp_path / "mistyped").exists()


def test_prune_removes_only_memdock_run_dirs(tmp_path):
    store, home = tmp_path / "store", tmp_path / "home"
    store.mkdir()
    assert query(store, home, "ok").returncode == 0
    (store / "work" / "my-notes").mkdir()
    (store / "work" / "my-notes" / "a.txt").write_text("keep")
    (store / "work" / "worker-scripted-1-0123abcd").mkdir()
    for i in range(25):
        (store / "work" / f"20200101T0000{i:02}-query-0000{i:04x}").mkdir()
    assert query(store, home, "exit_4").returncode != 0
    left = sorted(os.listdir(store / "work"))
    assert "my-notes" in left and (store / "work" / "my-notes" / "a.txt").read_text() == "keep"
    assert "worker-scripted-1-0123abcd" in left
    runs = [n for n in left if n[:8].isdigit()]
    assert len(runs) == 20 and "20200101T000000-query-00000000" not in runs


def test_a_store_made_before_the_marker_is_recognised_and_marked(tmp_path):
    store, home = tmp_path / "old", tmp_path / "home"
    store.mkdir()
    assert query(store, home, "exit_4").returncode != 0  # leaves a failed run dir, like an old store that saw a failure
    (store / ".memdock-store").unlink()
    assert query(store, home, "ok").returncode == 0
    assert (store / ".memdock-store").is_file()

    ledger_store = tmp_path / "old-with-ledger"
    (ledger_store / "data").mkdir(parents=True)
    (ledger_store / "work").mkdir()
    (ledger_store / "ledger.sqlite").write_bytes(b"")
    assert query(ledger_store, home, "ok").returncode == 0
    assert (ledger_store / ".memdock-store").is_file()


def test_an_unused_data_and_work_pair_is_not_taken_for_a_store(tmp_path):
    folder = tmp_path / "proj"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "survey.csv").write_text("a,b\n")
    (folder / "work").mkdir()
    out = query(folder, tmp_path / "home", "ok")
    assert out.returncode == 3 and "no memdock ledger, lock or run dirs" in out.stderr
    assert not (folder / ".memdock-store").exists()


def test_a_default_store_an_older_memdock_only_queried_is_still_used(tmp_path):
    home = tmp_path / "home"
    store = home / "stores" / "scripted"
    (store / "data").mkdir(parents=True)
    (store / "work").mkdir()
    out = memdock("query", "hello", "-b", SCRIPTED, "-c", "behavior=ok", home=home)
    assert out.returncode == 0, out.stderr
    assert (store / ".memdock-store").is_file()


def test_threads_opening_one_new_store_at_once_all_succeed(tmp_path):
    """Several agents remembering into a new store at the same moment (the MCP server over HTTP) each open it:
    one sees the other's marker half-written and must not take the folder for someone else's."""
    import threading

    def open_store(root: Path, start: threading.Barrier, failures: list[Exception]) -> None:
        start.wait()
        try:
            Store(root).ensure()
        except Exception as exc:  # collected, asserted below
            failures.append(exc)

    for round_ in range(30):
        root, start, failures = tmp_path / f"store-{round_}", threading.Barrier(6), []
        threads = [threading.Thread(target=open_store, args=(root, start, failures)) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures, failures[0]
        assert (root / MARKER).is_file()


def test_a_foreign_file_beside_a_marker_being_written_is_still_refused(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / f".{MARKER}.tmp-0123456789abcdef").write_text("")
    (tmp_path / "mine" / "thesis.docx").write_text("precious")
    with pytest.raises(ConfigError, match="it holds"):
        Store(tmp_path / "mine").ensure()
