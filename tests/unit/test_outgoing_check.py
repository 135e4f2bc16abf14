"""The messages share is about to push, read as `git log -z --format=%h%n%B` gives them: each
commit with a secret its line's allow marker or the baseline does not allow is named."""

from __future__ import annotations

import pytest

from memidx.githooks.outgoing_check import message_secrets
from memidx.hashes import sha256_hex

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"  # memidx: allow-secret


@pytest.mark.parametrize(
    ("log", "allowed", "found"),
    [
        ("", set[str](), []),
        ("abc1234\nDeploy the docs\n", set[str](), []),
        (
            f"abc1234\nDeploy\n\n{TOKEN}\n\0def5678\nclean\n",
            set[str](),
            [("abc1234", "github-token")],
        ),
        (f"abc1234\nDeploy {TOKEN} memidx: allow-secret\n", set[str](), []),  # its line's marker
        (f"abc1234\nDeploy {TOKEN}\n", {sha256_hex(TOKEN.encode())}, []),  # in the baseline
    ],
)
def test_message_secrets_names_each_commit_and_kind_not_allowed(
    log: str, allowed: set[str], found: list[tuple[str, str]]
) -> None:
    assert list(message_secrets(log, allowed)) == found
