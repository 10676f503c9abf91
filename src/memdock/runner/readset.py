"""What an adapter may read under the strict sandbox: its runtime, its own folder, its stores, its input.

Everything else (the user's home, keys, other projects) is unreadable. The list is what programs need to
start and to do their job: the interpreter and its virtualenvs, the memdock package the Python SDK
imports, the adapter folder, the system's libraries and the few files under /etc that the dynamic
loader, TLS, DNS and locales read, randomness, the process's own /proc entry, the bundle being indexed,
and any path an adapter's config names (a model directory, say). The data and work dirs are writable,
and so readable, already.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..registry import AdapterDescriptor
from ..resources import schemas_dir

SYSTEM = (
    "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/crypto-policies",
    "/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/mime.types",
    "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf",
    "/etc/passwd", "/etc/group",
    "/proc/self", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/sys/devices/system/cpu", "/sys/fs/cgroup",
)


def _prefix_of(executable: str) -> list[Path]:
    """The installation an executable belongs to: bin/.. for the path as given and as resolved."""
    out = []
    for p in (Path(executable), Path(os.path.realpath(executable))):
        if p.parent.name == "bin":
            out.append(p.parent.parent)
        else:
            out.append(p.parent)
    return out


def _program(argv0: str, env: Mapping[str, str]) -> str | None:
    return argv0 if os.path.isabs(argv0) else shutil.which(argv0, path=env.get("PATH", os.defpath))


def _config_paths(config: Mapping[str, Any]) -> Iterable[Path]:
    for value in config.values():
        if isinstance(value, str) and os.path.isabs(value) and os.path.exists(value):
            yield Path(value)


def strict_readable(
    descriptor: AdapterDescriptor,
    argv: list[str],
    env: Mapping[str, str],
    config: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
) -> list[str]:
    """The read allowlist for one adapter process (the writable dirs are added by the caller)."""
    import memdock

    paths: list[Path] = [Path(p) for p in SYSTEM]
    paths += [Path(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}]
    paths += _prefix_of(sys.executable)
    # the folder memdock is imported from (Python lists a sys.path entry to find a package in it)
    paths += [Path(memdock.__file__).parent.parent, schemas_dir()]
    paths.append(descriptor.path)
    if descriptor.runtime.get("requirements"):
        paths.append(descriptor.venv)
    program = _program(argv[0], env) if argv else None
    if program:
        paths += _prefix_of(program)
    paths += _config_paths(config)
    bundle = (params or {}).get("bundle")
    if isinstance(bundle, str) and bundle:
        paths.append(Path(bundle))
    seen: dict[str, None] = {}
    for p in paths:
        seen.setdefault(os.path.abspath(p), None)
    return list(seen)
