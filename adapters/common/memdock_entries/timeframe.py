"""The dates a question names ("in May 2022", "on 9 November, 2022", "October 6, 2022", "in 2023", "in June"),
as spans of days that rerank.py prefers chunks dated within.

Only what is written is read: a day, a month of a year, a year after a preposition, or a month (with or without a
day) and no year, which matches that month of any year. Relative times ("last week", "yesterday") say nothing
without the moment the question was asked, which a stored question does not carry, so they are left to the time
cues (rerank.TIME_CUES). Years outside 1900..2099 and impossible days (31 February) are not dates here: a
question about 1850 or 2999 is ranked by its words alone.

Stretches read too: "between August 11 and August 15 2023", "the week before (after, of) 16 November 2023", "the
weekend (day) before 16 November", "the second (last) week of November 2022", "early (mid, late) November 2022",
"the beginning (middle, end) of November"; without a year, the same days of any year.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial

_MONTHS: dict[str, int] = {}
for number in range(1, 13):
    _MONTHS[calendar.month_name[number].lower()] = number
    _MONTHS[calendar.month_abbr[number].lower()] = number
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_NO_OTHER_YEAR = r"(?!,?\s*(?!(?:19|20)\d\d(?!\d))\d{3})"
"""After a date without a year: no year out of range follows ("in May 1850" is not May)."""
_BARE_MONTH = rf"\b(?:in|during|early|late|mid)[\s-]+({_MONTH})\b{_NO_OTHER_YEAR}"
"""A month without a year counts only after a preposition: "in May" is a month, "May said" is a person."""

_NO_NUMBER = r"(?![,\s]*\d)"
"""After a stretch: no year out of range ("3 May 1850") nor a longer day ("May 20") is read as less."""
_ONE_DAY = (
    rf"(?:{_DAY}\s+(?:of\s+)?(?:{_MONTH})\.?(?:(?:,\s*|\s+){_YEAR})?|(?:{_MONTH})\.?\s+{_DAY}(?:(?:,\s*|\s+){_YEAR})?)"
    rf"{_NO_NUMBER}"
)
_RANGE = re.compile(
    rf"\b(?:between|from)\s+(?P<start>(?:{_MONTH})\.?\s+\d{{1,2}}|\d{{1,2}}|{_ONE_DAY})(?:st|nd|rd|th)?"
    rf"\s+(?:and|to|until|through|-)\s+(?P<end>{_ONE_DAY})",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    rf"\b(?P<stretch>week|weekend|day)\s+(?P<relation>before|after|following|prior\s+to|of)\s+(?:the\s+)?(?P<day>{_ONE_DAY})",
    re.IGNORECASE,
)
_NTH_WEEK = re.compile(
    rf"\b(first|second|third|fourth|last|1st|2nd|3rd|4th)\s+week\s+of\s+({_MONTH})\b\.?(?:,?\s+(?:of\s+)?{_YEAR})?{_NO_NUMBER}",
    re.IGNORECASE,
)
_PART = re.compile(
    rf"\b(?:(early|mid|late)[\s-]+|the\s+(beginning|start|middle|end)\s+of\s+)({_MONTH})\b\.?"
    rf"(?:,?\s+(?:of\s+)?{_YEAR})?{_NO_NUMBER}",
    re.IGNORECASE,
)
_PLACEHOLDER_YEAR = 2000
"""Where a stretch without a year is placed (a leap year, so 29 February is a day); read as any year's."""

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("day month year", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\.?,?\s+{_YEAR}\b", re.IGNORECASE)),
    ("month day year", re.compile(rf"\b({_MONTH})\.?\s+{_DAY},?\s+{_YEAR}\b", re.IGNORECASE)),
    ("month year", re.compile(rf"\b({_MONTH})\.?,?\s+(?:of\s+)?{_YEAR}\b", re.IGNORECASE)),
    ("year", re.compile(rf"\b(?:in|of|during|since|until|by)\s+{_YEAR}\b", re.IGNORECASE)),
    ("day month", re.compile(rf"\b{_DAY}\s+(?:of\s+)?({_MONTH})\b{_NO_OTHER_YEAR}", re.IGNORECASE)),
    ("month day", re.compile(rf"\b(?:on\s+)({_MONTH})\.?\s+{_DAY}\b{_NO_OTHER_YEAR}", re.IGNORECASE)),
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
        if not self.month_only:
            return self.first - timedelta(days=1) <= day <= self.last + SLACK
        years = self.last.year - self.first.year
        for year in (day.year - 1, day.year):
            if _in_year(self.first, year) <= day <= _in_year(self.last, year + years) + SLACK:
                return True
        return False


def _in_year(day: date, year: int) -> date:
    """DAY in YEAR (29 February as 28 February outside leap years)."""
    return day.replace(year=year, day=min(day.day, calendar.monthrange(year, day.month)[1]))


def _span(kind: str, groups: tuple[str, ...]) -> Span | None:
    fields = dict(zip(kind.split(), groups))
    month = _MONTHS[fields["month"].lower()] if "month" in fields else None
    year = int(fields["year"]) if "year" in fields else None
    if year is None:
        return None if month is None else _month(_PLACEHOLDER_YEAR, month, 1, 31, month_only=True)
    if month is None:
        return Span(date(year, 1, 1), date(year, 12, 31))
    if "day" not in fields:
        return Span(date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1]))
    try:
        day = date(year, month, int(fields["day"]))
    except ValueError:
        return None
    return Span(day, day)


def _month(year: int, month: int, first: int, last: int, *, month_only: bool) -> Span:
    """Days FIRST..LAST of MONTH in YEAR (LAST capped at the month's end)."""
    end = min(last, calendar.monthrange(year, month)[1])
    return Span(date(year, month, first), date(year, month, end), month_only)


_DMY = re.compile(rf"{_DAY}\s+(?:of\s+)?({_MONTH})\.?(?:(?:,\s*|\s+){_YEAR})?", re.IGNORECASE)
_MDY = re.compile(rf"({_MONTH})\.?\s+{_DAY}(?:(?:,\s*|\s+){_YEAR})?", re.IGNORECASE)


def _day_of(text: str, year: int | None = None) -> tuple[date, bool] | None:
    """The day TEXT names (in YEAR, else the placeholder year, when it names none) and whether it names a year."""
    if match := _DMY.fullmatch(text):
        day, month, named = match.groups()
    elif match := _MDY.fullmatch(text):
        month, day, named = match.groups()
    else:
        return None
    try:
        found = date(int(named) if named else year or _PLACEHOLDER_YEAR, _MONTHS[month.lower()], int(day))
    except ValueError:
        return None
    return found, named is not None


def _range(match: re.Match[str]) -> Span | None:
    """ "between August 11 and August 15 2023", "from 11 to 15 August": the first day takes what it leaves out
    (month, year) from the last."""
    start_text, end_text = match["start"], match["end"]
    start = None if start_text.isdigit() else _day_of(start_text)
    end = _day_of(end_text, start[0].year if start and start[1] else None)
    if end is None:
        return None
    last, named = end
    if start_text.isdigit():
        try:
            start = last.replace(day=int(start_text)), False
        except ValueError:
            return None
    if start is None:
        return None
    first = start[0] if start[1] else _in_year(start[0], last.year)
    if first > last and not start[1] and first.month > last.month:
        first = _in_year(first, last.year - 1)
    if first > last:
        return None
    return Span(first, last, month_only=not (named or start[1]))


_SATURDAY = 5


def _relative(match: re.Match[str]) -> Span | None:
    """ "the week before 16 November 2023", "the weekend of 20 May", "the day after 3 June": days by that day. A
    stretch before a day runs to that day: what happened the week before is told on the day named."""
    stretch, relation, day_text = match["stretch"].lower(), match["relation"].lower(), match["day"]
    read = _day_of(day_text)
    if read is None:
        return None
    day, named = read
    sign = 0 if relation == "of" else -1 if relation.startswith(("before", "prior")) else 1
    one = timedelta(days=1)
    if sign < 0:
        if stretch == "day":
            return Span(day - one, day, month_only=not named)
        if stretch == "week" or not named:
            return Span(day - 7 * one, day, month_only=not named)
        saturday = day - ((day.weekday() - _SATURDAY) % 7 or 7) * one
        return Span(saturday - one, day)
    if stretch == "day":
        return Span(day + sign * one, day + sign * one, month_only=not named)
    if not named:
        return Span(day + one, day + 7 * one, True) if sign else Span(day - 6 * one, day + 6 * one, True)
    return _week_or_weekend(stretch, day, sign)


def _week_or_weekend(stretch: str, day: date, sign: int) -> Span:
    """The week of (after) DAY, Monday to Sunday (the seven days after), or the weekend of (after) it, Friday to
    Sunday."""
    one = timedelta(days=1)
    if stretch == "week":
        monday = day - day.weekday() * one
        return Span(day + one, day + 7 * one) if sign else Span(monday, monday + 6 * one)
    to_saturday = (_SATURDAY - day.weekday()) % 7
    if sign:
        saturday = day + (to_saturday or 7) * one
    else:
        saturday = day - one if day.weekday() == _SATURDAY + 1 else day + to_saturday * one
    return Span(saturday - one, saturday + one)


_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_PARTS = {"early": (1, 10), "beginning": (1, 10), "start": (1, 10), "mid": (11, 20), "middle": (11, 20)}


def _nth_week(match: re.Match[str]) -> Span:
    """ "the second week of November 2022": days 8..14; "the last week of": its last seven days."""
    nth, month_name, named = match.groups()
    year, month = int(named) if named else _PLACEHOLDER_YEAR, _MONTHS[month_name.lower()]
    if nth.lower() == "last":
        end = calendar.monthrange(year, month)[1]
        return _month(year, month, end - 6, end, month_only=named is None)
    n = _NTH[nth.lower()]
    return _month(year, month, 7 * n - 6, 7 * n, month_only=named is None)


def _part(match: re.Match[str]) -> Span:
    """ "early November 2022", "the end of November": days 1..10, 11..20 or 21 to the month's end."""
    early_mid_late, the_part, month_name, named = match.groups()
    first, last = _PARTS.get((early_mid_late or the_part).lower(), (21, 31))
    year = int(named) if named else _PLACEHOLDER_YEAR
    return _month(year, _MONTHS[month_name.lower()], first, last, month_only=named is None)


def _readers() -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], Span | None]]]:
    """Stretches first, so that the dates inside them are not read again alone."""
    stretches: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Span | None]]] = [
        (_RANGE, _range),
        (_RELATIVE, _relative),
        (_NTH_WEEK, _nth_week),
        (_PART, _part),
    ]
    return stretches + [(pattern, partial(_read, kind)) for kind, pattern in _PATTERNS]


def _read(kind: str, match: re.Match[str]) -> Span | None:
    return _span(kind, match.groups())


_READERS = _readers()


def spans(question: str) -> list[Span]:
    """The dates QUESTION names, each read once (the fullest reading of a stretch of text wins)."""
    found: list[Span] = []
    taken: list[tuple[int, int]] = []
    for pattern, reader in _READERS:
        for match in pattern.finditer(question):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            span = reader(match)
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
