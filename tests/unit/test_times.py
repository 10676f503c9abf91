"""memdock.times: the one place RFC 3339 is parsed and written."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memdock import times


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2026-01-20T02:10:00Z", datetime(2026, 1, 20, 2, 10, tzinfo=UTC)),
        ("2026-01-20T02:10:00z", datetime(2026, 1, 20, 2, 10, tzinfo=UTC)),
        ("2026-01-20T04:10:00+02:00", datetime(2026, 1, 20, 2, 10, tzinfo=UTC)),
        ("2026-01-20T02:10:00", datetime(2026, 1, 20, 2, 10, tzinfo=UTC)),
        (" 2026-01-20 ", datetime(2026, 1, 20, tzinfo=UTC)),
    ],
)
def test_parse_gives_an_aware_time(text, expected):
    assert times.parse(text) == expected and times.parse(text).tzinfo is not None


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01T00:00:00Z", "", "Z"])
def test_parse_refuses_what_is_not_a_time(text):
    with pytest.raises(ValueError):
        times.parse(text)


def test_format_is_utc_with_z_and_keeping_offset_keeps_it():
    plus2 = datetime(2026, 1, 20, 4, 10, tzinfo=timezone(timedelta(hours=2)))
    assert times.format(plus2) == "2026-01-20T02:10:00Z"
    assert times.format(datetime(2026, 1, 20, 2, 10)) == "2026-01-20T02:10:00Z"
    assert times.format(plus2, timespec="minutes") == "2026-01-20T02:10Z"
    assert times.keeping_offset(plus2) == "2026-01-20T04:10:00+02:00"
    assert times.keeping_offset(datetime(2026, 1, 20, tzinfo=UTC)) == "2026-01-20T00:00:00Z"
    assert times.has_zone("2026-01-20T02:10:00z") and not times.has_zone("2026-01-20T02:10:00")
    assert times.epoch("1970-01-01T00:01:00Z") == 60.0 and times.epoch(None) is None and times.epoch("") is None
    assert times.parse(times.now()) <= datetime.now(UTC)
