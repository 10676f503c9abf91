"""RFC 3339 date-times, parsed and formatted in one place (import-light: adapters use it).

Payloads carry times as RFC 3339 strings; memdock writes them in UTC with a `Z`. Parsing accepts `Z`/`z` or an
offset, and a time without a zone as UTC (the caller decides whether that deserves a warning).
"""

from __future__ import annotations

from datetime import UTC, datetime


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
