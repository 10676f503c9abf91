"""tantivy names its store (adapter.json `store_files`: its `index` folder, there since its first layout, and its
`chunks` index, there since its second, which counts once the ledger has recorded it). A store
an older memdock wrote, with no record of its backend, is bound to tantivy when it holds tantivy's index and
refused when it holds another backend's records (sqlite's), before anything is written beside them; and a store
moved aside is restored from the journal by the next `add`, as sqlite's lost database is (before, the ledger still
claimed every record, and the add sent nothing)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from support.cli import inherited_env, run_memdock
from tantivy_support import gate

from memdock.engine.store_backend import BACKEND_FILE

pytestmark = gate
NOTE = b'{"text": "the staging database moves on Friday", "thread": "infra"}\n'


def memdock(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command in this test's environment: the home holding the installed adapter."""
    return run_memdock(*args, env=inherited_env())


def older_store(tmp_path: Path, backend: str) -> tuple[Path, Path]:
    """A store BACKEND wrote, its `backend` file removed as an older memdock left it; and the notes it holds."""
    notes, root = tmp_path / "notes.jsonl", tmp_path / f"{backend}-store"
    notes.write_bytes(NOTE)
    made = memdock("add", notes, "-f", "jsonl", "-b", backend, "--data-dir", root)
    assert made.returncode == 0, made.stderr
    (root / BACKEND_FILE).unlink()
    return root, notes


def test_an_older_sqlite_store_is_refused_before_tantivy_writes_beside_it(tmp_path: Path) -> None:
    root, notes = older_store(tmp_path, "sqlite")
    before = sorted(p.name for p in (root / "data").iterdir())
    again = memdock("add", notes, "-f", "jsonl", "-b", "tantivy", "--data-dir", root)
    assert again.returncode == 3, again.stdout + again.stderr
    assert f"the store at {root} was written by an older memdock with another backend than tantivy" in again.stderr
    assert "not tantivy's index" in again.stderr and "Traceback" not in again.stderr
    assert sorted(p.name for p in (root / "data").iterdir()) == before  # no index/ beside memory.sqlite
    assert not (root / BACKEND_FILE).exists()


def bound_with_two_notes(tmp_path: Path) -> tuple[Path, Path]:
    """An older tantivy store bound to tantivy by a write of a second note (which records its files)."""
    root, notes = older_store(tmp_path, "tantivy")
    notes.write_bytes(NOTE + b'{"text": "the release slips to Monday", "thread": "infra"}\n')
    assert memdock("add", notes, "-f", "jsonl", "-b", "tantivy", "--data-dir", root).returncode == 0
    assert (root / BACKEND_FILE).read_text() == "tantivy\n"
    return root, notes


def restored_by_add(root: Path, notes: Path, reason: str) -> None:
    """The next add restores the store, saying REASON, and both notes are found again."""
    again = memdock("add", notes, "-f", "jsonl", "--data-dir", root, "--json")
    assert again.returncode == 0, again.stderr
    assert '"restored"' in again.stdout and reason in again.stdout, again.stdout
    for words, said in (("staging database", "Friday"), ("release slips", "Monday")):
        found = memdock("recall", words, "--data-dir", root)
        assert said in found.stdout, found.stdout + found.stderr


def test_an_older_tantivy_store_is_bound_to_tantivy_and_a_lost_index_is_restored(tmp_path: Path) -> None:
    root, notes = bound_with_two_notes(tmp_path)
    shutil.move(root / "data", tmp_path / "moved-aside")  # the advised recovery from a damaged store
    restored_by_add(root, notes, "index is missing")


def test_an_index_folder_moved_aside_alone_is_restored_from_the_journal(tmp_path: Path) -> None:
    """The marker and the chunks index stay behind: the store is lost all the same, a recall says it must be
    restored, and the next add starts it afresh from the journal."""
    root, notes = older_store(tmp_path, "tantivy")
    shutil.move(root / "data" / "index", tmp_path / "index-moved-aside")
    lost = memdock("recall", "staging database", "--data-dir", root)
    assert "Friday" not in lost.stdout and "restore" in lost.stdout + lost.stderr, lost.stdout + lost.stderr
    again = memdock("add", notes, "-f", "jsonl", "-b", "tantivy", "--data-dir", root, "--json")
    assert again.returncode == 0, again.stderr
    assert "index is missing" in again.stdout, again.stdout
    found = memdock("recall", "staging database", "--data-dir", root)
    assert "Friday" in found.stdout, found.stdout + found.stderr


def test_a_chunks_folder_deleted_alone_is_restored_from_the_journal(tmp_path: Path) -> None:
    """The graph's index stays: before, a recall found nothing and said nothing, the next add sent only its new
    records, and the chunks were gone from search for good while the journal held them. Deleted, not moved aside:
    a folder made again may get the deleted one's inode back, so a read must not make it again."""
    root, notes = bound_with_two_notes(tmp_path)
    shutil.rmtree(root / "data" / "chunks")
    lost = memdock("recall", "staging database", "--data-dir", root)
    assert "Friday" not in lost.stdout and "restore" in lost.stdout + lost.stderr, lost.stdout + lost.stderr
    assert not (root / "data" / "chunks").exists()
    restored_by_add(root, notes, "chunks is missing")
