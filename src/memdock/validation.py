"""Schema validation with two interchangeable engines.

`jsonschema` (pure Python) is the reference; `jsonschema-rs` is used for speed
when installed. Both are configured to give the same verdicts: formats are
asserted (RFC 3339 date-times are really checked), numbers must be finite,
and `$` in a pattern means end of string in both.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from . import schemas
from .times import is_rfc3339_datetime, parse_datetime  # noqa: F401  (re-exported: the checks live with the times)


@cache
def _memdock_datetime_pattern() -> str:
    return schemas.load("defs")["$defs"]["datetime"]["pattern"]


def _explain(issue: Issue) -> Issue:
    """Say in words what the date-time pattern of defs.schema.json refuses."""
    pattern = _memdock_datetime_pattern()
    if pattern not in issue.message:
        return issue
    value = issue.message.split(" does not match ")[0]
    return Issue(
        issue.path,
        f"{value} is a leap second (23:59:60) or in the year 0000, which memdock does not "
        "accept: write 23:59:59 or a year from 0001",
    )


@dataclass(frozen=True, slots=True)
class Issue:
    """One schema violation: where in the record (a JSON path) and what."""

    path: str
    message: str


def json_path(parts: Iterable[Any]) -> str:
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


class Compiled(Protocol):
    def is_valid(self, instance: Any) -> bool: ...
    def issues(self, instance: Any) -> list[Issue]: ...


class Engine(Protocol):
    name: str

    def compile(self, schema: dict[str, Any]) -> Compiled: ...


class PythonEngine:
    """The reference engine: jsonschema, Draft 2020-12, formats asserted."""

    name = "jsonschema"

    def __init__(self) -> None:
        import jsonschema
        from jsonschema import validators

        checker = jsonschema.FormatChecker(formats=())
        checker.checks("date-time")(is_rfc3339_datetime)
        base = jsonschema.Draft202012Validator

        def is_number(_checker: Any, instance: Any) -> bool:
            return (
                isinstance(instance, (int, float))
                and not isinstance(instance, bool)
                and (not isinstance(instance, float) or math.isfinite(instance))
            )

        def pattern(validator: Any, patrn: str, instance: Any, schema: Any):
            if validator.is_type(instance, "string") and not _anchored(patrn).search(instance):
                yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

        self._cls = validators.extend(
            base,
            validators={"pattern": pattern},
            type_checker=base.TYPE_CHECKER.redefine("number", is_number),
        )
        self._format_checker = checker

    def compile(self, schema: dict[str, Any]) -> Compiled:
        v = self._cls(schema, format_checker=self._format_checker)

        class _C:
            is_valid = staticmethod(v.is_valid)

            @staticmethod
            def issues(instance: Any) -> list[Issue]:
                errs = sorted(v.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
                return [_explain(Issue(json_path(e.absolute_path), e.message)) for e in errs]

        return _C()


@cache
def _anchored(pattern: str) -> re.Pattern[str]:
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


class RustEngine:
    """jsonschema-rs: the same verdicts, many times faster."""

    name = "jsonschema-rs"

    def __init__(self) -> None:
        import jsonschema_rs

        self._mod = jsonschema_rs

    def compile(self, schema: dict[str, Any]) -> Compiled:
        v = self._mod.validator_for(schema, validate_formats=True)

        class _C:
            is_valid = staticmethod(v.is_valid)

            @staticmethod
            def issues(instance: Any) -> list[Issue]:
                return [_explain(Issue(json_path(e.instance_path), e.message)) for e in v.iter_errors(instance)]

        return _C()


ENGINES: dict[str, Callable[[], Engine]] = {"jsonschema": PythonEngine, "jsonschema-rs": RustEngine}


@cache
def get_engine(name: str | None = None) -> Engine:
    """The engine named (or MEMDOCK_VALIDATOR), else jsonschema-rs when installed, else jsonschema."""
    name = name or os.environ.get("MEMDOCK_VALIDATOR") or "auto"
    if name == "auto":
        try:
            return RustEngine()
        except ImportError:
            return PythonEngine()
    if name not in ENGINES:
        raise ValueError(f"unknown validator engine {name!r}; choose one of {', '.join(ENGINES)} or auto")
    return ENGINES[name]()


_COMPILED: dict[tuple[int, str, str, bool], tuple[Engine, Compiled]] = {}


def _compiled(engine: Engine, name: str, version: str, lenient: bool) -> Compiled:
    """Schema NAME compiled by ENGINE, once per process: a validator is made per bundle read or written (each
    remember makes several), and compiling took a tenth of a loaded MCP front end's time holding the GIL. The
    entry keeps ENGINE alive, so its id is never another engine's."""
    key = (id(engine), name, version, lenient)
    held = _COMPILED.get(key)
    if held is None:
        held = _COMPILED.setdefault(key, (engine, engine.compile(schemas.load(name, version, lenient=lenient))))
    return held[1]


class SchemaValidator:
    """Validates records of every type against schemas/v1, compiling each schema once per process and engine."""

    def __init__(self, engine: Engine | str | None = None, *, lenient: bool = False, version: str = "v1"):
        self.engine = engine if not isinstance(engine, (str, type(None))) else get_engine(engine)
        self.lenient = lenient
        self.version = version
        self._compiled: dict[str, Compiled] = {}

    def compiled(self, name: str) -> Compiled:
        c = self._compiled.get(name)
        if c is None:
            c = self._compiled[name] = _compiled(self.engine, name, self.version, self.lenient)
        return c

    def is_valid(self, name: str, instance: Any) -> bool:
        return self.compiled(name).is_valid(instance)

    def issues(self, name: str, instance: Any) -> list[Issue]:
        c = self.compiled(name)
        if c.is_valid(instance):
            return []
        return c.issues(instance) or [Issue("$", "invalid")]
