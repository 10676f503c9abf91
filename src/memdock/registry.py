"""Finding adapters: bundled ones, folders on MEMDOCK_ADAPTER_PATH, and Python entry points.

An adapter is a folder with adapter.json (validated against
schemas/v1/adapter.schema.json) and its program. Lookup order: a path to such
a folder; then MEMDOCK_ADAPTER_PATH (colon-separated; each entry an adapter
folder or a folder of them), then the `memdock.adapters` entry points (each
loads to a folder path or a callable returning one), then the bundled
adapters/. The first adapter found under a name wins. A bare name is a folder of the current directory only
when no adapter has that name (a folder there never shadows an installed or bundled adapter).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

import orjson

from .config import bare_name
from .descriptor import DESCRIPTOR as DESCRIPTOR
from .descriptor import SHARED_ADAPTER_CODE as SHARED_ADAPTER_CODE
from .descriptor import AdapterDescriptor as AdapterDescriptor
from .errors import ConfigError
from .resources import bundled_adapters_dir

log = logging.getLogger("memdock.registry")

ENTRY_POINT_GROUP = "memdock.adapters"


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
        """The adapter NAME_OR_PATH names: a path to an adapter folder, else an adapter's name. A bare name (no
        separator, not starting with `.`) is a folder of the current directory only when no adapter has that
        name: a cloned repository's `sqlite/adapter.json` must not take over `memdock add` run there."""
        p = Path(name_or_path)
        name = str(name_or_path)
        folder = os.path.isfile(p / DESCRIPTOR)  # False for a name too long to be a path (no traceback)
        if folder and not bare_name(name):
            return AdapterDescriptor.load(p, "path")
        skipped: list[BrokenAdapter] = []
        for d in self.scan():
            if isinstance(d, AdapterDescriptor):
                if d.name == name:
                    return d
            elif d.name == name:
                raise ConfigError(f"adapter {name!r} ({d.origin}) is broken: {d.describe()}")
            else:
                skipped.append(d)
        if folder:
            return AdapterDescriptor.load(p, "path")
        known = ", ".join(sorted(self.discover())) or "none"
        hint = f"; skipped broken: {'; '.join(b.describe() for b in skipped)}" if skipped else ""
        raise ConfigError(f"no adapter named {name!r} (known: {known}; add folders with MEMDOCK_ADAPTER_PATH){hint}")
