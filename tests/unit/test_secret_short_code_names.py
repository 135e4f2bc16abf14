"""A short value given to a person's password that is a name of code with its version
(`password = hashV2`, `pwd: saltV3`) reads as a name, as numbered_names reads a longer one
(`passwordHashV2`): it was refused by the short-password rule (letters and digits, 4 to 7
characters). A word of code and a version after it, from a small letter, and only so: a
short password with digits anywhere else, or letters that are no word before or after the
version, is still refused, and so is a word code holds in no password's place (`adminV1`,
`rootV1`: a person's password with a version's look, let through as a name)."""

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
        "password = tokenV3",
        "pwd: nonceV2",
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
        # a word that names nothing code holds in a password's place: a person's password
        # with a version's look (each was let through as a name of code)
        ("password = adminV1", "adminV1"),
        ("password: rootV1", "rootV1"),
        ("DB_PASSWORD=toor_v2", "toor_v2"),
        ("password = loveV1", "loveV1"),
        ("password = tigerV9", "tigerV9"),
        ("password = passV1", "passV1"),
        ("password = atV7", "atV7"),  # two letters, a word only after a name's version
        ("password = dbV2", "dbV2"),
        ("password:\n  adminV1\n", "adminV1"),
    ],
)
def test_a_short_password_with_a_version_like_part_is_still_refused(
    text: str, password: str
) -> None:
    assert found(text) == [password]
