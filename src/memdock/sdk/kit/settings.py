"""Adapter settings declared once: the fields of a frozen dataclass, checked against adapter.json's `config_schema`,
with the environment variables that supply a field named in adapter.json's `env` list (`config_field`).

    @dataclass(frozen=True)
    class Settings(SchemaSettings):
        DESCRIPTOR: ClassVar[str] = adapter_json(__file__)
        api_key: str | None = None
        timeout_s: float = 60.0

    Settings.from_config(ctx.config)  # api_key from the config, else from its variable in adapter.json

The config is validated against the schema by the SDK before an operation runs; here the two declarations of the
settings (the schema's properties and the dataclass's fields) are held to each other, so neither can drift.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from ...errors import ConfigError

S = TypeVar("S", bound="SchemaSettings")


@functools.cache
def _descriptor(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        raw: dict[str, Any] = json.load(f)
    return raw


def env_fields(descriptor: Mapping[str, Any]) -> dict[str, str]:
    """Config field -> the environment variable that supplies it, from adapter.json's `env` list."""
    return {e["config_field"]: e["name"] for e in descriptor.get("env", []) if e.get("config_field")}


def check_fields(fields: set[str], descriptor: Mapping[str, Any], where: str) -> None:
    """Raise ConfigError unless FIELDS are exactly the schema's properties and every `env` entry names one."""
    props = set((descriptor.get("config_schema") or {}).get("properties", {}))
    problems = []
    if props - fields:
        problems.append(f"config_schema properties with no settings field: {sorted(props - fields)}")
    if fields - props:
        problems.append(f"settings fields missing from config_schema.properties: {sorted(fields - props)}")
    unknown = sorted(set(env_fields(descriptor)) - props)
    if unknown:
        problems.append(f"env entries whose config_field is not in config_schema.properties: {unknown}")
    if problems:
        raise ConfigError(f"{where}: " + "; ".join(problems))


class SchemaSettings:
    """A mixin for a frozen dataclass of an adapter's settings; DESCRIPTOR is the path of its adapter.json."""

    DESCRIPTOR: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Any]]

    @classmethod
    def descriptor(cls) -> dict[str, Any]:
        raw = _descriptor(cls.DESCRIPTOR)
        _checked(cls, cls.DESCRIPTOR)
        return raw

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable adapter.json names for FIELD (for messages that tell the user what to set)."""
        return env_fields(cls.descriptor())[field]

    @classmethod
    def from_config(cls: type[S], config: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> S:
        """The settings of CONFIG; a field the config leaves empty comes from its variable in ENV, if set there."""
        values = {k: v for k, v in config.items() if k in cls.__dataclass_fields__}
        for field, var in env_fields(cls.descriptor()).items():
            if not values.get(field) and env.get(var):
                values[field] = env[var]
        return cls(**values)

    def cache_key(self) -> tuple[Any, ...]:
        """A hashable key of every value: a runtime built for one config is not reused for another."""
        return tuple(sorted((k, _hashable(v)) for k, v in dataclasses.asdict(self).items()))


_CHECKED: set[tuple[str, str]] = set()


def _checked(cls: type, path: str) -> None:
    if (cls.__qualname__, path) not in _CHECKED:
        check_fields({f.name for f in dataclasses.fields(cls)}, _descriptor(path), f"{path} and {cls.__qualname__}")
        _CHECKED.add((cls.__qualname__, path))


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value
