"""Shapes the last review left: passwords each exception let through, and values of code
each rule refused as passwords."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("userPassword=!hunterTwo9", "!hunterTwo9"),
        ("userPassword = !hunterTwo9", "!hunterTwo9"),
        ("apiKey = !correctHorse", "!correctHorse"),
    ],
)
def test_words_joined_by_case_after_a_holders_bang_are_a_password(text: str, secret: str) -> None:
    """A name that holds a secret (`userPassword`) given `!` and words joined by case was
    read as code's negation of a variable; a member, a call or a flag's name still is."""
    assert found(text) == [secret]
