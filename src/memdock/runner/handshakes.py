"""The capabilities handshake, remembered: a one-shot adapter is not started a second time to say what it said.

Every command line call (`memdock add`, `memdock search`) opens its backend afresh, and the first thing the engine
asks is the adapter's capabilities: one more interpreter start and the adapter's imports (0.07-0.14 s for the
bundled Python adapters on this project's 2-core box) before the run proper begins. An adapter whose adapter.json
says `"static_capabilities": true` promises that its answer depends on nothing but its own code, its config and
the environment variables it declares; the answer is then kept under the memdock home
(`cache/capabilities/KEY.json`), KEY an HMAC-SHA256, under the home's seal key, of: the names, sizes, inodes and
modification and change times of the adapter folder's files (and of its `python_path` folders and of the memdock
package, whose SDK a Python adapter imports), its command line (the interpreter's path), its install marker (a
virtualenv's requirements and core), its config, its declared environment and the request. What the key does not
see is a package upgraded in the interpreter an adapter without requirements shares with memdock: such an adapter
must not answer from its packages' versions (the bundled ones do not). `memdock capabilities` always asks the
adapter, and keeps its answer. The HMAC keeps secrets in the environment from being guessable from a key. A cache
that cannot be read or written is only slower.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ..atomic import write_atomic
from ..bundle.seal import home_key
from ..config import memdock_home
from .launch import Launch

KEEP = 64
"""Answers kept per home; the oldest go first (a developer editing an adapter makes a new key per edit)."""

_SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".pytest_cache"})
_PACKAGE = Path(__file__).resolve().parent.parent


def opted_in(launch: Launch) -> bool:
    return launch.descriptor.raw.get("static_capabilities") is True


def folder() -> Path:
    return memdock_home() / "cache" / "capabilities"


def _stats(root: Path) -> Iterator[bytes]:
    """Each file under ROOT as its relative name, size, inode, modification and change times (not its bytes: this
    runs on every command line call; the change time, which no copy tool can set back, catches an edit that kept
    the size and modification time, as `cp -p` of another file of that size does). A symlinked folder is walked
    too (an adapter may import from one), each real folder once."""
    seen: set[tuple[int, int]] = set()
    for top, dirs, files in os.walk(root, followlinks=True):
        try:
            here = os.stat(top)
        except OSError:
            dirs[:] = []
            continue
        if (here.st_dev, here.st_ino) in seen:
            dirs[:] = []
            continue
        seen.add((here.st_dev, here.st_ino))
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(top, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            relative = os.fsencode(os.path.relpath(path, root))
            yield b"%s\0%d\0%d\0%d\0%d\n" % (relative, st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _roots(launch: Launch) -> list[Path]:
    d = launch.descriptor
    roots = [d.path.resolve()]
    roots += [(d.path / p).resolve() for p in d.raw.get("python_path", [])]
    if d.runtime.get("kind") == "python":
        roots.append(_PACKAGE)
    return sorted(set(roots))


def key(launch: Launch, params: dict[str, Any]) -> str | None:
    """The cache key of LAUNCH's answer to PARAMS; None when the home has no seal key to make one with."""
    secret = home_key()
    if secret is None:
        return None
    d = launch.descriptor
    mac = hmac.new(secret, b"memdock capabilities cache\0", hashlib.sha256)  # never the input of a bundle seal
    env = {name: launch.env.get(name) for name in sorted(d.env_names())}
    marker = d.venv / "memdock-install.json" if d.runtime.get("requirements") else None
    mac.update(orjson.dumps([d.raw, launch.argv(), launch.config, env, params], option=orjson.OPT_SORT_KEYS))
    if marker is not None:
        try:
            mac.update(marker.read_bytes())
        except OSError:
            return None
    for root in _roots(launch):
        mac.update(b"\0root\0" + os.fsencode(root) + b"\n")
        for line in _stats(root):
            mac.update(line)
    return mac.hexdigest()


def remembered(
    launch: Launch, params: dict[str, Any], ask: Callable[[], dict[str, Any]], *, refresh: bool
) -> dict[str, Any]:
    """LAUNCH's capabilities answer to PARAMS: the kept one, unless REFRESH or there is none; else ASK's, kept."""
    name = key(launch, params)
    if name is None:
        return ask()
    path = folder() / f"{name}.json"
    if not refresh:
        try:
            answer = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            answer = None
        if isinstance(answer, dict):
            return answer
    answer = ask()
    _keep(path, answer)
    return answer


def _keep(path: Path, answer: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, orjson.dumps(answer), durable=False)
        kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
