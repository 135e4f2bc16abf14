"""`--since` and `--until`: a date, an ISO time, or a time relative to now (`today`,
`yesterday`, `7d`, `2w`, `12h`), as the UTC times the index compares (`YYYY-MM-DDTHH:MM:SSZ`).

As in `git log --since`, a day is a day of this machine's clock: `2026-11-29` (or the ISO basic
`20261129`), `today` and `yesterday` start at local midnight, and `--until` a day ends at the
next one; a time without a zone is local time, one with a zone (`Z`, `+02:00`) that moment. A
week or an ordinal date (`2026-W48`) is refused rather than read as its first moment."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from memidx.errors import UsageError

_AGO = re.compile(r"([0-9]{1,5})\s*([hdw])", re.IGNORECASE)
_UNITS = {"h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
_DAYS = {"today": 0, "yesterday": 1}
_DAY = re.compile(r"[0-9]{4}(-?)[0-9]{2}\1[0-9]{2}")  # 2026-11-29, or ISO basic 20261129
_TIME = re.compile(r"[0-9]{4}-?[0-9]{2}-?[0-9]{2}[t ][0-9]")  # a day, then its time
EXAMPLES = "e.g. 2026-11-29, 20261129, 2026-11-29T14:00, yesterday, 7d or 2w"


def parse_when(
    text: str, option: str, *, end: bool, now: datetime | None = None, zone: tzinfo | None = None
) -> str:
    """The bound `text` names, in the `zone` (None: this machine's); UsageError naming `option`
    when it names none."""
    spoken = text.strip().lower()
    now = now or datetime.now(UTC)
    try:
        if spoken in _DAYS:
            today = now.astimezone(zone).date()  # astimezone(None): the local clock's day
            return _day(today - timedelta(days=_DAYS[spoken]), end=end, zone=zone)
        ago = _AGO.fullmatch(spoken)
        if ago:
            return _utc(now - int(ago.group(1)) * _UNITS[ago.group(2).lower()])
        if _DAY.fullmatch(spoken):
            return _day(date.fromisoformat(spoken), end=end, zone=zone)
        if _TIME.match(spoken):
            return _moment(text.strip(), zone)
    except (ValueError, OverflowError) as exc:
        raise UsageError(f"{option} {text!r} is not a date or time", EXAMPLES) from exc
    raise UsageError(f"{option} {text!r} is not a date or time", EXAMPLES)


def _day(day: date, *, end: bool, zone: tzinfo | None) -> str:
    """The local midnight that starts `day` (`end`: the one that ends it), in UTC."""
    if end and day == date.max:  # the day after the last: a bound past every date and time
        return f"{day.isoformat()}~"  # "~" sorts after "T" and after the date alone
    day = day + timedelta(days=1) if end else day
    try:
        return _utc(datetime.combine(day, time(), zone))
    except (ValueError, OverflowError):  # year 1 or 9999 in a zone east of UTC: its UTC day
        return day.isoformat()


def _moment(text: str, zone: tzinfo | None) -> str:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None and zone is not None:
        moment = moment.replace(tzinfo=zone)
    return _utc(moment)  # a naive time is taken as the local clock's


def _utc(moment: datetime) -> str:
    """`moment` in UTC as the index writes times (a naive one read as local time)."""
    moment = moment.astimezone(UTC)
    return f"{moment.year:04d}-{moment:%m-%dT%H:%M:%S}Z"  # strftime gives year 999, not 0999
