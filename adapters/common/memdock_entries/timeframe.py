"""The dates a question names ("in May 2022", "on 9 November, 2022", "October 6, 2022", "in 2023", "in June"),
as spans of days that rerank.py prefers chunks dated within.

Only what is written is read: a day, a month of a year, a year after a preposition, or a month (with or without a
day) and no year, which matches that month of any year. Relative times ("last week", "yesterday") say nothing
without the moment the question was asked, which a stored question does not carry, so they are left to the time
cues (rerank.TIME_CUES). Years outside 1900..2099 and impossible days (31 February) are not dates here: a
question about 1850 or 2999 is ranked by its words alone.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

_MONTHS: dict[str, int] = {}
for number in range(1, 13):
    _MONTHS[calendar.month_name[number].lower()] = number
    _MONTHS[calendar.month_abbr[number].lower()] = number
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_BARE_MONTH = rf"\b(?:in|during|early|late|mid)[\s-]+({_MONTH})\b"
"""A month without a year counts only after a preposition: "in May" is a month, "May said" is a person."""

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("day month year", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE)),
    ("month day year", re.compile(rf"\b({_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)),
    ("month year", re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)),
    ("year", re.compile(rf"\b(?:in|of|during|since|until|by)\s+{_YEAR}\b", re.IGNORECASE)),
    ("day month", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\b", re.IGNORECASE)),
    ("month day", re.compile(rf"\b(?:on\s+)({_MONTH})\.?\s+{_DAY}\b", re.IGNORECASE)),
    ("month", re.compile(_BARE_MONTH, re.IGNORECASE)),
]
SLACK = timedelta(days=14)
"""How long after a span a chunk still counts as within it: people tell of a day in the days after it (LoCoMo dev:
7, 14 and 30 days gave the same recall)."""


@dataclass(frozen=True)
class Span:
    """Days FIRST..LAST; with MONTH_ONLY, that month of any year (FIRST and LAST then carry the month only)."""

    first: date
    last: date
    month_only: bool = False

    def holds(self, day: date) -> bool:
        """Whether DAY lies in this span or within SLACK after it."""
        if self.month_only:
            return self.first.month in (day.month, (day - SLACK).month)
        return self.first - timedelta(days=1) <= day <= self.last + SLACK


def _span(kind: str, groups: tuple[str, ...]) -> Span | None:
    fields = dict(zip(kind.split(), groups))
    month = _MONTHS[fields["month"].lower()] if "month" in fields else None
    year = int(fields["year"]) if "year" in fields else None
    if year is None:
        return None if month is None else Span(date(2000, month, 1), date(2000, month, 1), month_only=True)
    if month is None:
        return Span(date(year, 1, 1), date(year, 12, 31))
    if "day" not in fields:
        return Span(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))
    try:
        day = date(year, month, int(fields["day"]))
    except ValueError:
        return None
    return Span(day, day)


def spans(question: str) -> list[Span]:
    """The dates QUESTION names, each read once (the fullest reading of a stretch of text wins)."""
    found: list[Span] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(question):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            span = _span(kind, match.groups())
            if span is not None:
                found.append(span)
    return found


def within(spans_: list[Span], timestamp: float | None) -> bool:
    """Whether a chunk dated TIMESTAMP (seconds, UTC; None: undated) lies in any of SPANS_."""
    if timestamp is None or not spans_:
        return False
    try:
        day = datetime.fromtimestamp(timestamp, UTC).date()
        return any(span.holds(day) for span in spans_)
    except (OverflowError, OSError, ValueError):
        return False
