"""What an adapter may read under the strict sandbox: its runtime, its own folder, its stores, its input.

Everything else (the user's home, keys, other projects, other stores) is unreadable. The list is what
programs need to start and to do their job: the system's libraries and the few files under /etc that the
dynamic loader, TLS, DNS and locales read; the adapter's program file itself and, for a Python
interpreter, its installation (stdlib, site-packages, the virtualenv it runs in); the memdock package the
Python SDK imports; the adapter folder and its venv; randomness and the process's own /proc entry; the
bundle being indexed; and any path an adapter's config names (a model directory, say). The data and work
dirs are writable, and so readable, already.

Nothing is granted for being the parent of a program: `/bin/sh` must not open `/`. The memdock home and
this call's store root are carved out of any folder that holds them, so a venv that holds MEMDOCK_HOME
does not expose other backends' stores. A list holding `/`, `/home`, a home dir or a parent of one is
refused outright (ConfigError) rather than run.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..config import memdock_home
from ..errors import ConfigError
from ..registry import AdapterDescriptor
from ..resources import schemas_dir

SYSTEM = (
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/crypto-policies",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/locale.alias",
    "/etc/mime.types",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/passwd",
    "/etc/group",
    "/proc/self",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
)
_PYTHON = re.compile(r"python[0-9.]*")
_SYSCONFIG_KEYS = ("stdlib", "platstdlib", "purelib", "platlib")


def _real(p: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(p))


def _installation(prefix: Path) -> bool:
    """PREFIX is a Python installation (Python's own landmark, lib/pythonX.Y/os.py), and not / or /usr
    (the system dirs are allowed already; / would open everything)."""
    if str(prefix) in ("/", "/usr"):
        return False
    return any((prefix / "lib" / d / "os.py").is_file() for d in _listdir(prefix / "lib") if _PYTHON.fullmatch(d))


def _listdir(p: Path) -> list[str]:
    try:
        return os.listdir(p)
    except OSError:
        return []


def _venv_root(executable: Path) -> Path | None:
    root = executable.parent.parent
    return root if (root / "pyvenv.cfg").is_file() else None


def _venv_home(venv: Path) -> Path | None:
    """The `home` (base interpreter's bin dir) a venv's pyvenv.cfg names."""
    try:
        lines = (venv / "pyvenv.cfg").read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home" and os.path.isabs(value.strip()):
            return Path(value.strip())
    return None


def program_paths(executable: str) -> list[Path]:
    """What running EXECUTABLE needs beyond the system dirs: the file itself (as given and resolved) and, for a
    Python interpreter, its venv and the installation it belongs to, when that is a real one."""
    given = Path(os.path.abspath(executable))
    real = _real(given)
    out = [p for p in (given, real) if p.is_file()]  # a program is a file: a link to a folder grants nothing
    if not _PYTHON.fullmatch(given.name) and not _PYTHON.fullmatch(real.name):
        return out
    bins = [given.parent, real.parent]
    for exe in (given, real):
        venv = _venv_root(exe)
        if venv is not None:
            out.append(venv)
            home = _venv_home(venv)
            if home is not None:
                bins.append(home)
    for b in bins:
        for prefix in {b.parent, _real(b).parent}:
            if _installation(prefix):
                out.append(prefix)
    return out


def host_python_paths() -> list[Path]:
    """The running interpreter's installation: its program, venv and prefixes (when real), and the stdlib and
    site-packages dirs sysconfig reports for it."""
    out = program_paths(sys.executable)
    paths = sysconfig.get_paths()
    out += [Path(paths[k]) for k in _SYSCONFIG_KEYS if paths.get(k)]
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        p = Path(prefix)
        if (p / "pyvenv.cfg").is_file() or _installation(p):
            out.append(p)
    return out


def _program(argv0: str, env: Mapping[str, str]) -> str | None:
    return argv0 if os.path.isabs(argv0) else shutil.which(argv0, path=env.get("PATH", os.defpath))


def _config_paths(config: Mapping[str, Any]) -> Iterable[Path]:
    for value in config.values():
        if isinstance(value, str) and os.path.isabs(value) and os.path.exists(value):
            yield Path(value)


def _homes(env: Mapping[str, str]) -> set[Path]:
    homes = {env.get("HOME"), os.environ.get("HOME")}
    try:
        homes.add(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    return {_real(h) for h in homes if h and os.path.isabs(h)}


def forbidden(env: Mapping[str, str]) -> set[Path]:
    """Folders no strict allowlist may hold: /, /home, each home dir and every folder above one."""
    out = {Path("/"), _real("/home")}
    for home in _homes(env):
        out.add(home)
        out.update(home.parents)
    return out


def carve(root: Path, excluded: Iterable[Path]) -> list[Path]:
    """ROOT with the EXCLUDED trees taken out: ROOT itself when it holds none of them, nothing when it is one,
    else its entries, each carved the same way."""
    inside = [e for e in excluded if e == root or root in e.parents]
    if not inside:
        return [root]
    if root in inside or not root.is_dir():
        return []
    out: list[Path] = []
    for name in sorted(_listdir(root)):
        out += carve(_real(root / name) if (root / name).is_symlink() else root / name, inside)
    return out


def strict_readable(
    descriptor: AdapterDescriptor,
    argv: list[str],
    env: Mapping[str, str],
    config: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    store_root: Path | None = None,
) -> list[str]:
    """The read allowlist for one adapter process (the writable dirs are added by the caller).

    The memdock home and STORE_ROOT (the ledger, other calls' work dirs) are left out of every folder that
    holds them; the call's own data and work dirs are readable through the writable list."""
    import memdock

    paths = host_python_paths()
    # the folder memdock is imported from (Python lists a sys.path entry to find a package in it)
    paths += [Path(memdock.__file__).parent.parent, schemas_dir()]
    paths.append(descriptor.path)
    paths += descriptor.python_path()  # a `-m PACKAGE` adapter's folders, such as a shared package beside it
    if descriptor.runtime.get("requirements"):
        paths.append(descriptor.venv)
    program = _program(argv[0], env) if argv else None
    if program:
        paths += program_paths(program)
    paths += _config_paths(config)
    bundle = (params or {}).get("bundle")
    if isinstance(bundle, str) and bundle:
        paths.append(Path(bundle))

    excluded = [_real(memdock_home(env)), _real(memdock_home())] + (
        [_real(store_root)] if store_root is not None else []
    )
    guard = forbidden(env)
    seen: dict[str, None] = dict.fromkeys(SYSTEM)  # as written: /proc/self must resolve in the child
    for p in paths:
        if not os.path.exists(p):
            continue
        for q in carve(_real(p), excluded):
            if q in guard:
                raise ConfigError(
                    f"refusing to run {descriptor.name} under the strict sandbox: its read allowlist would hold {q} "
                    f"(from {p}), which opens the user's files; no strict allowlist may hold /, /home, a home dir or a "
                    "folder above one",
                    details={"sandbox": "strict", "path": str(q), "from": str(p)},
                )
            seen.setdefault(str(q), None)
    return list(seen)
