"""An adapter as its adapter.json describes it: name, runtime, command, settings and the folders it may read.

Below both memdock.registry (which finds adapters) and memdock.installs (which makes their virtualenvs), so neither
imports the other.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from .config import memdock_home
from .errors import ConfigError
from .resources import bundled_adapters_dir
from .validation import SchemaValidator

DESCRIPTOR = "adapter.json"
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
    one_process_store = property(lambda self: self.raw.get("store_processes") == "one")
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

    def argv(self, python: str | None = None) -> list[str]:
        """The adapter's command with its placeholders filled; PYTHON for `{python}` (memdock.installs.adapter_argv
        picks the interpreter: the adapter's virtualenv or memdock's own)."""
        subs = {"{adapter_dir}": str(self.path), "{node}": "node"}
        if python is not None:
            subs["{python}"] = python
        out: list[str] = []
        for part in self.raw["command"]:
            for k, v in subs.items():
                part = part.replace(k, v)
            module_name = bool(out) and out[-1] == "-m"
            if not module_name and not part.startswith("-") and not os.path.isabs(part) and (self.path / part).exists():
                part = str(self.path / part)
            out.append(part)
        return out
