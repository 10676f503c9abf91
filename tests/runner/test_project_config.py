"""Issue 33, ugly cases on config files and flags: a memdock.toml in the current directory may not turn the sandbox
off nor run an adapter from a path on its own; a key memdock does not know is an error naming it and the file;
`import --map` without `=` is refused."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from support.cli import inherited_env, run_memdock

from memdock.config import resolve
from memdock.errors import ConfigError
from memdock.runner import landlock

HOSTILE = Path(__file__).resolve().parents[1] / "adapters" / "hostile-reader"


def memdock(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return run_memdock(*args, env=inherited_env(MEMDOCK_HOME=str(cwd / "home"), **env), cwd=cwd)


def planted(tmp_path: Path, toml: str) -> Path:
    folder = tmp_path / "project"
    shutil.copytree(HOSTILE, folder / "evil")
    (folder / "memdock.toml").write_text(toml)
    (folder / "store").mkdir()
    return folder


@pytest.mark.parametrize(
    "toml,named",
    [('backend = "./evil"\ndata_dir = "store"\n', "an adapter by path"),
     ('backend = "evil"\ndata_dir = "store"\n', "an adapter by path"),
     ('sandbox = "off"\ndata_dir = "store"\n', 'sandbox = "off"')],
)  # fmt: skip
def test_a_project_config_cannot_run_an_adapter_from_a_path_or_unsandboxed(tmp_path, toml, named):
    folder = planted(tmp_path, toml)
    out = memdock(folder, "recall", "x")
    assert out.returncode != 0
    assert named in out.stderr and str(folder / "memdock.toml") in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    trusted = memdock(folder, "recall", "x", MEMDOCK_TRUST_PROJECT_CONFIG="1")
    assert "not followed" not in trusted.stderr
    named_file = memdock(tmp_path, "recall", "x", MEMDOCK_CONFIG=str(folder / "memdock.toml"))
    assert "not followed" not in named_file.stderr


def test_an_unknown_key_is_an_error_naming_key_and_file(tmp_path):
    (tmp_path / "memdock.toml").write_text('sandox = "strict"\n')
    with pytest.raises(ConfigError, match=r"memdock.toml: unknown key 'sandox'"):
        resolve(cwd=tmp_path, env={})
    out = memdock(tmp_path, "recall", "x")
    assert out.returncode != 0 and "unknown key 'sandox'" in out.stderr, out.stderr


def test_import_map_without_equals_is_refused(tmp_path):
    src = tmp_path / "chat.jsonl"
    src.write_text('{"message": "hello", "author": "a"}\n')
    out = memdock(tmp_path, "import", str(src), "-f", "jsonl", "--map", "nonsense", "-o", str(tmp_path / "corpus"))
    assert out.returncode != 0 and "--map 'nonsense'" in out.stderr, out.stderr
    assert not (tmp_path / "corpus").exists()


def test_export_of_a_thread_the_store_does_not_hold_is_an_error(tmp_path):
    store = str(tmp_path / "store")
    assert (
        memdock(tmp_path, "remember", "the kiln fires at noon", "--thread", "kiln", "--data-dir", store).returncode == 0
    )
    out = memdock(tmp_path, "export", "-o", str(tmp_path / "out"), "--thread", "nosuch", "--data-dir", store)
    assert out.returncode != 0 and "--thread 'nosuch'" in out.stderr and "no such thread" in out.stderr, out
    assert not (tmp_path / "out").exists()
    kept = memdock(tmp_path, "export", "-o", str(tmp_path / "kiln"), "--thread", "kiln", "--data-dir", store)
    assert kept.returncode == 0, kept.stderr


def test_index_export_and_recall_on_a_corrupt_ledger_are_clear_errors(tmp_path):
    store = tmp_path / "store"
    assert memdock(tmp_path, "remember", "the kiln fires at noon", "--data-dir", str(store)).returncode == 0
    (store / "ledger.sqlite").write_bytes(b"not a database " * 400)
    for name in ("ledger.sqlite-wal", "ledger.sqlite-shm"):
        (store / name).unlink(missing_ok=True)
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "threads"
    out = memdock(tmp_path, "add", str(fixtures), "-f", "watercooler", "--data-dir", str(store))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert f"{store / 'ledger.sqlite'}: the store's ledger cannot be opened" in out.stderr, out.stderr
    export = memdock(tmp_path, "export", "-o", str(tmp_path / "out"), "--data-dir", str(store))
    assert export.returncode != 0 and "Traceback" not in export.stderr
    assert f"{store / 'ledger.sqlite'}: the store's ledger cannot be opened" in export.stderr, export.stderr
    recall = memdock(tmp_path, "recall", "nothing like this", "--data-dir", str(store))
    assert recall.returncode != 0 and "is empty" not in recall.stdout + recall.stderr
    assert f"{store / 'ledger.sqlite'}: the store's ledger cannot be opened" in recall.stderr, recall


def hung(tmp_path: Path, query_timeout: float | None):
    import json

    from memdock.registry import AdapterDescriptor
    from memdock.runner.backend import SubprocessBackend

    folder = tmp_path / "adapters" / "stopped"
    shutil.copytree(Path(__file__).resolve().parents[1] / "adapters" / "hostile-signaller", folder)
    if query_timeout is not None:
        raw = json.loads((folder / "adapter.json").read_text())
        raw["timeouts"] = {"query": query_timeout}
        (folder / "adapter.json").write_text(json.dumps(raw))
    return SubprocessBackend(AdapterDescriptor.load(folder), tmp_path / "store", retries=1, backoff=0.01, workers=0)


def test_a_deadline_bounds_a_hung_adapter_retries_included(tmp_path):
    """The signaller stops itself, so it never answers: a 4 s deadline leaves no time for a second attempt."""
    from memdock.errors import TransientError

    with hung(tmp_path, None) as backend, pytest.raises(TransientError) as err:
        backend.query("self:SIGSTOP", timeout=4)
    assert err.value.details["attempts"] == 1


def test_timeouts_query_bounds_each_attempt_under_a_longer_deadline(tmp_path):
    from memdock.errors import TransientError

    with hung(tmp_path, 2) as backend, pytest.raises(TransientError) as err:
        backend.query("self:SIGSTOP", timeout=60)
    assert err.value.details["attempts"] == 2


def reader_project(tmp_path: Path, target: str) -> tuple[Path, dict[str, str]]:
    """A project folder whose memdock.toml points the hostile reader's `target` at TARGET; the reader itself is
    the user's (found through MEMDOCK_ADAPTER_PATH, as a trusted install would be)."""
    folder = tmp_path / "project"
    folder.mkdir(parents=True)
    shutil.copytree(HOSTILE, tmp_path / "adapters" / "hostile-reader")
    (folder / "notes.txt").write_text("the project's own notes\n")
    (folder / "store").mkdir()
    (folder / "memdock.toml").write_text(
        f'backend = "hostile-reader"\ndata_dir = "store"\n[adapters.hostile-reader]\ntarget = "{target}"\n'
    )
    return folder, {"MEMDOCK_ADAPTER_PATH": str(tmp_path / "adapters"), "HOME": str(tmp_path / "home")}


@pytest.mark.skipif(landlock.abi_version() < 1, reason="this kernel offers no Landlock")
def test_a_project_config_cannot_widen_the_strict_read_allowlist(tmp_path, key):
    """An absolute path in an adapter's config is readable under --sandbox strict (`key`, from
    tests/runner/conftest.py, is a fake private key in a fake home): a folder's own memdock.toml
    may name one only inside that folder, unless the user trusts the file."""
    folder, env = reader_project(tmp_path, str(key))
    out = memdock(folder, "query", "x", "--sandbox", "strict", "--json", **env)
    assert "not-a-real-key" not in out.stdout + out.stderr
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert "[adapters.hostile-reader] target" in out.stderr and str(folder / "memdock.toml") in out.stderr
    trusted = memdock(folder, "query", "x", "--sandbox", "strict", "--json", MEMDOCK_TRUST_PROJECT_CONFIG="1", **env)
    assert "not-a-real-key" in trusted.stdout, trusted.stderr  # the user's own config: the documented allowlist
    inside, env = reader_project(tmp_path / "b", str(tmp_path / "b" / "project" / "notes.txt"))
    own = memdock(inside, "query", "x", "--sandbox", "strict", "--json", **env)
    assert "the project's own notes" in own.stdout, own.stderr


def test_a_project_config_cannot_name_interpreters_memdock_would_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ran = tmp_path / "ran"
    (tmp_path / "evil.sh").write_text(f"#!/bin/sh\ntouch {ran}\necho 3.12.0\n")
    (tmp_path / "evil.sh").chmod(0o755)
    (tmp_path / "memdock.toml").write_text('python_interpreters = ["./evil.sh"]\n')
    from memdock.interpreters import find_interpreter

    with pytest.raises(ConfigError, match="python_interpreters"):
        find_interpreter(">=3.0", "adapter x", env={"PATH": os.defpath})
    assert not ran.exists()


def test_a_backend_name_too_long_for_a_path_is_an_error_not_a_traceback(tmp_path):
    """ENAMETOOLONG from looking for NAME/adapter.json (the project-config check, then the registry) was a
    traceback."""
    long = "a" * 300
    (tmp_path / "memdock.toml").write_text(f'backend = "{long}"\n')
    (tmp_path / "elsewhere").mkdir()
    for out in (memdock(tmp_path, "recall", "x"), memdock(tmp_path / "elsewhere", "recall", "x", "-b", long)):
        assert out.returncode != 0 and "Traceback" not in out.stderr, out.stderr
        assert f"no adapter named {long!r}" in out.stderr, out.stderr
