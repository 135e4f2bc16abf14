"""A short value given to a person's password that is a name of code with its version
(`password = hashV2`, `pwd: saltV3`) reads as a name, as numbered_names reads a longer one
(`passwordHashV2`): it was refused by the short-password rule (letters and digits, 4 to 7
characters). A word of code and a version after it, from a small letter, and only so: a
short password with digits anywhere else, or letters that are no word before or after the
version, is still refused."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        "password = hashV2",
        "pwd: saltV3",
        "PASSWORD=hashV2",
        'password: "keyV2"',
        "password_v = hash_v2",
        "password:\n  hashV2\n",  # below its key, as on its line
    ],
)
def test_a_short_name_of_code_with_its_version_is_no_password(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "password"),
    [
        ("password = hunter2", "hunter2"),
        ("password = qzV2", "qzV2"),  # letters without a vowel: no word
        ("password = tkV9", "tkV9"),
        ("password = ayV2", "ayV2"),  # two letters that are no word
        ("password = HashV2", "HashV2"),  # from a capital, as `SuperSecret`
        ("password = hashV2x", "hashV2x"),  # a letter after the version: a random tail
        ("password = ab1V2", "ab1V2"),
        ("password = abc123", "abc123"),
        ("pwd: v2hash", "v2hash"),
        ("password:\n  qzV2\n", "qzV2"),
    ],
)
def test_a_short_password_with_a_version_like_part_is_still_refused(
    text: str, password: str
) -> None:
    assert found(text) == [password]
