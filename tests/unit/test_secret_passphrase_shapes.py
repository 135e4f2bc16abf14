"""Passphrases the check let through: words alone given to `auth` (`Correct-Horse-Battery-
Staple`, in small letters too: read as a method's name), a key's label in a sentence with `is`
(`API key is v4lue`), and a random string of letters in both cases without a digit (`api_key:
bPxRfiCYzqWmTLKeyQxv`: read as a variable's name for the `Key` its case cuts out). And a
directory's name and its version given to `auth` (`Active-Directory-2019`), refused as a
passphrase of two words and a number. Each beside what a note writes and must still pass."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("auth: Correct-Horse-Battery-Staple", "Correct-Horse-Battery-Staple"),
        ("auth=Correct-Horse-Battery-Staple", "Correct-Horse-Battery-Staple"),
        ("auth: correct-horse-battery-staple", "correct-horse-battery-staple"),
        ("AUTH=tundra-pickle-orbit-lantern-fjord", "tundra-pickle-orbit-lantern-fjord"),
        ("The API key is Zq8vT2mW9pLqXk7RtY2", "Zq8vT2mW9pLqXk7RtY2"),
        ("Your API key is bPxRfiCYzqWmTLKeyQxv (rotated monthly)", "bPxRfiCYzqWmTLKeyQxv"),
        ("api_key: bPxRfiCYzqWmTLKeyQxv", "bPxRfiCYzqWmTLKeyQxv"),
        ("API_KEY=bPxRfiCYzqWmTLKeyQxv", "bPxRfiCYzqWmTLKeyQxv"),
        ('{"token": "qZxWvTrPmKeyLbNcDf"}', "qZxWvTrPmKeyLbNcDf"),
        # capitalised words and a number: only a directory's or a server's name is a name
        ("auth: Password-Token-2024", "Password-Token-2024"),
        ("auth=Service-Account-2024", "Service-Account-2024"),
        ("auth: Active-Directory-Password-2019", "Active-Directory-Password-2019"),
        ("<auth>Okta-Token-2024</auth>", "Okta-Token-2024"),
        ("auth:\n  - Okta-Token-2024", "Okta-Token-2024"),
    ],
)
def test_a_secret_is_refused(text: str, secret: str) -> None:
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "auth: Active-Directory-2019",
        "auth=Windows-Server-2022",
        "auth: Active-Directory-Federation-Services-2019",
        "auth: Resource-Owner-Password-Credentials",
        "auth: client-credentials",
        "auth: Client-Credentials",
        "auth: Resource-Owner-Password",
        "auth: scram-sha-256",
        "The API key is rotated every 90 days: see the runbook.",
        "The API key is read-only.",
        "Your API key is shown once, under Settings.",
        "api_key: apiKeyFromSettings",
        "token: authTokenValue",
        "password: userPasswordHash",
        "secret: clientSecretValue",
    ],
)
def test_technical_prose_passes(text: str) -> None:
    assert found(text) == []
