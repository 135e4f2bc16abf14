"""The secret check's cost on lines that each give a password's name a plain value, all
different (`password=word<i>xyz`): each was read by every pass (the library's keyword rules
over its windows, memidx's names, templates, short passwords), 11 times the TIL notes' prose a
byte. Such a line (keywords.PLAIN_ASSIGNMENT) holds that value or nothing, and is judged alone;
the findings are the same."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterator

import pytest

from memidx.secrets import keywords
from memidx.secrets.detect import find_secrets
from tests.cpu_cost import least_ratio

NAMES = [
    "password", "PASSWORD", "db_password", "DB_PASSWORD", "passwd", "secret", "client_secret",
    "token", "GITHUB_TOKEN", "api_key", "apikey", "API_KEY", "my_api_key", "Password",
    "pass", "pw", "auth", "pwd", "password_input", "secret_name", "token_type",
]  # fmt: skip
VALUES = [
    "word1xyz", "changeme1", "xxxxxxxx", "example123", "password123", "12345678", "true",
    "Passwort", "Kennwort12", "myAPIKeyForGCP", "Welcome2024", "letmein1", "TestingTest",
    "abcdefgh", "sunshine", "Zq8vT2mW9pLqXk", "a" * 64, "a" * 65, "test_login_flow2",
]  # fmt: skip


def _value(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(VALUES)
    alphabet = rng.choice([string.ascii_lowercase, string.ascii_letters + string.digits])
    return "".join(rng.choices(alphabet, k=rng.randint(6, 70)))


def _lines(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        lead = rng.choice(["", "  ", "- ", "\t"])
        sign = rng.choice(["=", ": ", " = ", ":=", " => ", ":"])
        yield lead + rng.choice(NAMES) + sign + _value(rng) + rng.choice(["", " ", "\r"])


def _found(text: str) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.kind) for f in find_secrets(text, allow=True)]


def test_reading_a_plain_assignment_alone_changes_no_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = list(_lines(56, 3_000))
    texts = [
        *lines,
        "\n".join(lines[:300]),
        "password: abcdefgh12\n  Zq8vT2mW9pLqXk",  # a YAML value the line below continues
        "db_password_secret=password",  # the value inside the name too: every place
        "password=Zq8vT2mW9pLqXk\npassword=Zq8vT2mW9pLqXk",
    ]
    fast = [_found(text) for text in texts]
    monkeypatch.setattr(keywords, "PLAIN_ASSIGNMENT", re.compile(r"(?!)"))
    assert [_found(text) for text in texts] == fast
    assert sum(map(bool, fast)) > 500  # the values make secrets, and names let some through


def test_lines_of_plain_assignments_cost_near_prose() -> None:
    """190 KB of `password=word<i>xyz` lines against as much plain prose (no secret's word in
    it): 46 to 48 times its CPU time before, 19 then (against the TIL notes: 11, then 4); 28
    since the prose got a quarter cheaper (look-aheads before the whole-text expressions),
    the lines' own cost the same (0.34 s)."""
    count = 10_000
    lines = "".join(f"password=word{i}xyz\n" for i in range(count))
    prose = "The deploy job runs the tests, then copies the files to the staging server.\n"
    prose = (prose * (len(lines) // len(prose) + 1))[: len(lines)]
    find_secrets("warm = 1\npassword=Zq8vT2mW9pLqXk")
    least, ratios = least_ratio(lambda: find_secrets(lines), lambda: find_secrets(prose), below=40)
    assert least < 40, f"{ratios} times the CPU time of as much prose"
