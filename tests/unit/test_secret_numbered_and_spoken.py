"""Secrets the check let through: a password's short name numbered (`pw1=`), a key's label in a
sentence (`API key: v4lue`), a passphrase given to `auth` alone (read as a method's name) and
a passphrase of words as a user's password in a pair (read as a name: no digit, no sign). Each
beside what a careful engineer writes in a note and must still pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # a short name numbered, as `password2` is read
        ("pw1=Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ("db_pw2=Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ("PASS2: Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ("loginPw1=Zq8vT2mW9pLqXk", "Zq8vT2mW9pLqXk"),
        ("pw1=hunter2", "hunter2"),
        # a key's label in a sentence
        ("API key: Zq8vT2mW9pLqXk7RtY2", "Zq8vT2mW9pLqXk7RtY2"),
        ("The API key: Zq8vT2mW9pLqXk7RtY2 was rotated.", "Zq8vT2mW9pLqXk7RtY2"),
        ("Secret key: Zq8vT2mW9pLqXk7RtY2", "Zq8vT2mW9pLqXk7RtY2"),
        ("- access key: Zq8vT2mW9pLqXk7RtY2", "Zq8vT2mW9pLqXk7RtY2"),
        ("API key: `Zq8vT2mW9pLqXk7RtY2`", "Zq8vT2mW9pLqXk7RtY2"),
        ("API key: d41d8cd98f00b204e9800998ecf8427e", "d41d8cd98f00b204e9800998ecf8427e"),
        ("API key:\n    Zq8vT2mW9pLqXk7RtY2", "Zq8vT2mW9pLqXk7RtY2"),
        # a passphrase given to `auth` alone
        ("auth=Mango-Tiger-17", "Mango-Tiger-17"),
        ("auth: Mango-Tiger-17", "Mango-Tiger-17"),
        ('auth=("Mango-Tiger-17")', "Mango-Tiger-17"),
        ('requests.get(url, auth="Mango-Tiger-17")', "Mango-Tiger-17"),
        # a passphrase of words as a user's password, or given to a person's password
        ('auth=("alice", "Correct-Horse-Battery-Staple")', "Correct-Horse-Battery-Staple"),
        ('HTTPBasicAuth("alice", "Correct-Horse-Battery-Staple")', "Correct-Horse-Battery-Staple"),
        ('basic_auth=["alice", "Correct-Horse-Battery-Staple"]', "Correct-Horse-Battery-Staple"),
        ('setPassword("Correct-Horse-Battery-Staple")', "Correct-Horse-Battery-Staple"),
        ('password=["Correct-Horse-Battery-Staple"]', "Correct-Horse-Battery-Staple"),
    ],
)
def test_a_secret_is_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        # a number, a count, another word's numbered name
        "pw1=1",
        "pass1: 500ms",
        "bypass2=Zq8vT2mW9pLqXk",
        "oauth2=Zq8vT2mW9pLqXk",
        "auth0_domain: example",
        # a test's name given to a numbered `pass`, as to `pass` (is_test_verdict)
        "pass1: test_login_flow2",
        "PASS1: tests/test_login.py",
        # a key's label with no secret after it
        "API key: see the vault",
        "API key: required",
        "API key: ${API_KEY}",
        "Secret key: <your-secret-key>",
        "Private key: ~/.ssh/id_ed25519",
        "The API key is rotated every 90 days: see the runbook.",
        "Primary key: user_id",
        # a sentence's label followed by words, not a key (a random value only is one)
        "AWS access key: 20-character uppercase ID; secret key: 40-character base64 string.",
        "API key: read-only scope",
        "Secret key: base64-encoded",
        "Client key: client-key.pem, mounted at /etc/ssl.",
        "Pass the API key: X-Api-Key header, not a query string.",
        "The access key: AccessKeyId in the STS response.",
        "Private key: PKCS8-encoded PEM.",
        # a method's or a grant's name given to `auth`, a header's name in a list
        "auth: scram-sha-256",
        "auth=AWS4-HMAC-SHA256",
        'auth=["AWS4-HMAC-SHA256"]',
        "auth: hmac-sha256",
        "auth=OAuth2-PKCE",
        "auth: Client-Credentials",
        "auth: Resource-Owner-Password",
        'credentials=["Strict-Transport-Security"]',
        'secrets=["Cross-Origin-Opener-Policy"]',
        'auth=("alice", "password")',
        # two words in a pair's password place: a mode or a note, no passphrase
        'auth=("bob", "read-only")',
        'basic_auth=["user", "from-env"]',
    ],
)
def test_technical_prose_passes(text: str) -> None:
    assert found(text) == []
