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
