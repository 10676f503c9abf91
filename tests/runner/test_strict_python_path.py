"""Issue 33, broken 1: adapter.json's `python_path` must not put a folder outside the adapter's own on the strict
sandbox's read allowlist (memdock's own adapters/common aside).

A copy of the hostile reader names a folder holding a fake key (by `../..`, and through a symlink inside its own
folder), or another store's data dir; it must be refused before it runs, and a descriptor built around the check
must still not get read rights there.
"""

import json
import os
import shutil
from pathlib import Path

import pytest

from memdock.errors import ConfigError
from memdock.registry import AdapterDescriptor
from memdock.runner import landlock
from memdock.runner.backend import SubprocessBackend

HOSTILE = Path(__file__).resolve().parents[1] / "adapters" / "hostile-reader"
BUNDLED = Path(__file__).resolve().parents[2] / "adapters"

needs_landlock = pytest.mark.skipif(landlock.abi_version() < 1, reason="this kernel offers no Landlock")


def reader_with(tmp_path: Path, python_path: list[str], *, link: Path | None = None) -> Path:
    folder = tmp_path / "adapters" / "reader"
    shutil.copytree(HOSTILE, folder)
    raw = json.loads((folder / "adapter.json").read_text())
    raw["python_path"] = python_path
    (folder / "adapter.json").write_text(json.dumps(raw))
    if link is not None:
        (folder / "lib").symlink_to(link)
    return folder


def escapes(tmp_path: Path, key: Path) -> list[tuple[list[str], Path | None]]:
    rel = os.path.relpath(key.parent, tmp_path / "adapters" / "reader")
    return [([".", rel], None), ([rel + "/id_rsa"], None), (["lib"], key.parent), (["./lib/.."], key.parent)]


@pytest.mark.parametrize("case", range(4))
def test_a_python_path_outside_the_adapter_folder_is_refused_at_load(tmp_path, key, case):
    python_path, link = escapes(tmp_path, key)[case]
    folder = reader_with(tmp_path, python_path, link=link)
    with pytest.raises(ConfigError, match=r"python_path\[\d\].*outside the adapter folder") as err:
        AdapterDescriptor.load(folder)
    assert str(folder / "adapter.json") in str(err.value)


@needs_landlock
def test_strict_never_grants_reads_through_python_path_even_past_load(tmp_path, key):
    """A descriptor built without load (an embedding application, say): the strict run is refused, no key read."""
    folder = reader_with(tmp_path, escapes(tmp_path, key)[0][0])
    raw = json.loads((folder / "adapter.json").read_text())
    env = {**os.environ, "HOME": str(key.parent.parent)}
    backend = SubprocessBackend(
        AdapterDescriptor(folder, raw), tmp_path / "store", env=env, sandbox="strict", config={"target": ""}
    )
    with backend as b, pytest.raises(ConfigError, match="outside the adapter folder"):
        b.query(str(key))


@needs_landlock
def test_another_stores_files_stay_unreadable_under_strict(tmp_path, key):
    other = tmp_path / "other-store" / "data"
    other.mkdir(parents=True)
    (other / "memory.sqlite").write_text("another store's memory")
    folder = reader_with(tmp_path, [".", os.path.relpath(other, tmp_path / "adapters" / "reader")])
    with pytest.raises(ConfigError, match="outside the adapter folder"):
        AdapterDescriptor.load(folder)
    ok = reader_with(tmp_path / "ok", ["."])
    env = {**os.environ, "HOME": str(key.parent.parent)}
    with SubprocessBackend(AdapterDescriptor.load(ok), tmp_path / "store", env=env, sandbox="strict") as b:
        reason = b.query(str(other / "memory.sqlite")).reason
        own = b.query(str(ok / "adapter.json")).reason
    assert reason.startswith("denied: PermissionError"), reason
    assert own.startswith("read: {"), own


def test_the_bundled_adapters_shared_code_is_still_allowed():
    for name in ("mem0", "openmemory"):
        d = AdapterDescriptor.load(BUNDLED / name)
        assert (BUNDLED / "common").resolve() in d.python_path()


@pytest.mark.parametrize("name", ["tool", "python3"])
def test_a_program_that_links_to_a_folder_grants_no_read_there(tmp_path, key, name):
    """adapter.json's command[0] grants read on the program it names, a file: a link to ~/.ssh grants nothing."""
    from memdock.runner.readset import program_paths

    link = tmp_path / "adapters" / "reader" / name
    link.parent.mkdir(parents=True)
    link.symlink_to(key.parent)
    granted = program_paths(str(link))
    assert key.parent not in granted and link not in granted, granted
