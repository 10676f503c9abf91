"""adapter.json `runtime.python`: the interpreter an adapter's virtualenv is made with, found on PATH, in pyenv or in
memdock.toml; refused when none is in range; a virtualenv made with another is noticed and rebuilt; the SDK runs on
each Python from 3.10 to 3.13 that this machine has."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memdock.errors import ConfigError
from memdock.interpreters import find_interpreter, in_range, parse_range

ROOT = Path(__file__).resolve().parents[2]
IN_VENV = ROOT / "tests" / "adapters" / "in-venv"
MARKER = "memdock-install.json"


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def pinned_adapter(tmp_path: Path, spec: str) -> Path:
    """The in-venv test adapter (empty requirements) asking for Python SPEC."""
    folder = tmp_path / "adapters" / "in-venv"
    shutil.copytree(IN_VENV, folder)
    raw = json.loads((folder / "adapter.json").read_text())
    raw["runtime"]["python"] = spec
    (folder / "adapter.json").write_text(json.dumps(raw))
    return folder


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "MEMDOCK_HOME": str(tmp_path / "home"),
        "MEMDOCK_ADAPTER_PATH": str(tmp_path / "adapters"),
        **extra,
    }


def memdock(env, *args, **kw):
    return run([sys.executable, "-m", "memdock", *args], env=env, **kw)


def listed(env):
    rows = json.loads(memdock(env, "adapters", "list", "--json", check=True).stdout)
    return next(r for r in rows if r["name"] == "in-venv")


def test_version_ranges():
    assert in_range("3.13.0", ">=3.13,<3.14") and not in_range("3.14.0", ">=3.13,<3.14")
    assert in_range("3.12.1", "3.12") and not in_range("3.13.0", "3.12")
    assert in_range("3.12.9", "==3.12.*") and not in_range("3.12.9", "!=3.12.*")
    assert in_range("3.13.1", "~=3.12") and not in_range("3.13.1", "~=3.12.0")
    assert in_range("3.11.7", None)
    for bad in (">=3.x", "3.13,", ">3.*", "~=3", "python3"):
        with pytest.raises(ConfigError, match="runtime.python"):
            parse_range(bad)


def fake_python(folder: Path, version: str) -> Path:
    """An 'interpreter' that answers memdock's probe with VERSION (no real Python of that version is needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / f"python{version}"
    exe.write_text(f'#!/bin/sh\necho {version}\necho "$0"\n')
    exe.chmod(0o755)
    return exe


def test_an_interpreter_listed_in_memdock_toml_is_found_first(tmp_path):
    exe = fake_python(tmp_path / "bin", "3.99.1")
    toml = tmp_path / "memdock.toml"
    toml.write_text(f'python_interpreters = ["{exe}"]\n')
    found = find_interpreter(">=3.99", "adapter x", {**os.environ, "MEMDOCK_CONFIG": str(toml)})
    assert (found.path, found.version) == (str(exe), "3.99.1")
    assert str(toml) in found.source

    pinned_adapter(tmp_path, ">=3.99")
    env = cli_env(tmp_path, MEMDOCK_CONFIG=str(toml))
    assert listed(env)["python"] == f"3.99.1 ({exe}, once installed)"


def test_pyenv_versions_are_candidates(tmp_path):
    root = tmp_path / "pyenv"
    exe = fake_python(root / "versions" / "3.98.0" / "bin", "3.98.0")
    exe.rename(exe.with_name("python"))
    found = find_interpreter("==3.98.*", "adapter x", {"PATH": "", "PYENV_ROOT": str(root), "MEMDOCK_CONFIG": ""})
    assert found.version == "3.98.0" and found.path == str(root / "versions" / "3.98.0" / "bin" / "python")
    assert found.source == f"pyenv ({root / 'versions'})"


def test_no_interpreter_in_range_is_refused_naming_the_range_and_where_memdock_looked(tmp_path):
    pinned_adapter(tmp_path, ">=3.99")
    root = tmp_path / "pyenv"
    fake_python(root / "versions" / "3.98.0" / "bin", "3.98.0").rename(root / "versions" / "3.98.0" / "bin" / "python")
    env = cli_env(tmp_path, PYENV_ROOT=str(root))
    out = memdock(env, "adapters", "install", "in-venv", timeout=300)
    assert out.returncode != 0
    err = out.stderr
    assert "adapter in-venv needs Python >=3.99 (adapter.json runtime.python)" in err
    assert "the interpreter running memdock" in err and "PATH:" in err
    assert f"pyenv ({root / 'versions'}): {root / 'versions' / '3.98.0' / 'bin' / 'python'}: Python 3.98.0" in err
    assert "python_interpreters in memdock.toml" in err
    assert not (tmp_path / "home" / "venvs" / "in-venv-1.0.0").exists(), "nothing was built"
    assert listed(env)["python"] == "none in range >=3.99 (see: memdock adapters install in-venv)"


def test_a_virtualenv_made_with_an_interpreter_out_of_range_is_not_installed(tmp_path):
    from memdock.installs import expected_marker
    from memdock.registry import AdapterDescriptor

    folder = pinned_adapter(tmp_path, ">=3.99")
    target = tmp_path / "home" / "venvs" / "in-venv-1.0.0"
    (target / "bin").mkdir(parents=True)
    (target / "bin" / "python").symlink_to(sys.executable)
    here = ".".join(map(str, sys.version_info[:3]))
    (target / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {here}\n")
    marker = {
        **expected_marker(AdapterDescriptor.load(folder), []),
        "python": {"path": sys.executable, "version": here},
    }
    (target / MARKER).write_text(json.dumps(marker))
    env = cli_env(tmp_path)
    assert listed(env)["installed"] == (
        f"no: has a virtualenv made with Python {here}, outside its runtime.python >=3.99; "
        "installing again rebuilds it with an interpreter in range"
    )
    call = memdock(env, "health", "-b", "in-venv")
    assert call.returncode != 0 and f"made with Python {here}, outside its runtime.python >=3.99" in call.stderr

    # the marker may claim an interpreter in range: pyvenv.cfg says what the virtualenv really runs
    marker["python"]["version"] = "3.99.0"
    (target / MARKER).write_text(json.dumps(marker))
    assert f"made with Python {here}, outside" in listed(env)["installed"]


def available(version: str) -> str | None:
    try:
        return find_interpreter(f"=={version}.*", "test").path
    except ConfigError:
        return None


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("version", ["3.10", "3.11", "3.12", "3.13"])
def test_the_sdk_installs_and_runs_under_each_interpreter(tmp_path, version):
    if available(version) is None:
        pytest.skip(f"no Python {version} on this machine (PATH, pyenv, memdock.toml)")
    pinned_adapter(tmp_path, f"=={version}.*")
    env = cli_env(tmp_path)
    target = tmp_path / "home" / "venvs" / "in-venv-1.0.0"
    if version != "3.11" or not sys.version.startswith("3.11"):
        # a virtualenv made with the wrong interpreter (memdock's own) is there first: install notices and rebuilds
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True)
        from memdock.installs import expected_marker
        from memdock.registry import AdapterDescriptor

        marker = expected_marker(AdapterDescriptor.load(tmp_path / "adapters" / "in-venv"), [])
        (target / MARKER).write_text(json.dumps(marker))
        assert listed(env)["installed"].startswith("no: has a virtualenv made with Python 3.11")
    out = memdock(env, "adapters", "install", "in-venv", timeout=800)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "already installed" not in out.stdout
    made = json.loads((target / MARKER).read_text())["python"]
    assert made["version"].startswith(version + "."), made
    health = memdock(env, "health", "-b", "in-venv")
    assert health.returncode == 0, health.stderr
    assert f"python={made['version']}" in health.stdout and f"prefix={target}" in health.stdout
    row = listed(env)
    assert row["installed"] == "yes" and row["python"].startswith(made["version"] + " (")
