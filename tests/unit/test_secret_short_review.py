"""What the review of short passwords (`memidx/secrets/short.py`) found refused: a test's
verdict after `PASS:`, which a longer value passed (wt-rsmall8), and a number with its unit
after `pass:` (a benchmark's `first pass: 500ms`)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "--- PASS: Test1 (0.00s)",
        "    --- PASS: TestX/a1 (0.00s)",
        "PASS: test1",
        "PASS: t3st (0.01s)",
        "pass: test1",
        "pass: test_1",
    ],
)
def test_a_short_test_verdict_passes_as_a_long_one_does(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "first pass: 500ms",
        "warm pass: 1h30m",
        "pass: 16GB",
        "pass: 512Mi",
        "pw: 12px",
        "pass: 21st",
        "password: 0xFF",
        "password: 1e10",
    ],
)
def test_a_quantity_is_no_short_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("PASS=ab12", "ab12"),
        ("  PASS: hunter2", "hunter2"),
        ("PASS: ok12", "ok12"),
        ("Result: PASS: a1b2", "a1b2"),
        ("password: 1q2w3e", "1q2w3e"),
        ("password: qwe123", "qwe123"),
        ("password: 123456", "123456"),
        ("pass: 123abc", "123abc"),
    ],
)
def test_short_passwords_are_still_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Use `DB_PASSWORD=abc123` locally", "abc123"),
        ('{"password":"abc123"}', "abc123"),
        ("{password: 'abc123'}", "abc123"),
        ("The default password: admin1.", "admin1"),
        ("(password: hunter2)", "hunter2"),
        ('"password: hunter2"', "hunter2"),
        ("export PGPASSWORD=pg1234", "pg1234"),
        ("MYSQLPASSWORD: abc123", "abc123"),
        ("password: 12345678", "12345678"),
        ('{"pw": "123456789"}', "123456789"),
    ],
)
def test_a_short_password_in_inline_code_json_or_a_sentence_is_refused(
    text: str, secret: str
) -> None:
    """A short password followed by a closing backtick, quote, bracket or a sentence's end
    was let through: only a space, `,`, `;` or the line's end might follow it."""
    [finding] = found(text)
    assert finding.startswith(secret)
