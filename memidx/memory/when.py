"""`--since` and `--until`: a date, an ISO time, or a time relative to now (`today`,
`yesterday`, `7d`, `2w`, `12h`), as the strings the index compares: a date stays a date
(`--until` a date means up to the end of that day), a time is UTC `YYYY-MM-DDTHH:MM:SSZ`."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from memidx.errors import UsageError

_AGO = re.compile(r"([0-9]{1,5})\s*([hdw])", re.IGNORECASE)
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
_DAYS = {"today": 0, "yesterday": 1}
EXAMPLES = "e.g. 2026-11-29, 2026-11-29T14:00, yesterday, 7d or 2w"


def parse_when(text: str, option: str, *, end: bool, now: datetime | None = None) -> str:
    """The bound `text` names; UsageError naming `option` when it names none."""
    from memidx.haystack.frames import iso_utc

    spoken = text.strip().lower()
    now = now or datetime.now(UTC)
    try:
        if spoken in _DAYS:
            day = now.date() - timedelta(days=_DAYS[spoken])
            return _day(day, end=end)
        ago = _AGO.fullmatch(spoken)
        if ago:
            moment = now - int(ago.group(1)) * _UNITS[ago.group(2).lower()]
            return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
        if len(spoken) == 10:
            return _day(date.fromisoformat(spoken), end=end)
        return iso_utc(text)
    except (ValueError, OverflowError) as exc:
        raise UsageError(f"{option} {text!r} is not a date or time", EXAMPLES) from exc


def _day(day: date, *, end: bool) -> str:
    if end and day == date.max:  # the day after the last: a bound past every date and time
        return f"{day.isoformat()}~"  # "~" sorts after "T" and after the date alone
    return (day + timedelta(days=1)).isoformat() if end else day.isoformat()
