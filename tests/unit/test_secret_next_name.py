"""A value without spaces ends where a secret-sounding name is given a value after a separator
(`password=x,secret=...`, a query string's `&token=`, a connection string's `;Password=`): the
library's keyword detector read the first value to the end of its run, so the second's name was
masked with it and the second value was never reported on its own, nor masked when the first
held nothing secret."""

from __future__ import annotations

import pytest

from memidx.secrets import library
from memidx.secrets.detect import find_secrets, redact_text
from memidx.secrets.windows import LONG_LINE
from tests.unit.test_secrets_linear import detection_growth

FIRST, SECOND = "Xk9mP2vL8qR4", "aB3dEf9hIjK1mNoP"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            f"password={FIRST},secret={SECOND}",
            "password=[REDACTED:secret-assignment],secret=[REDACTED:secret-assignment]",
        ),
        (f"password=x,secret={SECOND}", "password=x,secret=[REDACTED:secret-assignment]"),
        (f"pwd={FIRST};api_key={SECOND} done", f"pwd=[REDACTED:{'secret-assignment'}];api_key="
         "[REDACTED:secret-assignment] done"),
        (
            f"https://h/?password=x&token={SECOND}",
            "https://h/?password=x&token=[REDACTED:secret-assignment]",
        ),
    ],
)  # fmt: skip
def test_a_name_after_a_value_is_its_own(line: str, shown: str) -> None:
    assert redact_text(line).text == shown
    assert line[find_secrets(line)[-1].start - 1] == "="  # the second reported from its value


@pytest.mark.parametrize(
    "line",
    [
        "secret=a,password=b",
        "password=x;token=y",
        "?user=bob&password=pass&token=abc",
        "use password=changeme,token=changeme in dev",
    ],
)
def test_names_and_short_values_together_are_no_secret(line: str) -> None:
    """Judged as one, the names and separators between short values looked secret: a note of
    placeholders was masked and its commit blocked."""
    assert find_secrets(line) == []
    assert redact_text(line).text == line


def test_a_value_a_window_cut_short_ends_at_the_next_name() -> None:
    """On a long line the value a window's end cuts short is masked to the end of its run, which
    held the next assignment: its name went with it."""
    value = "Zq8WxY7vUt6SrQ5p" * 20
    line = "x " * LONG_LINE + f"password: {value},secret={SECOND} after"
    redacted = redact_text(line).text
    assert redacted.endswith(
        "password: [REDACTED:secret-assignment],secret=[REDACTED:secret-assignment] after"
    )


def test_names_within_a_value_stay_linear() -> None:
    """`password=x,secret=x,secret=...`: each name is read once, from its separator."""
    library.library_finders()
    find_secrets("password = warm")  # the keyword plugin loaded before timing
    small, large = (f"password={',secret=Zq8vN3kLp2' * n}" for n in (25, 400))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ('password="Xy7$kq,token=abc"', 'password="[REDACTED:secret-assignment]"'),
        ("password: 'k9Fz2;secret=Q'", "password: '[REDACTED:secret-assignment]'"),
        ('secret = "s3cr&token=x1"', 'secret = "[REDACTED:secret-assignment]"'),
        ('{"password": "Xy7$kq,token=abc"}', '{"password": "[REDACTED:secret-assignment]"}'),
    ],
)
def test_a_quoted_value_is_one(line: str, shown: str) -> None:
    """A separator inside quotes is the value's own: cut there, each part was too short to be
    a secret and the whole value, masked before, was shown."""
    assert redact_text(line).text == shown
