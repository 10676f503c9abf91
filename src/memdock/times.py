"""RFC 3339 date-times, parsed and formatted in one place (import-light: adapters use it).

Payloads carry times as RFC 3339 strings; memdock writes them in UTC with a `Z`. Parsing accepts `Z`/`z` or an
offset, and a time without a zone as UTC (the caller decides whether that deserves a warning).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

UTC = timezone.utc  # noqa: UP017  (datetime.UTC is 3.11+; adapters may run on 3.10)


def parse(text: str) -> datetime:
    """An aware datetime for TEXT (ISO 8601 / RFC 3339); ValueError when it is not one."""
    raw = text.strip()
    if raw[-1:] in ("Z", "z"):
        raw = raw[:-1] + "+00:00"
    value = datetime.fromisoformat(raw)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def has_zone(text: str) -> bool:
    """Whether TEXT names its zone (`Z` or an offset); a time without one is read as UTC."""
    raw = text.strip()
    return raw[-1:] in ("Z", "z") or datetime.fromisoformat(raw).tzinfo is not None


def format(value: datetime, *, timespec: str = "auto") -> str:
    """VALUE in UTC as RFC 3339 with a `Z` (a naive datetime is taken as UTC)."""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")


def keeping_offset(value: datetime) -> str:
    """VALUE as RFC 3339 in its own offset (`Z` for UTC; a naive one is UTC): an import records a time as its
    source wrote it."""
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    text = aware.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def epoch(text: str | None) -> float | None:
    """Seconds since the epoch for TEXT, None for an empty one."""
    return parse(text).timestamp() if text else None


def now() -> str:
    return format(datetime.now(UTC))


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
    return parse(value[:10] + "T" + value[11:])
