"""A store belongs to the backend that first wrote it: named by its folder alone it answers with that backend, and
another backend is refused before it writes anything (it would put a second store in data/ under the same ledger)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from support.cli import memdock, run_memdock

from memdock.config import resolve
from memdock.engine.ledger import Ledger, record_hash
from memdock.engine.store import Store
from memdock.engine.store_backend import BACKEND_FILE
from memdock.errors import BackendError, ConfigError

NOTE = b'{"text": "the staging database moves on Friday", "thread": "infra"}\n'


def counted(store: Store) -> None:
    """A ledger that counts one record, as an older store's runs left it."""
    ledger = Ledger(store.ledger_path)
    item = ("chunk:0000000000000001", record_hash({"id": "chunk:0000000000000001"}), "thread:t:00aa", "chunk")
    ledger.begin_run("older")
    ledger.add_pending([item])
    ledger.commit([item[0]])
    ledger.finish_run()
    ledger.close()


def test_a_store_is_bound_at_its_first_write(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    assert store.backend() is None
    with store.write_lock(backend="null"):
        pass
    assert (store.root / BACKEND_FILE).read_text() == "null\n"
    with store.write_lock(backend="null"):
        pass
    refused = pytest.raises(ConfigError, match=r"holds a memory indexed by the null backend.*not sqlite")
    with refused, store.write_lock(backend="sqlite"):
        raise AssertionError("a write by another backend ran")
    assert store.backend() == "null"


def test_an_older_store_is_bound_only_while_its_data_is_empty(tmp_path: Path) -> None:
    """A store an older memdock wrote has no record of its backend: with files in data/ (whose adapter is not
    known here) it stays unbound, so a write by the wrong backend cannot lock its own out; with none it is bound."""
    store = Store(tmp_path / "s")
    with store.write_lock():  # what a memdock from before the file did
        (store.data_dir / "memdock-tantivy.json").write_text("{}")
    with store.write_lock(backend="sqlite"):
        pass
    assert store.backend() is None
    (store.data_dir / "memdock-tantivy.json").unlink()
    with store.write_lock(backend="sqlite"):
        pass
    assert store.backend() == "sqlite"


def test_an_older_store_is_bound_by_the_files_its_backend_names(tmp_path: Path) -> None:
    """An older store (no `backend` file) whose data/ holds the files the writer's adapter.json names, or whose
    ledger noted them (a store the backend lost, to be restored), is the writer's; one holding another backend's
    files is refused before anything is written, naming the store and what data/ holds."""
    store = Store(tmp_path / "s")
    with store.write_lock():
        (store.data_dir / "memory.sqlite").write_bytes(b"")
    with store.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        pass
    assert store.backend() == "sqlite"

    other = Store(tmp_path / "t")
    with other.write_lock():
        (other.data_dir / "index").mkdir()
        (other.data_dir / "memdock-tantivy.json").write_text("{}")
    counted(other)
    refused = pytest.raises(ConfigError, match=r"older memdock with another backend than sqlite: its data/ holds index")
    with refused, other.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        raise AssertionError("a write by another backend ran")
    assert other.backend() is None and sorted(p.name for p in other.data_dir.iterdir()) == [
        "index",
        "memdock-tantivy.json",
    ]


@pytest.mark.parametrize(
    "left",
    [["memory.sqlite-shm", "memory.sqlite-wal"], ["memory.sqlite.loading"], ["memory.sqlite.corrupt"]],
)
def test_an_older_store_holding_files_named_after_the_writers_is_its_own(tmp_path: Path, left: list[str]) -> None:
    """A 0.1.0 store (its ledger noted no store files) whose database went while its WAL and SHM stayed, whose
    first load was killed, or whose corrupt database was moved aside as the docs advise, is sqlite's: refusing it
    left no way on, since naming sqlite with --backend is refused the same way."""
    store = Store(tmp_path / "s")
    with store.write_lock():
        for name in left:
            (store.data_dir / name).write_bytes(b"")
    with store.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        pass
    assert store.backend() == "sqlite"


def test_a_refused_older_store_names_how_to_bind_it_to_the_writer(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    with store.write_lock():
        (store.data_dir / "vector-cache.sqlite").write_bytes(b"")
    counted(store)
    refused = pytest.raises(ConfigError, match=rf"if it is sqlite's .*write `sqlite` into {re.escape(str(store.root))}")
    with refused, store.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        raise AssertionError("a write by another backend ran")


def test_an_older_store_a_first_run_left_unfinished_is_the_writers(tmp_path: Path) -> None:
    """data/ holding only what a killed first run left (sqlite's vector cache) and a ledger that counts nothing:
    no record could be lost, so the writer binds it (tests/sqlite/test_parallel_prepare.py's stale cache)."""
    store = Store(tmp_path / "s")
    with store.write_lock():
        (store.data_dir / "vector-cache.sqlite").write_bytes(b"")
    with store.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        pass
    assert store.backend() == "sqlite"


def test_an_older_store_with_a_damaged_ledger_names_it(tmp_path: Path) -> None:
    """The ledger bind reads to tell an older store's owner is named when it is damaged (it was a traceback)."""
    store = Store(tmp_path / "s")
    with store.write_lock():
        (store.data_dir / "stray").write_bytes(b"")
    store.ledger_path.write_bytes(b"not a database " * 16)
    with (
        pytest.raises(BackendError, match=r"ledger cannot be opened"),
        store.write_lock(backend="sqlite", store_files=["memory.sqlite"]),
    ):
        raise AssertionError("a write ran")
    (store.data_dir / "memory.sqlite").write_bytes(b"")  # its own file: the ledger is not read to bind it
    with store.write_lock(backend="sqlite", store_files=["memory.sqlite"]):
        pass
    assert store.backend() == "sqlite"


def test_an_older_store_whose_backend_lost_its_files_is_still_its_own(tmp_path: Path) -> None:
    home, root, notes = tmp_path / "home", tmp_path / "store", tmp_path / "notes.jsonl"
    notes.write_bytes(NOTE)
    assert memdock("add", str(notes), "-f", "jsonl", "--data-dir", str(root), home=home).returncode == 0
    (root / BACKEND_FILE).unlink()  # as an older memdock left it
    (root / "data" / "memory.sqlite").unlink()
    (root / "data" / "stray").write_text("left by hand")
    again = memdock("add", str(notes), "-f", "jsonl", "--data-dir", str(root), home=home)
    assert again.returncode == 0, again.stderr
    assert (root / BACKEND_FILE).read_text() == "sqlite\n"
    found = memdock("recall", "staging database", "--data-dir", str(root), home=home)
    assert "Friday" in found.stdout, found.stdout + found.stderr


def test_the_cli_refuses_the_default_backend_on_an_older_store_of_another(tmp_path: Path) -> None:
    """The hole an older store keeps: written by tantivy before stores recorded their backend, then a plain
    `memdock add` (sqlite by default) would restore a second store from the journal beside tantivy's."""
    home, root, notes = tmp_path / "home", tmp_path / "store", tmp_path / "notes.jsonl"
    notes.write_bytes(NOTE)
    assert memdock("add", str(notes), "-f", "jsonl", "-b", "null", "--data-dir", str(root), home=home).returncode == 0
    (root / BACKEND_FILE).unlink()
    (root / "data" / "memdock-tantivy.json").write_text("{}")
    before = sorted(p.name for p in (root / "data").iterdir())
    again = memdock("add", str(notes), "-f", "jsonl", "--data-dir", str(root), home=home)
    assert again.returncode == 3, again.stdout + again.stderr
    assert f"the store at {root} was written by an older memdock" in again.stderr
    assert "Traceback" not in again.stderr
    assert sorted(p.name for p in (root / "data").iterdir()) == before  # no memory.sqlite beside it
    assert not (root / BACKEND_FILE).exists()


def test_resolve_takes_the_store_backend_unless_another_is_named(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    (root / BACKEND_FILE).write_text("tantivy\n")
    env = {"MEMDOCK_HOME": str(tmp_path / "home")}
    picked = resolve(data_dir=root, env=env, cwd=tmp_path)
    assert (picked.backend, picked.backend_source) == ("tantivy", str(root / BACKEND_FILE))
    assert resolve(backend="tantivy", data_dir=root, env=env, cwd=tmp_path).backend == "tantivy"
    flag = r"not sqlite \(from --backend\): use it with --backend tantivy \(or without --backend\)"
    variable = r"not sqlite \(from MEMDOCK_BACKEND\): use it with --backend tantivy"
    for named, said in (({"backend": "sqlite"}, flag), ({"env": {**env, "MEMDOCK_BACKEND": "sqlite"}}, variable)):
        kwargs = {"data_dir": root, "env": env, "cwd": tmp_path, **named}
        with pytest.raises(ConfigError, match=rf"recorded in .*backend.*{said}, or copy it into sqlite with `memdock"):
            resolve(**kwargs)  # type: ignore[arg-type]
    assert resolve(env=env, cwd=tmp_path).backend == "sqlite"  # a default store is its backend's own
    folder = tmp_path / "tantivy-fork"
    folder.mkdir()
    (folder / "adapter.json").write_text('{"name": "tantivy"}')
    assert resolve(backend=str(folder), data_dir=root, env=env, cwd=tmp_path).backend == str(folder)


def test_an_adapter_named_by_its_folder_is_held_to_its_own_name(tmp_path: Path) -> None:
    """A folder's adapter that is not the store's is refused before it reads (its writes were refused already)."""
    root = tmp_path / "s"
    root.mkdir()
    (root / BACKEND_FILE).write_text("tantivy\n")
    env = {"MEMDOCK_HOME": str(tmp_path / "home")}
    folder = tmp_path / "tantivy-fork"
    folder.mkdir()
    (folder / "adapter.json").write_text('{"name": "sqlite"}')
    with pytest.raises(ConfigError, match=rf"indexed by the tantivy backend.*not {re.escape(str(folder))} \(from"):
        resolve(backend=str(folder), data_dir=root, env=env, cwd=tmp_path)
    (folder / "adapter.json").write_text("{not json")  # the registry names what is wrong with it
    assert resolve(backend=str(folder), data_dir=root, env=env, cwd=tmp_path).backend == str(folder)


def test_the_cli_keeps_to_the_store_backend(tmp_path: Path) -> None:
    home, store, notes = tmp_path / "home", tmp_path / "store", tmp_path / "notes.jsonl"
    notes.write_bytes(NOTE)
    added = memdock("add", str(notes), "-f", "jsonl", "-b", "null", "--data-dir", str(store), home=home)
    assert added.returncode == 0, added.stderr
    assert (store / BACKEND_FILE).read_text() == "null\n"
    data_before = sorted(p.name for p in (store / "data").iterdir())

    more = tmp_path / "more.jsonl"
    more.write_bytes(NOTE.replace(b"Friday", b"Monday"))
    again = memdock("add", str(more), "-f", "jsonl", "--data-dir", str(store), home=home)  # no --backend
    assert again.returncode == 0, again.stderr
    assert "indexed into null" in again.stdout + again.stderr

    other = memdock("add", str(notes), "-f", "jsonl", "-b", "sqlite", "--data-dir", str(store), home=home)
    assert other.returncode != 0
    assert f"recorded in {store / BACKEND_FILE}" in other.stderr
    assert "--backend null" in other.stderr
    assert sorted(p.name for p in (store / "data").iterdir()) == data_before  # no memory.sqlite beside it
    assert (store / BACKEND_FILE).read_text() == "null\n"


@pytest.mark.parametrize("damage", ["directory", "symlink", "fifo", "empty", "junk", "path"])
def test_a_damaged_backend_file_is_named_not_taken_over(tmp_path: Path, damage: str) -> None:
    """A `backend` file memdock did not write is refused naming it: never read as "no backend yet" (the next write
    would bind the store to another backend), never blocks (a FIFO), never names an adapter to run by path."""
    store = Store(tmp_path / "s")
    with store.write_lock(backend="null"):
        pass
    path = store.root / BACKEND_FILE
    path.unlink()
    if damage == "directory":
        path.mkdir()
    elif damage == "symlink":
        (tmp_path / "elsewhere").write_text("null\n")
        path.symlink_to(tmp_path / "elsewhere")
    elif damage == "fifo":
        os.mkfifo(path)
    else:
        path.write_text({"empty": "", "junk": "null extra\nline\n", "path": "./evil\n"}[damage])
    named = pytest.raises(ConfigError, match=re.escape(str(path)))
    with named:
        resolve(data_dir=store.root, env={"MEMDOCK_HOME": str(tmp_path / "home")}, cwd=tmp_path)
    with named, store.write_lock(backend="sqlite"):
        raise AssertionError("a write ran on a store whose backend file is damaged")


def test_a_store_file_never_picks_an_adapter_by_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`data_dir` in a project's memdock.toml may name a store in that project; its `backend` file naming a folder
    beside it that holds an adapter.json must not make memdock run that adapter (a project config may not)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil").mkdir()
    (tmp_path / "evil" / "adapter.json").write_text("{}")
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / BACKEND_FILE).write_text("evil\n")
    (tmp_path / "memdock.toml").write_text('data_dir = "store"\n')
    with pytest.raises(ConfigError, match="never picks an adapter by path"):
        resolve(env={"MEMDOCK_HOME": str(tmp_path / "home")}, cwd=tmp_path)


def test_doctor_reports_a_configured_backend_the_store_refuses(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / ".memdock-store").write_text("memdock store, format 1\n")
    (store / BACKEND_FILE).write_text("null\n")
    config = tmp_path / "memdock.toml"
    config.write_text(f'backend = "sqlite"\ndata_dir = "{store}"\n')
    env = {"MEMDOCK_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "MEMDOCK_CONFIG": str(config)}
    done = run_memdock("doctor", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert "refused: the store at" in done.stdout and "indexed by the null backend" in done.stdout


def test_an_older_store_is_its_backends_by_its_first_store_file(tmp_path: Path) -> None:
    """tantivy names `index` and `chunks`; a store of its first layout holds no `chunks` and is tantivy's all the
    same (`chunks` counts once the ledger has recorded it: engine.lost)."""
    store = Store(tmp_path / "store").ensure()
    (store.data_dir / "index").mkdir()
    (store.data_dir / "memdock-tantivy.json").write_text("{}")
    counted(store)
    with store.write_lock(backend="tantivy", store_files=["index", "chunks"]):
        pass
    assert (store.root / BACKEND_FILE).read_text() == "tantivy\n"
