"""A person's mention is no common password with a sign: the first names among the commonest
passwords (`jennifer`, `anthony`, `michael`) are people's handles in a team's notes."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text", ["token_owner: @jennifer", "secrets_team: @anthony", "password_reviewer: @jessica"]
)
def test_a_mention_given_to_a_secret_sounding_name_commits(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password = !letmein", "!letmein"),
        ("password: jennifer1", "jennifer1"),
        ("password: @jennifer1", "@jennifer1"),
        ("savePassword = !letmein", "!letmein"),
    ],
)
def test_a_common_password_with_a_sign_or_a_digit_is_still_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]
