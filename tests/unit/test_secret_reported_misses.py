"""Secrets the last review found let through: a URL's password holding `%s`, a query's
last pair in an encoded query, strings given inside a call or a tuple, a random piece a
format joins to a reference, and a short common password after `password:`."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("DATABASE_URL=postgres://app:wibw891LIW%scQH@db", "wibw891LIW%scQH"),
        ("postgres://app:wibw891LIW%dcQH@db:5432/app", "wibw891LIW%dcQH"),
        ("machine api.internal\n  login deploy\n  password qzmb934NCE%sUBe", "qzmb934NCE%sUBe"),
    ],
)
def test_a_percent_s_inside_a_password_is_no_format_reference(text: str, secret: str) -> None:
    """`%s` before a letter is a password's, not a format's reference (the labeled set's one
    miss: a `.netrc` password and a URL's, let through)."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "printf('postgres://%s:%s@db', user, pw)",
        "url = 'postgres://app:%s@db' % password",
        "DSN = 'postgres://%(user)s:%(password)s@db'",
    ],
)
def test_a_formats_reference_is_still_no_password(text: str) -> None:
    assert found(text) == []
