"""An API key an HTTP client gives as the user, its password empty or one character
(`auth=("<key>", "")`, Freshdesk's `"X"`): read as a user's name and let through (wt-sec8
judged the password of such a pair only)."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets

KEY = "a1B2c3D4e5F6g7H8i9J0"


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    "text",
    [
        f'r = requests.get(url, auth=("{KEY}", ""))',
        f'auth = HTTPBasicAuth("{KEY}", "X")',
        f"auth=('{KEY}', 'x')",
        f'setCredentials("{KEY}", "")',
    ],
)
def test_a_key_given_as_the_user_is_refused(text: str) -> None:
    assert found(text) == [KEY]


@pytest.mark.parametrize(
    "text",
    [
        'auth=("admin@example.com", "")',
        'auth=("ci_user_42", "")',
        'auth=("deploy-bot-production-01", "")',
        'auth=("alice", "X")',
        f'auth=("{KEY}", password)',
    ],
)
def test_a_users_name_without_a_password_passes(text: str) -> None:
    assert found(text) == []
