"""Finding adapters: bundled ones, folders on MEMDOCK_ADAPTER_PATH, and Python entry points.

An adapter is a folder with adapter.json (validated against
schemas/v1/adapter.schema.json) and its program. Lookup order: a path to such
a folder; then MEMDOCK_ADAPTER_PATH (colon-separated; each entry an adapter
folder or a folder of them), then the `memdock.adapters` entry points (each
loads to a folder path or a callable returning one), then the bundled
adapters/. The first adapter found under a name wins.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import orjson

from .config import memdock_home
from .errors import ConfigError
from .resources import bundled_adapters_dir
from .validation import SchemaValidator

log = logging.getLogger("memdock.registry")

DESCRIPTOR = "adapter.json"
ENTRY_POINT_GROUP = "memdock.adapters"
SHARED_ADAPTER_CODE = "common"  # adapters/common: memdock's own code shared by the bundled Python adapters


@dataclass
class AdapterDescriptor:
    path: Path
    raw: dict[str, Any]
    origin: str = "bundled"

    @classmethod
    def load(cls, folder: Path, origin: str = "path") -> AdapterDescriptor:
        file = folder / DESCRIPTOR
        try:
            raw = orjson.loads(file.read_bytes())
        except FileNotFoundError:
            raise ConfigError(f"{folder}: no {DESCRIPTOR}; not an adapter folder") from None
        except orjson.JSONDecodeError as exc:
            raise ConfigError(f"{file}: invalid JSON: {exc}") from None
        issues = SchemaValidator().issues("adapter", raw)
        if issues:
            raise ConfigError(f"{file}: {issues[0].path}: {issues[0].message}")
        descriptor = cls(folder.resolve(), raw, origin)
        descriptor.python_path()  # a folder outside the adapter's own is refused here, before anything runs
        return descriptor

    name = property(lambda self: self.raw["name"])
    version = property(lambda self: self.raw["version"])
    protocol_versions = property(lambda self: list(self.raw["protocol_versions"]))
    runtime = property(lambda self: self.raw["runtime"])
    supports_worker = property(lambda self: bool(self.raw.get("worker", False)))
    parallel_writers = property(lambda self: str(self.raw.get("parallel_writers", "serial")))
    config_schema = property(lambda self: self.raw.get("config_schema") or {"type": "object"})
    env = property(lambda self: list(self.raw.get("env", [])))
    timeouts = property(lambda self: dict(self.raw.get("timeouts", {})))
    limits = property(lambda self: dict(self.raw.get("limits", {})))
    description = property(lambda self: self.raw.get("description", ""))

    def env_names(self) -> list[str]:
        return [e["name"] for e in self.env]

    def secret_env_names(self) -> list[str]:
        return [e["name"] for e in self.env if e.get("secret")]

    def env_for_secret_fields(self) -> dict[str, str]:
        return {e["config_field"]: e["name"] for e in self.env if e.get("config_field")}

    @cached_property
    def venv(self) -> Path:
        return memdock_home() / "venvs" / f"{self.name}-{self.version}"

    def python(self) -> str:
        """The interpreter for a Python adapter: its own virtualenv when it has requirements."""
        if self.runtime.get("requirements"):
            from .installs import install_state

            state = install_state(self)
            if not state.ok:
                raise ConfigError(f"adapter {self.name} {state.reason}; run: memdock adapters install {self.name}")
            return str(self.venv / "bin" / "python")
        from .interpreters import in_range, running

        spec = self.runtime.get("python")
        if spec and not in_range(running().version, spec):
            raise ConfigError(
                f"adapter {self.name} needs Python {spec} (adapter.json runtime.python) but has no requirements file, "
                f"so it would run on memdock's own Python {running().version}; give it a requirements file so "
                f"`memdock adapters install {self.name}` makes it a virtualenv with an interpreter in range"
            )
        return sys.executable

    def python_path(self) -> list[Path]:
        """The folders a Python adapter run as `-m PACKAGE` imports from (adapter.json `python_path`, relative to
        the adapter folder; default: the adapter folder itself)."""
        if self.runtime["kind"] != "python":
            return []
        return [self._own_folder(i, p) for i, p in enumerate(self.raw.get("python_path", ["."]))]

    def _own_folder(self, index: int, entry: str) -> Path:
        """ENTRY resolved (symlinks too), which must lie inside the adapter folder or memdock's own shared adapter
        code (adapters/common): these folders go on the strict sandbox's read allowlist, and an adapter must
        not name its own read rights outside its folder."""
        folder = (self.path / entry).resolve()
        allowed = (self.path.resolve(), (bundled_adapters_dir() / SHARED_ADAPTER_CODE).resolve())
        if not any(folder == root or root in folder.parents for root in allowed):
            raise ConfigError(
                f"{self.path / DESCRIPTOR}: python_path[{index}]: {entry!r} resolves to {folder}, outside the "
                f"adapter folder {self.path} (only the adapter's own folders and memdock's adapters/"
                f"{SHARED_ADAPTER_CODE} may be named)",
                details={"field": f"python_path[{index}]", "path": str(folder)},
            )
        return folder

    def module(self) -> str | None:
        """The package of a Python adapter run as `{python} [FLAGS] -m PACKAGE`, else None."""
        command = self.raw["command"]
        if self.runtime["kind"] == "python" and "-m" in command[:-1]:
            return str(command[command.index("-m") + 1])
        return None

    def argv(self) -> list[str]:
        subs = {"{adapter_dir}": str(self.path), "{node}": "node"}
        if self.runtime["kind"] == "python":
            subs["{python}"] = self.python()
        out: list[str] = []
        for part in self.raw["command"]:
            for k, v in subs.items():
                part = part.replace(k, v)
            module_name = bool(out) and out[-1] == "-m"
            if not module_name and not part.startswith("-") and not os.path.isabs(part) and (self.path / part).exists():
                part = str(self.path / part)
            out.append(part)
        return out


@dataclass
class BrokenAdapter:
    """A candidate whose adapter.json could not be loaded: skipped with a warning, an error only when asked for."""

    path: str
    origin: str
    error: str
    name: str | None = None  # the name it claims, when its JSON has one

    def describe(self) -> str:
        return f"{self.path}: {self.error}"


_warned: set[tuple[str, str]] = set()


def _warn_once(broken: BrokenAdapter) -> None:
    if (broken.path, broken.error) not in _warned:
        _warned.add((broken.path, broken.error))
        log.warning("skipping the adapter at %s (%s): %s", broken.path, broken.origin, broken.error)


def _claimed_name(folder: Path) -> str | None:
    try:
        raw = orjson.loads((folder / DESCRIPTOR).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    name = raw.get("name") if isinstance(raw, dict) else None
    return name if isinstance(name, str) else None


@dataclass
class Registry:
    search_path: list[Path] = field(default_factory=list)
    use_entry_points: bool = True
    include_bundled: bool = True

    @classmethod
    def default(cls, env: Mapping[str, str] = os.environ) -> Registry:
        paths = [Path(p).expanduser() for p in env.get("MEMDOCK_ADAPTER_PATH", "").split(os.pathsep) if p]
        return cls(search_path=paths)

    def _candidates(self) -> Iterator[tuple[Path, str] | BrokenAdapter]:
        for base in self.search_path:
            if (base / DESCRIPTOR).is_file():
                yield base, "MEMDOCK_ADAPTER_PATH"
            elif base.is_dir():
                for sub in sorted(base.iterdir()):
                    if (sub / DESCRIPTOR).is_file():
                        yield sub, "MEMDOCK_ADAPTER_PATH"
        if self.use_entry_points:
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                try:
                    target = ep.load()
                    folder = Path(target() if callable(target) else target)
                except Exception as exc:  # a broken plugin must not take the other adapters down
                    yield BrokenAdapter(ep.value, f"entry point {ep.name}", f"cannot load: {type(exc).__name__}: {exc}")
                    continue
                yield folder, f"entry point {ep.name}"
        if self.include_bundled:
            bundled = bundled_adapters_dir()
            if bundled.is_dir():
                for sub in sorted(bundled.iterdir()):
                    if (sub / DESCRIPTOR).is_file():
                        yield sub, "bundled"

    def scan(self) -> Iterator[AdapterDescriptor | BrokenAdapter]:
        """Every candidate in lookup order, loaded; a broken one comes as a BrokenAdapter (and is warned about once)."""
        for cand in self._candidates():
            if isinstance(cand, BrokenAdapter):
                _warn_once(cand)
                yield cand
                continue
            folder, origin = cand
            try:
                yield AdapterDescriptor.load(folder, origin)
            except ConfigError as exc:
                broken = BrokenAdapter(
                    str(folder / DESCRIPTOR),
                    origin,
                    str(exc).removeprefix(f"{folder / DESCRIPTOR}: "),
                    _claimed_name(folder),
                )
                _warn_once(broken)
                yield broken

    def discover(self) -> dict[str, AdapterDescriptor]:
        found: dict[str, AdapterDescriptor] = {}
        for d in self.scan():
            if isinstance(d, AdapterDescriptor):
                found.setdefault(d.name, d)
        return found

    def broken(self) -> list[BrokenAdapter]:
        return [d for d in self.scan() if isinstance(d, BrokenAdapter)]

    def get(self, name_or_path: str | os.PathLike[str]) -> AdapterDescriptor:
        p = Path(name_or_path)
        if (p / DESCRIPTOR).is_file():
            return AdapterDescriptor.load(p, "path")
        name = str(name_or_path)
        skipped: list[BrokenAdapter] = []
        for d in self.scan():
            if isinstance(d, AdapterDescriptor):
                if d.name == name:
                    return d
            elif d.name == name:
                raise ConfigError(f"adapter {name!r} ({d.origin}) is broken: {d.describe()}")
            else:
                skipped.append(d)
        known = ", ".join(sorted(self.discover())) or "none"
        hint = f"; skipped broken: {'; '.join(b.describe() for b in skipped)}" if skipped else ""
        raise ConfigError(f"no adapter named {name!r} (known: {known}; add folders with MEMDOCK_ADAPTER_PATH){hint}")
