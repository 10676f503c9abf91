"""Adapter runtimes: a virtualenv per Python adapter with requirements, installed atomically and marked.

`install` builds the virtualenv in a hidden temporary folder beside its final
place, installs memdock itself (from the running installation, never from the
package index: see `core_wheel`), the adapter's requirements.txt and any
extras in one pip run, writes a marker, and only then renames it into place.
A failed install leaves nothing behind, and a virtualenv whose marker is
missing or does not match the current requirements, extras, memdock version and
memdock core fingerprint (see `core_fingerprint`) is not installed. The virtualenv
is made by the interpreter adapter.json `runtime.python` asks for (see `interpreters`), recorded in the marker; one
whose interpreter is outside that range (its pyvenv.cfg says which it was made
with) is not installed either, and the next install rebuilds it.
A virtualenv whose only fault is an older core is refreshed, not rebuilt: see
`_refresh_core`.

After the rename only `venv/bin/python -m ...` is ever run: the interpreter
finds its prefix from its own location, whereas console scripts in venv/bin
keep the temporary path in their shebang line and are not used.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
from filelock import FileLock

from . import __version__
from .errors import ConfigError
from .interpreters import Interpreter, find_interpreter, in_range, parse_range, parse_version, running

if TYPE_CHECKING:
    from .descriptor import AdapterDescriptor

MARKER = "memdock-install.json"
_PACKAGE = Path(__file__).resolve().parent


@dataclass
class InstallState:
    ok: bool
    reason: str = ""  # why not, for `adapters list/show` and the error a call gets
    core_only: bool = False  # all that is wrong is an older copy of memdock's core: `install` refreshes just that


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def expected_marker(d: AdapterDescriptor, extras: Sequence[str]) -> dict:
    req = d.path / d.runtime["requirements"]
    try:
        req_hash = _sha256(req.read_bytes())
    except OSError as exc:
        raise ConfigError(f"{d.name}: cannot read its requirements file {req}: {exc.strerror}") from None
    return {
        "adapter": d.name,
        "adapter_version": d.version,
        "memdock": __version__,
        "memdock_core_sha256": core_fingerprint(),
        "requirements_sha256": req_hash,
        "extras": sorted(extras),
    }


def read_marker(venv_dir: Path) -> dict | None:
    try:
        marker = orjson.loads((venv_dir / MARKER).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return marker if isinstance(marker, dict) else None


def venv_python_version(venv_dir: Path) -> str | None:
    """The version of the interpreter a virtualenv was made with, from its pyvenv.cfg."""
    try:
        lines = (venv_dir / "pyvenv.cfg").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip() in ("version", "version_info"):  # "3.13.0" or, from newer venvs, "3.13.0.final.0"
            return ".".join(map(str, parse_version(value)))
    return None


def _interpreter_problem(d: AdapterDescriptor, marker: dict) -> str | None:
    recorded = (marker.get("python") or {}).get("version")
    actual = venv_python_version(d.venv) or recorded
    spec = d.runtime.get("python")
    if spec:
        try:
            parse_range(spec, f"{d.path / 'adapter.json'}: runtime.python")
        except ConfigError as exc:
            return exc.message
    if spec and (actual is None or not in_range(actual, spec)):
        return (
            f"has a virtualenv made with Python {actual or '(unknown version)'}, outside its runtime.python {spec}; "
            "installing again rebuilds it with an interpreter in range"
        )
    if recorded and actual and recorded != actual:
        return f"has a virtualenv whose Python is {actual}, but it was installed with {recorded}"
    return None


def install_state(d: AdapterDescriptor) -> InstallState:
    """Installed only when the virtualenv's marker matches the adapter's requirements and this memdock, and its
    interpreter is in the adapter's runtime.python range."""
    if not (d.venv / "bin" / "python").exists():
        return InstallState(False, "is not installed")
    marker = read_marker(d.venv)
    if marker is None:
        return InstallState(
            False,
            f"has a virtualenv without an install marker ({d.venv}): an unfinished install, "
            "or one made before memdock marked its installs",
        )
    try:
        want = expected_marker(d, marker.get("extras") or [])
    except ConfigError as exc:
        return InstallState(False, exc.message)
    if marker.get("requirements_sha256") != want["requirements_sha256"]:
        return InstallState(False, "was installed from an older requirements.txt")
    if marker.get("memdock") != want["memdock"]:
        return InstallState(False, f"was installed with memdock {marker.get('memdock')}, this is {__version__}")
    problem = _interpreter_problem(d, marker)
    if problem:
        return InstallState(False, problem)
    if marker.get("memdock_core_sha256") != want["memdock_core_sha256"]:
        return InstallState(
            False,
            f"holds another build of memdock {__version__}'s core than the one running: memdock's files changed "
            "since it was installed (an upgrade from a source checkout or editable install keeps the version)",
            core_only=True,
        )
    return InstallState(True)


def adapter_python(d: AdapterDescriptor) -> str:
    """The interpreter for a Python adapter: its own virtualenv when it has requirements."""
    if d.runtime.get("requirements"):
        state = install_state(d)
        if not state.ok:
            raise ConfigError(f"adapter {d.name} {state.reason}; run: memdock adapters install {d.name}")
        return str(d.venv / "bin" / "python")
    spec = d.runtime.get("python")
    if spec and not in_range(running().version, spec):
        raise ConfigError(
            f"adapter {d.name} needs Python {spec} (adapter.json runtime.python) but has no requirements file, "
            f"so it would run on memdock's own Python {running().version}; give it a requirements file so "
            f"`memdock adapters install {d.name}` makes it a virtualenv with an interpreter in range"
        )
    return sys.executable


def adapter_argv(d: AdapterDescriptor) -> list[str]:
    """D's command line, `{python}` being the interpreter adapter_python picks."""
    return d.argv(adapter_python(d) if d.runtime["kind"] == "python" else None)


# -- memdock itself ----------------------------------------------------------------------------


@functools.cache
def core_fingerprint() -> str:
    """A sha256 over the running memdock package's files (names and contents, compiled caches left out).

    The version string alone misses an upgrade from a source checkout or editable install, which keeps it: a
    virtualenv recording another fingerprint carries an older core (the SDK its adapter imports) and is not
    installed. Computed once per process; the package is about a megabyte.
    """
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*")):
        if "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo") or not path.is_file():
            continue
        name = path.relative_to(_PACKAGE).as_posix().encode()
        data = path.read_bytes()
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)))
        digest.update(data)
    return digest.hexdigest()


def _running_distribution() -> metadata.Distribution | None:
    """The installed distribution that holds the running memdock package, if it was installed from a wheel."""
    try:
        dist = metadata.distribution("memdock")
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        ours = f.parts[:1] == ("memdock",) and f.name == "__init__.py" and len(f.parts) == 2
        if ours and Path(str(dist.locate_file(f))).resolve() == _PACKAGE / "__init__.py":
            return dist
    return None  # an editable install or another copy: not the files that are running


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel_from_distribution(dist: metadata.Distribution, out: Path) -> Path:
    """Pack the installed package files listed in the distribution's RECORD back into a wheel."""
    files = [
        f
        for f in dist.files or []
        if f.parts and (f.parts[0] == "memdock" or f.parts[0].endswith(".dist-info")) and "__pycache__" not in f.parts
    ]
    info = next((f.parts[0] for f in files if f.parts[0].endswith(".dist-info")), None)
    if info is None or not any(f.parts == (info, "WHEEL") for f in files):
        raise ConfigError(
            f"memdock {dist.version} is installed without a WHEEL file in its .dist-info; "
            "cannot pass it on to an adapter's virtualenv"
        )
    wheel = out / f"memdock-{dist.version}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            name = "/".join(f.parts)
            if f.parts[0] == info and f.name in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json"):
                continue  # written by the installer, not part of the wheel
            data = Path(str(dist.locate_file(f))).read_bytes()
            z.writestr(name, data)
            record.append(f"{name},{_record_hash(data)},{len(data)}")
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return wheel


def _checkout_root() -> Path | None:
    root = _PACKAGE.parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "src" / "memdock").is_dir() else None


def core_wheel(out: Path) -> Path:
    """A wheel of the running memdock, written into OUT: rebuilt from the installed files (a wheel install), or built
    from the source tree (a checkout or editable install). The package index is never asked for memdock."""
    dist = _running_distribution()
    if dist is not None:
        return _wheel_from_distribution(dist, out)
    root = _checkout_root()
    if root is None:
        raise ConfigError(
            f"cannot find memdock's own files to install into an adapter's virtualenv (running from {_PACKAGE})"
        )
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(root)]
    print("$ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise ConfigError(f"building a memdock wheel from {root} failed (command above)")
    wheels = sorted(out.glob("memdock-*.whl"))
    if len(wheels) != 1:
        raise ConfigError(f"building a memdock wheel from {root} gave {len(wheels)} wheels in {out}")
    return wheels[0]


# -- installing ----------------------------------------------------------------------------------


def install(d: AdapterDescriptor, extras: Sequence[str] = (), *, force: bool = False) -> str:
    """Create D's virtualenv (see the module doc). Returns what was done, for the user.

    Extras accumulate: a valid install keeps the extras it was made with, and a new one adds to them;
    FORCE rebuilds with exactly EXTRAS.
    """
    parent = d.venv.parent
    parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(parent / f".{d.venv.name}.lock")):
        for stale in parent.glob(f".{d.venv.name}.tmp-*"):  # left by a killed install; we hold the lock
            shutil.rmtree(stale, ignore_errors=True)
        state = InstallState(False) if force else install_state(d)
        current = read_marker(d.venv) if state.ok or state.core_only else None
        if current is not None:
            extras = sorted(set(current.get("extras") or []) | set(extras))
        interp = find_interpreter(d.runtime.get("python"), f"adapter {d.name}")
        want = {**expected_marker(d, extras), "python": {"path": interp.path, "version": interp.version}}
        same = current is not None and _but_core(current) == _but_core(want)
        if same and state.ok:
            return f"{d.name} is already installed in {d.venv} (use --force to rebuild it)"
        tmp = Path(tempfile.mkdtemp(prefix=f".{d.venv.name}.tmp-", dir=parent))
        try:
            if same and current is not None:
                _refresh_core(d, tmp, {**current, "memdock_core_sha256": want["memdock_core_sha256"]})
            else:
                _build(d, tmp, extras, want, interp)
            _swap_into_place(tmp, d.venv)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
    return f"{d.name}: memdock's core refreshed in {d.venv}" if same else f"{d.name} installed in {d.venv}"


def _but_core(marker: dict) -> dict:
    """A marker without what a core refresh changes (and the interpreter path, which may be found elsewhere now)."""
    return {k: v for k, v in marker.items() if k not in ("memdock_core_sha256", "python")}


def _make_venv(env_dir: Path, interp: Interpreter) -> None:
    if interp.path == sys.executable:
        venv.EnvBuilder(with_pip=True).create(env_dir)
        return
    cmd = [interp.path, "-m", "venv", str(env_dir)]
    print("$ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise ConfigError(f"{interp.describe()} could not make a virtualenv (command above)")


def _build(d: AdapterDescriptor, tmp: Path, extras: Sequence[str], want: dict, interp: Interpreter) -> None:
    env_dir = tmp / "venv"
    print(
        f"creating a virtualenv for {d.name} with {interp.describe()} (it becomes {d.venv} once complete)", flush=True
    )
    _make_venv(env_dir, interp)
    wheels = tmp / "wheels"
    wheels.mkdir()
    core = core_wheel(wheels)
    cmd = [
        str(env_dir / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--prefer-binary",  # an interpreter older than the newest wheels support takes an older wheel, not an sdist
        str(core),
        "-r",
        str(d.path / d.runtime["requirements"]),
        *extras,
    ]
    wanted = [*requirement_lines(d.path / d.runtime["requirements"]), *extras]
    print(
        f"installing memdock's core and {len(wanted)} requirement(s) of {d.name} into it: {', '.join(wanted)} "
        "(pip is quiet while it downloads and builds; this can take a minute)",
        flush=True,
    )
    print("$ " + " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        raise ConfigError(
            f"installing {d.name} failed (command above); {_kept(d)}. "
            f"Fix the cause and run: memdock adapters install {d.name}"
        )
    for wheel in d.runtime.get("wheels", []):
        _install_platform_wheel(d, env_dir, interp, wheel)
    (env_dir / MARKER).write_bytes(orjson.dumps(want, option=orjson.OPT_INDENT_2))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _refresh_core(d: AdapterDescriptor, tmp: Path, marker: dict) -> None:
    """Copy D's virtualenv into TMP as hard links and replace only memdock's core in the copy (MARKER is the new
    marker): all that changed is memdock's own files, and rebuilding the adapter's requirements (torch, say) from
    scratch would take minutes. pip and the marker write replace files rather than rewrite them, so the installed
    virtualenv, sharing the other files, stays as it was until the swap."""
    env_dir = tmp / "venv"
    print(f"refreshing memdock's core in a copy of {d.venv} (its requirements are current)", flush=True)
    shutil.copytree(d.venv, env_dir, symlinks=True, copy_function=_link_or_copy)
    wheels = tmp / "wheels"
    wheels.mkdir()
    python = str(env_dir / "bin" / "python")
    for cmd in (
        [python, "-m", "pip", "uninstall", "-q", "-y", "memdock"],
        [python, "-m", "pip", "install", "-q", "--prefer-binary", str(core_wheel(wheels))],  # new core deps only
    ):
        print("$ " + " ".join(cmd), flush=True)
        if subprocess.run(cmd).returncode != 0:
            raise ConfigError(
                f"refreshing memdock's core for {d.name} failed (command above); {_kept(d)}. "
                f"Fix the cause, or rebuild it all: memdock adapters install {d.name} --force"
            )
    (env_dir / MARKER).unlink(missing_ok=True)  # a hard link to the installed marker: replaced, not rewritten
    (env_dir / MARKER).write_bytes(orjson.dumps(marker, option=orjson.OPT_INDENT_2))


def _kept(d: AdapterDescriptor) -> str:
    return f"its previous install in {d.venv} is unchanged" if d.venv.exists() else "nothing was installed"


def _install_platform_wheel(d: AdapterDescriptor, env_dir: Path, interp: Interpreter, wheel: dict) -> None:
    """A wheel pip would refuse by its platform tag, put into site-packages with `--platform --target` (pip's route
    for installing for another platform), then imported to show its compiled module loads on this machine."""
    python = str(env_dir / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    major_minor = ".".join(interp.version.split(".")[:2])
    steps = [
        [python, "-m", "pip", "install", "-q", "--no-deps", "--only-binary=:all:", "--platform", wheel["platform"]]
        + ["--python-version", major_minor, "--target", site, wheel["requirement"]],
        [python, "-c", f"import {wheel['import']}"],
    ]
    for cmd in steps:
        print("$ " + " ".join(cmd), flush=True)
        if not site or subprocess.run(cmd).returncode != 0:
            raise ConfigError(
                f"installing {d.name}: {wheel['requirement']} for {wheel['platform']} failed (command above); "
                f"{_kept(d)}. Its compiled module may need a newer C library than this machine has"
            )


def requirement_lines(path: Path) -> list[str]:
    """The requirements a requirements file names (comments, blank lines and pip options left out)."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-")]


def _swap_into_place(tmp: Path, target: Path) -> None:
    old = None
    if target.exists():
        old = tmp.with_name(tmp.name + "-old")
        target.rename(old)
    (tmp / "venv").rename(target)
    shutil.rmtree(tmp, ignore_errors=True)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def interpreter_of(d: AdapterDescriptor) -> str:
    """Which Python runs D, for `adapters list` and `doctor`: its virtualenv's, the one an install would use, or why
    there is none."""
    if d.runtime["kind"] != "python":
        return "-"
    spec = d.runtime.get("python")
    if d.runtime.get("requirements") and install_state(d).ok:
        made = (read_marker(d.venv) or {}).get("python") or {}
        version = venv_python_version(d.venv) or made.get("version", "?")
        return f"{version} ({d.venv / 'bin' / 'python'}" + (f", made with {made['path']})" if made else ")")
    try:
        interp = find_interpreter(spec, f"adapter {d.name}")
    except ConfigError:
        return f"none in range {spec} (see: memdock adapters install {d.name})"
    if not d.runtime.get("requirements") and interp.path != sys.executable:
        return f"none: runtime.python {spec} excludes memdock's own Python and the adapter has no virtualenv"
    pending = ", once installed" if d.runtime.get("requirements") else ""
    return f"{interp.version} ({interp.path}{pending})"
