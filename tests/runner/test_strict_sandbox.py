"""The strict sandbox: an adapter reads only its allowlist; without Landlock, strict refuses to run at all.

A hostile adapter (tests/adapters/hostile-reader) tries to read a fake ~/.ssh/id_rsa under a temporary
HOME and answers with what it got.
"""

import json
import os
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
    return subprocess.run([sys.executable, "-m", "memdock", *args], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=300)


@needs_landlock
def test_strict_from_the_cli_flag_and_from_memdock_toml(tmp_path, home):
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

    monkeypatch.setenv("HOME", str(home))

    async def ask() -> str:
        async with MemoryService(str(HOSTILE), data_dir=tmp_path / "store", sandbox="strict") as service:
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
