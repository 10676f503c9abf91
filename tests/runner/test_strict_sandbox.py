"""The strict sandbox: an adapter reads only its allowlist; without Landlock, strict refuses to run at all.

A hostile adapter (tests/adapters/hostile-reader) tries to read a fake ~/.ssh/id_rsa under a temporary
HOME and answers with what it got.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memdock.errors import ConfigError
from memdock.registry import AdapterDescriptor
from memdock.runner import landlock
from memdock.runner.backend import SubprocessBackend

HOSTILE = Path(__file__).resolve().parents[1] / "adapters" / "hostile-reader"
KEY = "-----BEGIN FAKE OPENSSH PRIVATE KEY-----\nnot-a-real-key-0b5e\n"

needs_landlock = pytest.mark.skipif(landlock.abi_version() < 1, reason="this kernel offers no Landlock")


@pytest.fixture
def home(tmp_path) -> Path:
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text(KEY)
    return h


def hostile(tmp_path, home, sandbox, **kw) -> SubprocessBackend:
    env = {**os.environ, "HOME": str(home)}
    return SubprocessBackend(AdapterDescriptor.load(HOSTILE), tmp_path / "store", env=env, sandbox=sandbox, **kw)


@needs_landlock
@pytest.mark.parametrize("workers", [0, 1])
def test_a_key_under_home_is_readable_by_default_and_not_under_strict(tmp_path, home, workers):
    with hostile(tmp_path, home, True, workers=workers) as b:
        assert b.query("x").reason == "read: " + KEY
    with hostile(tmp_path, home, "strict", workers=workers) as b:
        reason = b.query("x").reason
    assert reason.startswith("denied: PermissionError"), reason
    assert "not-a-real-key" not in reason


@needs_landlock
def test_strict_still_reads_what_config_names(tmp_path, home):
    """A path the adapter's config names (a model directory, say) is on the allowlist."""
    with hostile(tmp_path, home, "strict", config={"target": str(home / ".ssh" / "id_rsa")}) as b:
        assert b.query("x").reason == "read: " + KEY


def memdock(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": str(home), "MEMDOCK_HOME": str(cwd / "memdock-home")}
    env.pop("MEMDOCK_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "memdock", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300
    )


@needs_landlock
def test_strict_from_the_cli_flag_and_from_memdock_toml(tmp_path, home):
    (tmp_path / "store").mkdir()
    query = ["query", "x", "-b", str(HOSTILE), "--data-dir", str(tmp_path / "store"), "--json"]
    default = memdock(*query, home=home, cwd=tmp_path)
    assert default.returncode == 0, default.stderr
    assert json.loads(default.stdout)["reason"] == "read: " + KEY

    flag = memdock(*query, "--sandbox", "strict", home=home, cwd=tmp_path)
    assert flag.returncode == 0, flag.stderr
    assert json.loads(flag.stdout)["reason"].startswith("denied: PermissionError")

    (tmp_path / "memdock.toml").write_text('sandbox = "strict"\n')
    toml = memdock(*query, home=home, cwd=tmp_path)
    assert toml.returncode == 0, toml.stderr
    assert json.loads(toml.stdout)["reason"].startswith("denied: PermissionError")
    overridden = memdock(*query, "--sandbox", "writes", home=home, cwd=tmp_path)
    assert json.loads(overridden.stdout)["reason"] == "read: " + KEY


@needs_landlock
def test_strict_from_the_python_api(tmp_path, home, monkeypatch):
    from memdock import Memory

    monkeypatch.setenv("HOME", str(home))
    with Memory(str(HOSTILE), data_dir=tmp_path / "store", sandbox="strict") as memory:
        result = memory.recall("x")
    assert result.reason.startswith("denied: PermissionError"), result.reason


@needs_landlock
def test_strict_from_the_async_service(tmp_path, home, monkeypatch):
    import asyncio

    from memdock import MemoryService
    from memdock.connect import open_backend

    monkeypatch.setenv("HOME", str(home))

    async def ask() -> str:
        async with MemoryService(open_backend(str(HOSTILE), data_dir=tmp_path / "store", sandbox="strict")) as service:
            return (await service.query("x")).reason

    assert asyncio.run(ask()).startswith("denied: PermissionError")


def test_strict_without_landlock_refuses_to_run(tmp_path, home, monkeypatch):
    """Fail closed: where the kernel has no Landlock, strict is refused up front, and a launch that gets past
    that anyway (the kernel changed under it) fails to start rather than run unconfined."""
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)
    with pytest.raises(ConfigError, match="no Landlock") as err:
        hostile(tmp_path, home, "strict")
    assert err.value.details["sandbox"] == "strict"
    with hostile(tmp_path, home, True) as b:  # the default sandbox still runs, unconfined, as documented
        assert b.query("x").reason == "read: " + KEY


@needs_landlock
def test_strict_fails_closed_when_landlock_goes_away_after_the_check(tmp_path, home, monkeypatch):
    b = hostile(tmp_path, home, "strict", retries=0)
    monkeypatch.setattr(landlock, "abi_version", lambda: 0)
    with pytest.raises(ConfigError, match="inside its sandbox") as err:
        b.query("x")
    assert err.value.details["sandbox"] == "strict"


def test_a_bad_sandbox_value_is_a_config_error(tmp_path, home):
    with pytest.raises(ConfigError, match="sandbox must be one of"):
        hostile(tmp_path, home, "paranoid")


def test_doctor_says_whether_strict_is_available(tmp_path, home):
    out = memdock("doctor", "--json", home=home, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    expected = "available" if landlock.abi_version() >= 1 else "not available"
    assert report["strict_sandbox"].startswith(expected)


# --- issue #12 case 11, redteam findings 1 and 5: what the allowlist itself lets through ---


def binsh_reader(tmp_path) -> Path:
    """The hostile reader started through /bin/sh (runtime executable): its program is /bin/sh, whose
    grandparent is / on a merged-/usr system."""
    folder = tmp_path / "binsh-reader"
    shutil.copytree(HOSTILE, folder)
    raw = json.loads((folder / "adapter.json").read_text())
    raw["runtime"] = {"kind": "executable"}
    raw["command"] = ["/bin/sh", "-c", f'exec {sys.executable} {folder / "adapter.py"} "$@"', "sh"]
    (folder / "adapter.json").write_text(json.dumps(raw))
    return folder


@needs_landlock
@pytest.mark.parametrize("workers", [0, 1])
def test_an_adapter_run_by_bin_sh_cannot_read_home_nor_the_host_environment(tmp_path, home, workers):
    env = {**os.environ, "HOME": str(home), "MEMDOCK_TEST_SECRET": "sk-host-secret-7f"}
    with SubprocessBackend(
        AdapterDescriptor.load(binsh_reader(tmp_path)), tmp_path / "store", env=env, sandbox="strict", workers=workers
    ) as b:
        key = b.query("x").reason
        environ = b.query(f"/proc/{os.getpid()}/environ").reason
    assert key.startswith("denied: PermissionError"), key
    assert environ.startswith("denied: PermissionError"), environ


@needs_landlock
def test_a_file_in_dev_shm_is_unreadable_under_strict(tmp_path, home):
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    planted = shm / f"memdock-test-other-{os.getpid()}"
    planted.write_text("another program's shared memory")
    try:
        with hostile(tmp_path, home, True) as b:
            assert b.query(str(planted)).reason == "read: another program's shared memory"
        with hostile(tmp_path, home, "strict") as b:
            reason = b.query(str(planted)).reason
    finally:
        planted.unlink()
    assert reason.startswith("denied: PermissionError"), reason


@needs_landlock
def test_another_store_under_a_memdock_home_inside_the_venv_is_unreadable(tmp_path, home):
    """MEMDOCK_HOME inside the interpreter's venv (as COMMON.md recommends): the venv stays readable, the
    stores in it do not, nor this store's own ledger; the call's own data dir does."""
    memdock_home = Path(sys.prefix) / f"memdock-home-test-{os.getpid()}"
    other = memdock_home / "stores" / "other" / "data" / "secret.txt"
    other.parent.mkdir(parents=True)
    other.write_text("another backend's store")
    env = {**os.environ, "HOME": str(home), "MEMDOCK_HOME": str(memdock_home)}
    store = memdock_home / "stores" / "mine"
    try:
        with SubprocessBackend(AdapterDescriptor.load(HOSTILE), store, env=env, sandbox="strict") as b:
            denied = b.query(str(other)).reason
            ledger = b.query(str(store / "ledger.sqlite")).reason if (store / "ledger.sqlite").exists() else None
            (store / "data" / "own.txt").write_text("mine")
            own = b.query(str(store / "data" / "own.txt")).reason
    finally:
        shutil.rmtree(memdock_home)
    assert denied.startswith("denied: PermissionError"), denied
    assert ledger is None or ledger.startswith("denied: PermissionError"), ledger
    assert own == "read: mine"


@pytest.mark.parametrize("python", ["/bin/python3", "/usr/bin/python3", "/bin/sh"])
def test_no_allowlist_holds_root_or_home_whatever_the_program(tmp_path, home, python, monkeypatch):
    """memdock itself run as /bin/python3 (its grandparent is /), or an adapter whose program is /bin/sh."""
    from memdock.runner.readset import strict_readable

    if not os.path.exists(python):
        pytest.skip(f"no {python} here")
    monkeypatch.setattr(sys, "executable", python)
    monkeypatch.setenv("HOME", str(home))
    env = {**os.environ, "HOME": str(home)}
    allowed = strict_readable(AdapterDescriptor.load(binsh_reader(tmp_path)), [python, "-c", "pass"], env, {})
    for p in allowed:
        real = Path(os.path.realpath(p))
        assert real != Path("/") and real != home and real not in home.parents, p
        assert real != Path(os.path.realpath("/home")), p


def test_a_program_in_a_home_bin_dir_opens_only_itself(tmp_path, home):
    from memdock.runner.readset import strict_readable

    tool = home / "bin" / "tool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    (home / "notes.txt").write_text("private")
    allowed = strict_readable(
        AdapterDescriptor.load(binsh_reader(tmp_path)), [str(tool)], {**os.environ, "HOME": str(home)}, {}
    )
    under_home = [p for p in allowed if Path(p) == home or home in Path(p).parents]
    assert under_home == [str(tool)]


@pytest.mark.parametrize("where", ["/", "home", "above-home"])
def test_an_allowlist_holding_root_or_home_is_refused(tmp_path, home, where):
    """The guard: whatever adds it (here a config value naming a folder), / , a home dir or a folder above one
    is refused with a ConfigError instead of run."""
    from memdock.runner.readset import strict_readable

    path = {"/": "/", "home": str(home), "above-home": str(home.parent)}[where]
    with pytest.raises(ConfigError, match="strict sandbox") as err:
        strict_readable(
            AdapterDescriptor.load(HOSTILE), [sys.executable], {**os.environ, "HOME": str(home)}, {"model_dir": path}
        )
    assert err.value.details["sandbox"] == "strict"


@needs_landlock
def test_an_adapter_that_declares_shared_memory_gets_dev_shm_under_strict(tmp_path, home):
    """POSIX semaphores (multiprocessing locks) live in /dev/shm: an adapter that needs them says so."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm here")
    folder = tmp_path / "shm-reader"
    shutil.copytree(HOSTILE, folder)
    raw = json.loads((folder / "adapter.json").read_text())
    raw["sandbox"] = {"shared_memory": True}
    (folder / "adapter.json").write_text(json.dumps(raw))
    planted = Path("/dev/shm") / f"memdock-test-declared-{os.getpid()}"
    planted.write_text("shared")
    try:
        with SubprocessBackend(
            AdapterDescriptor.load(folder), tmp_path / "store", env={**os.environ, "HOME": str(home)}, sandbox="strict"
        ) as b:
            assert b.query(str(planted)).reason == "read: shared"
            assert b.query("x").reason.startswith("denied: PermissionError")
    finally:
        planted.unlink()
