"""Secrets the review of the short-password rule found let through (a short password in an
HTTP client's pair, after Go's `:=`, PHP's `=>`, `password2:`, `password_confirm:`; a value
after a bold `**API key:**`; a literal written right after a template's reference with spaces
in it), and method names given to `auth` in a list or a pair, refused where `auth: <method>`
was not."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('auth=("admin", "hunter2")', "hunter2"),
        ('requests.get(url, auth=("admin", "hunter2"))', "hunter2"),
        ('HTTPBasicAuth("admin", "abc123")', "abc123"),
        ('basic_auth=("bob", "12345")', "12345"),
        ('pw := "abc123"', "abc123"),
        ("password := hunter2", "hunter2"),
        ("'password' => 'abc123'", "abc123"),
        ("password2: hunter2", "hunter2"),
        ("db_password2=abc123", "abc123"),
        ("password_confirm: hunter2", "hunter2"),
        ("password_confirmation: abc123", "abc123"),
        ("passwordAgain: abc123", "abc123"),
        ("PASSWORD_CONFIRM=abc123", "abc123"),
        ("**API key:** Zq8vT2mW9pLqXk7R", "Zq8vT2mW9pLqXk7R"),
        ("- **API key**: Zq8vT2mW9pLqXk7R", "Zq8vT2mW9pLqXk7R"),
        ("**Secret key:** Zq8vT2mW9pLqXk7R", "Zq8vT2mW9pLqXk7R"),
        ("DB_PASSWORD: ${{ format('{0}', github.ref) }}Zq8vT2mW9pLq", "Zq8vT2mW9pLq"),
        ("DB_PASSWORD: ${{ secrets.X }}Zq8vT2mW9pLq", "Zq8vT2mW9pLq"),
        ('password: "${{ secrets.X }}Zq8vT2mW9pLq"', "Zq8vT2mW9pLq"),
        ('auth=("bob", "Zq8vT2mW9pLq")', "Zq8vT2mW9pLq"),
        ("auth: [Zq8vT2mW9pLqXk7R]", "Zq8vT2mW9pLqXk7R"),
        # a password of words joined by `-` in a pair's place is no method's name
        ('auth=("admin", "Mango-Tiger-17")', "Mango-Tiger-17"),
        ('requests.get(url, auth=("admin", "Summer-2024"))', "Summer-2024"),
        ('HTTPBasicAuth("admin", "Mango-Tiger-17")', "Mango-Tiger-17"),
        ('auth=("deploy", "Kx9-Vq2-Lm7")', "Kx9-Vq2-Lm7"),
        ('auth=("bob", "OAuth2-PKCE")', "OAuth2-PKCE"),
        ('auth=("deploy-bot", "Mango-Tiger-17")', "Mango-Tiger-17"),
        # nor in a list after a user's name
        ("basic_auth=['admin', 'Mango-Tiger-17']", "Mango-Tiger-17"),
        ("es = Elasticsearch(hosts, http_auth=['elastic', 'Blue-Sky-42'])", "Blue-Sky-42"),
        ('http_auth=["deploy-bot", "Mango-Tiger-17"]', "Mango-Tiger-17"),
        ("basic_auth: [admin, Mango-Tiger-17]", "Mango-Tiger-17"),
        ("basic_auth:\n  - admin\n  - Mango-Tiger-17\n", "Mango-Tiger-17"),
    ],
)
def test_a_secret_the_review_found_let_through_is_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'auth=("admin", "")',
        'auth=("admin", password)',
        'auth=("admin", "xxxx")',
        'auth=("admin", "utf8")',
        'auth=("admin", "sha256")',
        "pass2: step1",
        "password_confirm: string",
        "**API key:** `<your-key-here>`",
        "**Key:** Zq8vT2mW9pLqXk7R",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        'password: "${{ secrets.X }}-prod"',
        'auth=["AWS4-HMAC-SHA256"]',
        "auth: [AWS4-HMAC-SHA256, OAuth2-PKCE]",
        'auth = ("us-east-1", "AWS4-HMAC-SHA256")',
        "auth: [scram-sha-256, md5]",
        "auth:\n  - AWS4-HMAC-SHA256\n",
    ],
)
def test_what_is_no_password_still_passes(text: str) -> None:
    assert found(text) == []
