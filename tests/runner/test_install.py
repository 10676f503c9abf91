"""`memdock adapters install`: memdock comes from the running installation, installs are atomic and marked."""

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from memdock.registry import AdapterDescriptor

MARKER = "memdock-install.json"

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = ROOT / "tests" / "adapters"


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def cli_env(home, adapter_path, *, outside=False):
    env = {k: v for k, v in os.environ.items() if not (outside and k == "PYTHONPATH")}
    return {**env, "MEMDOCK_HOME": str(home), "MEMDOCK_ADAPTER_PATH": str(adapter_path)}


def listed(python, env, name):
    rows = json.loads(run([python, "-m", "memdock", "adapters", "list", "--json"], env=env, check=True).stdout)
    return next(r for r in rows if r["name"] == name)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_install_from_a_wheel_install_outside_the_checkout(tmp_path):
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, ROOT], check=True)
    (wheel,) = dist.glob("memdock-*.whl")
    outside = tmp_path / "wheel-venv"
    venv.EnvBuilder(with_pip=True).create(outside)
    py = outside / "bin" / "python"
    run([py, "-m", "pip", "install", "-q", wheel], check=True, cwd=tmp_path)  # its dependencies as usual
    shutil.copytree(ADAPTERS / "in-venv", tmp_path / "adapters" / "in-venv")
    home = tmp_path / "home"
    env = cli_env(home, tmp_path / "adapters", outside=True)
    where = run([py, "-c", "import memdock; print(memdock.__file__)"], env=env, cwd=tmp_path, check=True).stdout
    assert where.startswith(str(outside)), "memdock must run from the wheel install, not the checkout"

    out = run([py, "-m", "memdock", "adapters", "install", "in-venv"], env=env, cwd=tmp_path, timeout=800)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "pip wheel" not in out.stdout, "a wheel install has no source tree to build from"
    target = home / "venvs" / "in-venv-1.0.0"
    (direct_url,) = target.glob("lib/python*/site-packages/memdock-*.dist-info/direct_url.json")
    url = json.loads(direct_url.read_text())["url"]
    assert url.startswith("file://") and url.endswith(".whl"), f"memdock came from {url}, not the running installation"
    (installed,) = target.glob("lib/python*/site-packages/memdock")
    running = next(outside.glob("lib/python*/site-packages/memdock"))
    for rel in (
        "__init__.py",
        "installs.py",
        "_data/schemas/v1/adapter.schema.json",
        "_data/adapters/null/adapter.json",
    ):
        assert (installed / rel).read_bytes() == (running / rel).read_bytes(), rel
    from memdock import __version__

    assert json.loads((target / MARKER).read_text())["memdock"] == __version__

    health = run([py, "-m", "memdock", "health", "-b", "in-venv"], env=env, cwd=tmp_path)
    assert health.returncode == 0, health.stderr
    assert f"prefix={target}" in health.stdout
    assert listed(py, env, "in-venv")["installed"] == "yes"
    again = run([py, "-m", "memdock", "adapters", "install", "in-venv"], env=env, cwd=tmp_path, check=True)
    assert "already installed" in again.stdout
    assert sorted(p.name for p in (home / "venvs").iterdir()) == [".in-venv-1.0.0.lock", "in-venv-1.0.0"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_failed_install_leaves_no_virtualenv(tmp_path):
    home = tmp_path / "home"
    env = cli_env(home, ADAPTERS)
    bogus = tmp_path / "missing" / "bogus-1.0-py3-none-any.whl"
    out = run(
        [sys.executable, "-m", "memdock", "adapters", "install", "in-venv", "--with", bogus], env=env, timeout=500
    )
    assert out.returncode != 0
    assert "memdock: error: installing in-venv failed (command above); nothing was installed" in out.stderr
    assert sorted(p.name for p in (home / "venvs").iterdir()) == [".in-venv-1.0.0.lock"], "no venv, no temporary left"
    assert listed(sys.executable, env, "in-venv")["installed"] == "no"
    call = run([sys.executable, "-m", "memdock", "health", "-b", "in-venv"], env=env)
    assert (
        call.returncode != 0
        and "adapter in-venv is not installed; run: memdock adapters install in-venv" in call.stderr
    )

    target = fake_install(home, extras=[])
    before = (target / MARKER).read_bytes()
    out = run(
        [sys.executable, "-m", "memdock", "adapters", "install", "in-venv", "--with", bogus], env=env, timeout=500
    )
    assert out.returncode != 0
    assert f"installing in-venv failed (command above); its previous install in {target} is unchanged" in out.stderr
    assert (target / MARKER).read_bytes() == before
    assert sorted(p.name for p in (home / "venvs").iterdir()) == [".in-venv-1.0.0.lock", "in-venv-1.0.0"]
    assert listed(sys.executable, env, "in-venv")["installed"] == "yes"


def fake_install(home, extras):
    """A virtualenv folder with a matching marker, as a finished install leaves it (without running pip)."""
    from memdock.installs import expected_marker

    target = home / "venvs" / "in-venv-1.0.0"
    (target / "bin").mkdir(parents=True)
    (target / "bin" / "python").symlink_to(sys.executable)
    (target / MARKER).write_text(json.dumps(expected_marker(AdapterDescriptor.load(ADAPTERS / "in-venv"), extras)))
    return target


def test_extras_accumulate_and_an_up_to_date_install_does_nothing(tmp_path):
    home = tmp_path / "home"
    env = cli_env(home, ADAPTERS)
    target = fake_install(home, extras=["some-extra==1"])
    for extra in ([], ["--with", "some-extra==1"]):
        out = run([sys.executable, "-m", "memdock", "adapters", "install", "in-venv", *extra], env=env, check=True)
        assert f"in-venv is already installed in {target}" in out.stdout
        assert "pip" not in out.stdout


def test_a_virtualenv_is_installed_only_when_its_marker_matches(tmp_path):
    home = tmp_path / "home"
    env = cli_env(home, ADAPTERS)
    target = home / "venvs" / "in-venv-1.0.0"
    (target / "bin").mkdir(parents=True)
    (target / "bin" / "python").symlink_to(sys.executable)  # what an interrupted install used to leave behind

    assert listed(sys.executable, env, "in-venv")["installed"].startswith(
        "no: has a virtualenv without an install marker"
    )
    call = run([sys.executable, "-m", "memdock", "health", "-b", "in-venv"], env=env)
    assert (
        call.returncode != 0
        and "without an install marker" in call.stderr
        and "memdock adapters install in-venv" in call.stderr
    )
    assert "ModuleNotFoundError" not in call.stderr

    from memdock.installs import expected_marker

    marker = expected_marker(AdapterDescriptor.load(ADAPTERS / "in-venv"), [])
    (target / MARKER).write_text(json.dumps({**marker, "requirements_sha256": "0" * 64}))
    assert listed(sys.executable, env, "in-venv")["installed"] == "no: was installed from an older requirements.txt"
    (target / MARKER).write_text(json.dumps({**marker, "memdock": "0.0.1"}))
    assert "was installed with memdock 0.0.1" in listed(sys.executable, env, "in-venv")["installed"]
    (target / MARKER).write_text(json.dumps(marker))
    assert listed(sys.executable, env, "in-venv")["installed"] == "yes"


def test_a_virtualenv_carrying_another_memdock_core_is_stale_and_reinstalled(tmp_path, monkeypatch):
    from memdock import installs

    home = tmp_path / "home"
    env = cli_env(home, ADAPTERS)
    target = fake_install(home, extras=[])
    assert listed(sys.executable, env, "in-venv")["installed"] == "yes"
    marker = json.loads((target / MARKER).read_text())
    assert marker["memdock_core_sha256"] == installs.core_fingerprint()

    for recorded in ({**marker, "memdock_core_sha256": "0" * 64}, {k: v for k, v in marker.items() if "core" not in k}):
        (target / MARKER).write_text(json.dumps(recorded))  # same memdock version, other core files
        assert listed(sys.executable, env, "in-venv")["installed"].startswith(
            "no: holds another build of memdock " + marker["memdock"] + "'s core than the one running"
        )
        call = run([sys.executable, "-m", "memdock", "health", "-b", "in-venv"], env=env)
        assert call.returncode != 0 and "run: memdock adapters install in-venv" in call.stderr, call.stderr

    monkeypatch.setenv("MEMDOCK_HOME", str(home))
    (target / MARKER).write_text(json.dumps({**marker, "memdock_core_sha256": "0" * 64}))
    (target / "lib").mkdir()
    (target / "lib" / "torch.py").write_text("big = True\n")  # what a refresh must keep and not rebuild
    ran, built, real_swap, real_run = [], [], installs._swap_into_place, subprocess.run

    def pip(cmd, **kw):
        if cmd[1:3] != ["-m", "pip"]:
            return real_run(cmd, **kw)  # the test's own `memdock adapters list`
        ran.append(cmd[3:])
        return subprocess.CompletedProcess(cmd, 0)

    def swap(tmp, where):
        assert json.loads((where / MARKER).read_text())["memdock_core_sha256"] == "0" * 64, "changed before the swap"
        real_swap(tmp, where)

    monkeypatch.setattr(installs.subprocess, "run", pip)
    monkeypatch.setattr(installs, "core_wheel", lambda out: out / "memdock-0.1.0-py3-none-any.whl")
    monkeypatch.setattr(installs, "_build", lambda d, tmp, extras, want, interp: built.append(want))
    monkeypatch.setattr(installs, "_swap_into_place", swap)
    d = AdapterDescriptor.load(ADAPTERS / "in-venv")
    assert installs.install(d) == f"in-venv: memdock's core refreshed in {target}"
    assert built == [] and [c[:2] for c in ran] == [["uninstall", "-q"], ["install", "-q"]]
    assert ran[1][-1].endswith("memdock-0.1.0-py3-none-any.whl")
    assert json.loads((target / MARKER).read_text()) == {**marker, "memdock_core_sha256": installs.core_fingerprint()}
    assert (target / "lib" / "torch.py").read_text() == "big = True\n"
    assert listed(sys.executable, env, "in-venv")["installed"] == "yes"
    assert installs.install(d).startswith("in-venv is already installed")

    (target / MARKER).write_text(json.dumps({**marker, "memdock_core_sha256": "0" * 64}))
    monkeypatch.setattr(installs, "_swap_into_place", lambda tmp, where: None)
    assert installs.install(d, ["new-extra"]) == f"in-venv installed in {target}", "new extras: a full build"
    assert [w["memdock_core_sha256"] for w in built] == [installs.core_fingerprint()]


def test_the_core_fingerprint_follows_the_package_files(tmp_path, monkeypatch):
    from memdock import installs

    package = tmp_path / "memdock"
    (package / "sdk" / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("__version__ = '0.1.0'\n")
    (package / "sdk" / "__init__.py").write_text("")
    monkeypatch.setattr(installs, "_PACKAGE", package)
    fingerprint = installs.core_fingerprint.__wrapped__

    first = fingerprint()
    (package / "sdk" / "__pycache__" / "kit.cpython-313.pyc").write_bytes(b"compiled")
    assert fingerprint() == first, "compiled caches are not part of the core"
    (package / "sdk" / "kit.py").write_text("def supports(): ...\n")
    added = fingerprint()
    assert added != first
    (package / "sdk" / "kit.py").write_text("def supports(): return 1\n")
    assert fingerprint() not in (first, added)


def test_install_says_what_it_installs_before_pip_runs_quietly(tmp_path, monkeypatch, capsys):
    import subprocess as sp

    from memdock import installs
    from memdock.registry import Registry

    class QuietVenv:
        def __init__(self, **kw):
            pass

        def create(self, env_dir):
            Path(env_dir).mkdir(parents=True)

    monkeypatch.setattr(installs.venv, "EnvBuilder", QuietVenv)
    monkeypatch.setattr(installs, "core_wheel", lambda out: out / "memdock.whl")
    monkeypatch.setattr(installs.subprocess, "run", lambda cmd: sp.CompletedProcess(cmd, 0))
    descriptor = Registry().get("tantivy")
    from memdock.interpreters import running

    installs._build(descriptor, tmp_path, ["extra-pkg"], {}, running())
    said = capsys.readouterr().out
    assert "installing memdock's core and 4 requirement(s) of tantivy" in said
    assert "tantivy==0.27.0, jsonschema-rs==0.60.3, zstandard==0.25.0, extra-pkg" in said
    assert "can take a minute" in said
