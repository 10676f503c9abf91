"""Which backend, which data dir, which adapter config: from flags, environment and memdock.toml.

Precedence for the backend, highest first: the --backend flag, MEMDOCK_BACKEND,
`backend` in memdock.toml (MEMDOCK_CONFIG, else ./memdock.toml), then the
embedded default `sqlite`. The store of a backend is --data-dir when given,
else `data_dir` in memdock.toml, else MEMDOCK_HOME/stores/<backend>
(MEMDOCK_HOME defaults to the user's data directory). A store that records the
backend that wrote it (engine.store_backend) answers with that backend when none
is named, and refuses another. Secrets are never read
from files: a config field marked x-secret comes only from its environment
variable.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .engine.store_backend import BACKEND_FILE, other_backend, recorded_backend
from .errors import ConfigError

DEFAULT_BACKEND = "sqlite"


def memdock_home(env: Mapping[str, str] = os.environ) -> Path:
    if env.get("MEMDOCK_HOME"):
        return Path(env["MEMDOCK_HOME"]).expanduser()
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "memdock"


@dataclass
class Settings:
    backend: str
    backend_source: str
    store: Path
    adapter_config: dict[str, Any] = field(default_factory=dict)
    config_file: Path | None = None
    sandbox: str | None = None  # `sandbox` in memdock.toml: off, writes (the default) or strict


def config_file(env: Mapping[str, str] = os.environ, cwd: Path | None = None) -> Path | None:
    if env.get("MEMDOCK_CONFIG"):
        p = Path(env["MEMDOCK_CONFIG"]).expanduser()
        if not p.is_file():
            raise ConfigError(f"MEMDOCK_CONFIG names {p}, which is not a file")
        return p
    p = (cwd or Path.cwd()) / "memdock.toml"
    return p if p.is_file() else None


KNOWN_KEYS = ("backend", "data_dir", "sandbox", "adapters", "python_interpreters")
TRUST_ENV = "MEMDOCK_TRUST_PROJECT_CONFIG"


def load_file(path: Path | None) -> dict[str, Any]:
    """The config file's table; a key memdock does not know is an error naming it and the file (a misspelt
    `sandox = "strict"` must not run unsandboxed silently)."""
    if path is None:
        return {}
    try:  # imported here: a command line without a memdock.toml (most) does not pay for it
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: an adapter's interpreter, which never reads memdock.toml
        raise ConfigError(f"{path}: reading memdock.toml needs Python 3.11 or newer") from None
    try:
        loaded = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    unknown = sorted(set(loaded) - set(KNOWN_KEYS))
    if unknown:
        raise ConfigError(
            f"{path}: unknown key {unknown[0]!r} (known: {', '.join(KNOWN_KEYS)})",
            details={"file": str(path), "key": unknown[0]},
        )
    return loaded


def check_project_config(path: Path | None, file_cfg: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """A memdock.toml found in the current directory (not named by MEMDOCK_CONFIG) is whoever wrote that folder's:
    it may not turn the sandbox off nor pick an adapter by path, unless MEMDOCK_TRUST_PROJECT_CONFIG=1."""
    if path is None or env.get("MEMDOCK_CONFIG") or env.get(TRUST_ENV) == "1":
        return
    backend = str(file_cfg.get("backend", ""))
    what: str | None
    if file_cfg.get("sandbox") == "off":
        what = 'sandbox = "off"'
    elif "/" in backend or backend.startswith(".") or _adapter_folder(backend, path.parent):
        what = f"backend = {backend!r} (an adapter by path)"
    elif file_cfg.get("python_interpreters"):
        what = "python_interpreters (programs memdock runs to ask their version)"
    else:
        what = _path_outside(path.parent, file_cfg.get("adapters"))
        if what is None:
            return
    raise ConfigError(
        f"{path}: {what} in a memdock.toml of the current directory is not followed: a folder's own config may not "
        "lower the sandbox, run a program or an adapter from a path, nor give an adapter read rights outside that "
        f"folder; name the file with MEMDOCK_CONFIG, or set {TRUST_ENV}=1, if you trust it",
        details={"file": str(path)},
    )


def _path_outside(folder: Path, adapters: object) -> str | None:
    """The first adapter config value naming a path outside FOLDER (`[adapters.NAME] key`), if any: under the
    strict sandbox every absolute path an adapter's config names is readable to it (see `runner/readset.py`)."""
    if not isinstance(adapters, dict):
        return None
    inside = folder.resolve()
    for name, table in adapters.items():
        for key, value in table.items() if isinstance(table, dict) else ():
            if not isinstance(value, str) or not value.startswith(("/", "~")):
                continue
            target = Path(os.path.realpath(Path(value).expanduser()))
            if target != inside and inside not in target.parents:
                return f"[adapters.{name}] {key} = {value!r} (a path outside {inside})"
    return None


def resolve(
    *,
    backend: str | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
) -> Settings:
    path = config_file(env, cwd)
    file_cfg = load_file(path)
    check_project_config(path, file_cfg, env)
    if backend:
        name, source = backend, "--backend"
    elif env.get("MEMDOCK_BACKEND"):
        name, source = env["MEMDOCK_BACKEND"], "MEMDOCK_BACKEND"
    elif file_cfg.get("backend"):
        name, source = str(file_cfg["backend"]), str(path)
    else:
        name, source = DEFAULT_BACKEND, "default"
    if data_dir is not None:
        store = Path(data_dir).expanduser()
    elif file_cfg.get("data_dir"):
        store = Path(str(file_cfg["data_dir"])).expanduser()
    else:
        store = memdock_home(env) / "stores" / Path(name).name
    name, source = _store_backend(store, name, source)
    adapters = file_cfg.get("adapters", {})
    adapter_cfg = dict(adapters.get(Path(name).name, {})) if isinstance(adapters, dict) else {}
    sandbox = file_cfg.get("sandbox")
    if sandbox is not None and sandbox not in ("off", "writes", "strict"):
        raise ConfigError(f'{path}: sandbox must be "off", "writes" or "strict", got {sandbox!r}')
    return Settings(
        backend=name,
        backend_source=source,
        store=store.resolve(),
        adapter_config=adapter_cfg,
        config_file=path,
        sandbox=sandbox,
    )


def _store_backend(store: Path, name: str, source: str) -> tuple[str, str]:
    """A store named by its folder answers with the backend that wrote it when none is named; one named that is
    not the store's is refused before anything runs (`engine.store.Store.bind` guards the writes the same way)."""
    store = store.resolve()
    recorded = recorded_backend(store)
    if recorded is None or recorded == name:
        return name, source
    # a folder's name need not be its adapter's; a bare name is an adapter's before a folder's (Registry.get)
    if not bare_name(name) and _adapter_folder(name):
        if _folder_adapter_name(name) in (None, recorded):
            return name, source  # a descriptor without a name is the registry's to report
        raise ConfigError(other_backend(store, recorded, name, source), details={"store": str(store)})
    if source == "default":
        if _adapter_folder(recorded):  # Registry.get would run that folder's adapter
            raise ConfigError(
                f"{store / BACKEND_FILE} names {recorded!r}, which is also an adapter's folder here: a store's file "
                "never picks an adapter by path; name the backend with --backend",
                details={"file": str(store / BACKEND_FILE)},
            )
        return recorded, str(store / BACKEND_FILE)
    raise ConfigError(other_backend(store, recorded, name, source), details={"store": str(store)})


def bare_name(name: str) -> bool:
    """NAME reads as an adapter's name rather than a path: no separator, not `.`-led nor `~`-led."""
    return not (os.sep in name or (os.altsep and os.altsep in name) or name.startswith((".", "~")))


def _folder_adapter_name(folder: str) -> str | None:
    """The name FOLDER's adapter.json gives its adapter, where it gives one."""
    try:
        raw = orjson.loads((Path(folder) / "adapter.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    name = raw.get("name") if isinstance(raw, dict) else None
    return name if isinstance(name, str) else None


def _adapter_folder(name: str, *within: Path) -> bool:
    """NAME is a folder holding an adapter (descriptor.DESCRIPTOR, which imports this module), as Registry.get
    takes it (from the current directory), or within one of WITHIN."""
    # os.path.isfile: a name too long for a path is no folder (Path.is_file raised ENAMETOOLONG, a traceback)
    return bool(name) and any(os.path.isfile(folder / name / "adapter.json") for folder in (Path(), *within))


def secret_fields(config_schema: Mapping[str, Any] | None) -> set[str]:
    props = (config_schema or {}).get("properties", {})
    return {k for k, v in props.items() if isinstance(v, dict) and v.get("x-secret")}


def check_no_secrets_in(
    config: Mapping[str, Any], config_schema: Mapping[str, Any] | None, env_for: Mapping[str, str], where: str
) -> None:
    for name in sorted(secret_fields(config_schema) & set(config)):
        var = env_for.get(name, "its environment variable")
        raise ConfigError(f"{where}: {name} is a secret; set it in the environment ({var}), not in a file")
