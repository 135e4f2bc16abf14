"""--since / --until: dates, times, and times relative to now."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from memidx.errors import UsageError
from memidx.memory.when import parse_when

NOW = datetime(2026, 12, 1, 9, 30, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("2026-11-29", False, "2026-11-29T00:00:00Z"),
        ("2026-11-29", True, "2026-11-30T00:00:00Z"),
        ("20261129", False, "2026-11-29T00:00:00Z"),  # ISO basic: a day, not its first moment
        ("20261129", True, "2026-11-30T00:00:00Z"),
        ("today", False, "2026-12-01T00:00:00Z"),
        ("yesterday", False, "2026-11-30T00:00:00Z"),
        ("Yesterday", True, "2026-12-01T00:00:00Z"),
        ("7d", False, "2026-11-24T09:30:00Z"),
        ("2w", False, "2026-11-17T09:30:00Z"),
        ("12h", True, "2026-11-30T21:30:00Z"),
        ("2026-11-29T14:00", False, "2026-11-29T14:00:00Z"),
        ("20261129T1400", False, "2026-11-29T14:00:00Z"),
        ("2026-11-29 14:00+02:00", False, "2026-11-29T12:00:00Z"),
    ],
)
def test_when_accepts_dates_times_and_relative_times(text: str, end: bool, expected: str) -> None:
    assert parse_when(text, "--since", end=end, now=NOW, zone=UTC) == expected


CALIFORNIA = timezone(timedelta(hours=-8))  # PST, with no daylight saving in December


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        # 17:00 on 30 November in California is 01:00 on 1 December in UTC: its today is the
        # 30th, from its midnight, not the UTC day that began an hour ago
        ("today", False, "2026-11-30T08:00:00Z"),
        ("today", True, "2026-12-01T08:00:00Z"),
        ("yesterday", False, "2026-11-29T08:00:00Z"),
        ("2026-11-30", False, "2026-11-30T08:00:00Z"),  # the same day as `today` there
        ("20261130", True, "2026-12-01T08:00:00Z"),
        ("2026-11-30T14:00", False, "2026-11-30T22:00:00Z"),  # no zone: the local clock's
        ("2026-11-30T14:00Z", False, "2026-11-30T14:00:00Z"),
        ("12h", False, "2026-11-30T13:00:00Z"),  # back from now: the zone changes nothing
    ],
)
def test_days_and_times_without_a_zone_are_the_local_clock_s(
    text: str, end: bool, expected: str
) -> None:
    now = datetime(2026, 12, 1, 1, 0, 0, tzinfo=UTC)
    assert parse_when(text, "--since", end=end, now=now, zone=CALIFORNIA) == expected


def test_the_machine_s_own_zone_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """No zone given: this machine's clock (TZ), as `git log --since` reads it."""
    if not hasattr(time, "tzset"):
        pytest.skip("TZ cannot be changed in-process here")
    monkeypatch.setenv("TZ", "PST8")
    time.tzset()
    try:
        now = datetime(2026, 12, 1, 1, 0, 0, tzinfo=UTC)
        assert parse_when("today", "--since", end=False, now=now) == "2026-11-30T08:00:00Z"
        assert parse_when("20261130", "--until", end=True, now=now) == "2026-12-01T08:00:00Z"
    finally:
        monkeypatch.setenv("TZ", "UTC")  # as conftest.py sets it for every test
        time.tzset()


@pytest.mark.parametrize(
    "text", ["soon", "7y", "-3d", "999999d", "2026-13-01", "d7", "2026-W48", "2026-11", "2026113"]
)
def test_a_bad_when_is_a_usage_error_naming_the_option(text: str) -> None:
    with pytest.raises(UsageError, match="--until"):
        parse_when(text, "--until", end=True, now=NOW)


def test_until_the_last_day_there_is_bounds_every_date_and_time() -> None:
    """`--until 9999-12-31` was "not a date or time": the day after it cannot be a date."""
    bound = parse_when("9999-12-31", "--until", end=True, now=NOW)
    since = parse_when("0001-01-01", "--since", end=False, now=NOW, zone=timezone.max)

    assert all(when < bound for when in ("9999-12-31", "9999-12-31T23:59:59Z", "2026-12-01"))
    assert since == "0001-01-01"  # its local midnight is before the first UTC moment
