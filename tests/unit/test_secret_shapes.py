"""Values a reviewer found the detector misread by their shape: a password taken for a call, a
path, a YAML tag or anchor, or code's negation was let through; a selector, a package or a
getter's argument was refused. Each is decided by its shape, the other side kept."""

from __future__ import annotations

import pytest

from memidx.secrets.detect import find_secrets


def found(text: str) -> list[str]:
    return [text[f.start : f.end] for f in find_secrets(text, allow=True)]


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("password: Tr0ub4dor(3)", "Tr0ub4dor(3)"),
        ("DB_PASSWORD=Passw0rd(1)", "Passw0rd(1)"),
        ("password = s3cr3tP4ss()", "s3cr3tP4ss()"),
        ("postgres://app:Tr0ub4dor(3)@db/app", "Tr0ub4dor(3)"),
    ],
)
def test_a_password_shaped_as_a_call_is_found(text: str, secret: str) -> None:
    """Digits between a word's letters, given digits or nothing: no function's call."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "token = b64encode(raw)",
        "secret = generate_password(16)",
        "key = sha256(1)",
        "token = secrets.token_hex(32)",
        "password = getpass()",
    ],
)
def test_a_call_stays_a_reference(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('token: "@zq8xq2/abcdef"', "@zq8xq2/abcdef"),
        ("password=!Zq8/abcdef", "!Zq8/abcdef"),
        ("DB_PASSWORD=&Zq8v/T2mW", "&Zq8v/T2mW"),
        ("api_key: '@x7k2m9/zq8vt2'", "@x7k2m9/zq8vt2"),
    ],
)
def test_a_password_holding_a_slash_is_no_path(text: str, secret: str) -> None:
    """`!`, `&`, `=`, `|`, `?` lead no path, and a random name (letters between digits) is
    no package's nor folder's."""
    assert found(text) == [secret]


@pytest.mark.parametrize(
    "text",
    [
        'secret: "@/lib/OAuth2Client"',
        'secret: "@azure/keyvault-secrets@4.7.0"',
        'token: "@aws-sdk/client-s3@3.400.0"',
        'secret: "@noble/ed25519"',
        'token: "@kubernetes/k8s-client"',
        'secret: "#/components/schemas/Token"',
    ],
)
def test_a_package_or_a_path_is_no_password(text: str) -> None:
    assert found(text) == []
