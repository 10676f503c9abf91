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
from datetime import datetime
from functools import cache
from typing import Any, Protocol

from . import schemas

_DATETIME = re.compile(
    r"^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|([+-])([0-9]{2}):([0-9]{2}))\Z"
)


def is_rfc3339_datetime(value: object) -> bool:
    """RFC 3339 `date-time` (section 5.6), including calendar and leap-second rules."""
    if not isinstance(value, str):
        return True
    m = _DATETIME.match(value)
    if not m:
        return False
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    if day > days or hour > 23 or minute > 59 or second > 60:
        return False
    off_minutes = 0
    if m.group(9):
        oh, om = int(m.group(10)), int(m.group(11))
        if oh > 23 or om > 59:
            return False
        off_minutes = (oh * 60 + om) * (1 if m.group(9) == "+" else -1)
    if second == 60:
        utc = (hour * 60 + minute - off_minutes) % (24 * 60)
        return utc == 23 * 60 + 59
    return True


def parse_datetime(value: str) -> datetime:
    """A date-time the schema accepts (T or t, Z or z, any fraction) as an aware datetime; ValueError otherwise.

    The schema refuses leap seconds and the year 0000 because this is what every consumer ends up doing
    with a date-time, and Python's datetime (like most databases) cannot hold either."""
    if not isinstance(value, str) or not _DATETIME.match(value) or not is_rfc3339_datetime(value):
        raise ValueError(f"{value!r} is not an RFC 3339 date-time")
    text = value[:10] + "T" + value[11:]
    if text[-1] in "Zz":
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)


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


class SchemaValidator:
    """Validates records of every type against schemas/v1, compiling each schema once."""

    def __init__(self, engine: Engine | str | None = None, *, lenient: bool = False, version: str = "v1"):
        self.engine = engine if not isinstance(engine, (str, type(None))) else get_engine(engine)
        self.lenient = lenient
        self.version = version
        self._compiled: dict[str, Compiled] = {}

    def compiled(self, name: str) -> Compiled:
        c = self._compiled.get(name)
        if c is None:
            c = self._compiled[name] = self.engine.compile(schemas.load(name, self.version, lenient=self.lenient))
        return c

    def is_valid(self, name: str, instance: Any) -> bool:
        return self.compiled(name).is_valid(instance)

    def issues(self, name: str, instance: Any) -> list[Issue]:
        c = self.compiled(name)
        if c.is_valid(instance):
            return []
        return c.issues(instance) or [Issue("$", "invalid")]
