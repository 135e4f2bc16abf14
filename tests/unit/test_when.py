"""--since / --until: dates, times, and times relative to now."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memidx.errors import UsageError
from memidx.memory.when import parse_when

NOW = datetime(2026, 12, 1, 9, 30, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("2026-11-29", False, "2026-11-29"),
        ("2026-11-29", True, "2026-11-30"),
        ("today", False, "2026-12-01"),
        ("yesterday", False, "2026-11-30"),
        ("Yesterday", True, "2026-12-01"),
        ("7d", False, "2026-11-24T09:30:00Z"),
        ("2w", False, "2026-11-17T09:30:00Z"),
        ("12h", True, "2026-11-30T21:30:00Z"),
        ("2026-11-29T14:00", False, "2026-11-29T14:00:00Z"),
    ],
)
def test_when_accepts_dates_times_and_relative_times(text: str, end: bool, expected: str) -> None:
    assert parse_when(text, "--since", end=end, now=NOW) == expected


@pytest.mark.parametrize("text", ["soon", "7y", "-3d", "999999d", "2026-13-01", "d7"])
def test_a_bad_when_is_a_usage_error_naming_the_option(text: str) -> None:
    with pytest.raises(UsageError, match="--until"):
        parse_when(text, "--until", end=True, now=NOW)


def test_until_the_last_day_there_is_bounds_every_date_and_time() -> None:
    """`--until 9999-12-31` was "not a date or time": the day after it cannot be a date."""
    bound = parse_when("9999-12-31", "--until", end=True, now=NOW)

    assert all(when < bound for when in ("9999-12-31", "9999-12-31T23:59:59Z", "2026-12-01"))
