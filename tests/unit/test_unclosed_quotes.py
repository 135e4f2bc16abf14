"""A value a quote opens that its line's end leaves open (`password = "v4lue`, the closing
quote deleted or never typed) is read as closed there: the keyword rules, asking for the
closing quote, let it through where the same value unquoted was refused."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets, redact_text
from memidx.secrets.quotes import closed_at_end
from tests.unit.test_secrets_linear import detection_growth

VALUE = "hunter2secret"


@pytest.mark.parametrize(
    "text",
    [
        f'password = "{VALUE}',
        f"api_key: '{VALUE}",
        f"api_key: '{VALUE}   ",  # spaces after it
        f'password => "{VALUE}',
        f'"password": "{VALUE}',
        f'char password[25] = "{VALUE}',
        f'x = 1; password = "{VALUE};',
        f"GITHUB_TOKEN=`{VALUE}",
        f'Deploy\n\npassword = "{VALUE}\nand the next line',  # a message's line
        f'Deploy\r\n\r\npassword = "{VALUE}\r\nand the next line\r\n',  # saved with CRLF
        f'{"x " * 150}password = "{VALUE}',  # a long line, read in windows
        # the brackets a call or a collection closes it with are no part of it: read with
        # them, the value was a reference by its `)` (memidx.secrets.values.assigned_value)
        f'db.connect(user="app", password="{VALUE})',
        f'connect(password="{VALUE});',
        f"login(token=`{VALUE}))",
        f'creds = [{{"password": "{VALUE}}}]',
    ],
)
def test_a_value_left_open_at_its_lines_end_is_found(text: str) -> None:
    found = [text[f.start : f.end] for f in find_secrets(text)]

    assert found == [VALUE]


@pytest.mark.parametrize(
    "text",
    [
        'password = "changeme',
        'password = "${DB_PASSWORD}',
        "api_key: '<your-key-here>",
        'The password: "correct horse',  # words, not a value
        'Type the password in the "Secret',
        "Don't share the password: it's yours",
    ],
)
def test_a_placeholder_or_prose_left_open_is_no_secret(text: str) -> None:
    assert find_secrets(text) == []


def test_closing_a_value_moves_nothing_before_it() -> None:
    line = f'password = "{VALUE}  '

    assert closed_at_end(line) == (f'password = "{VALUE}"  ', line.index(" ", 12))
    assert closed_at_end('password = "v4lue" and') == ('password = "v4lue" and', 22)


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_masking_a_long_value_left_open_keeps_its_lines_end(end: str) -> None:
    """A value longer than a window's reach is masked to the end of its run, which ran on
    to the added quote's place: the line break (LF) or the `\r` (CRLF) after it was masked
    too, and the masked text lost a line end."""
    value = "Zq8vN3kLp2Rt7Wx" * 40  # read in windows: cut short by each
    text = f'password = "{value}{end}the next line{end}'

    masked = redact_text(text).text

    assert masked == f'password = "[REDACTED:secret-assignment]{end}the next line{end}'


@pytest.mark.parametrize(
    ("head", "unit", "size"), [("", 'password = "ab ', 1_000), ('password = "ab', ")", 4_000)]
)
def test_a_long_line_of_quotes_is_read_in_linear_time(head: str, unit: str, size: int) -> None:
    find_secrets("password = warm")  # the plugins loaded before timing
    small, large = (head + (unit * (n // len(unit) + 1))[:n] for n in (size, 16 * size))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"
