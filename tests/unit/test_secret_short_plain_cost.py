"""The secret check's cost on text full of `pw=1`-shaped assignments (0.86 s a MB on a quiet
machine, 2.5 s at load 20): a run of names each given a short plain value is passed over in one
reading (assignments.SHORT_PLAIN), and a line holding none of the library's names is not given
to its keyword rules, each of which holds one. The findings are the same."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from memidx.secrets import assignments, keywords, library
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.candidates import WorthReading
from memidx.secrets.detect import find_secrets
from memidx.secrets.windows import library_names, secret_word

PIECES = [
    "pw", "pw1", "pass", "password", "token", "auth", "api_key", "secret", "db.pw", "a", "x-y",
    "=", ":", ":=", "&", ",", ";", '"', "'", "!", "-", " ", " ", "\t", "1", "42", "abc",
    "hunter2", "v4lue", "Zq8vT2mW9pLqXk", "TOKEN", "_", "é", "@", "#",
]  # fmt: skip


def _lines(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        yield "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 24)))


def _found(text: str) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.kind) for f in find_secrets(text, allow=True)]


def test_passing_over_short_plain_values_changes_no_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [*_lines(52, 3_000), "pw=1 " * 40 + "pw=Zq8vT2mW9pLqXk", "pw1=hunter2 pw=1 token=x"]
    fast = [_found(line) for line in lines]
    monkeypatch.setattr(assignments, "SHORT_PLAIN", re.compile(r"(?!)"))
    assert [_found(line) for line in lines] == fast
    assert any(fast)  # the pieces make secrets too


def test_no_library_rule_matches_a_line_without_its_names() -> None:
    find = library.keyword_finder()
    for line in _lines(12, 3_000):
        if not library_names(line):
            assert list(find(line)) == [], line


class _Counted(WorthReading):
    asked = 0

    def first(self, at: int) -> re.Match[str] | None:
        _Counted.asked += 1
        return super().first(at)


def test_a_line_of_short_plain_assignments_is_read_in_one_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`pw=1 ` 16 times a line: each name was asked for and read, one Python step each."""
    monkeypatch.setattr(assignments, "WorthReading", _Counted)
    _Counted.asked = 0
    assert list(extra_keyword_values("pw=1 " * 16 + "pw=Zq8vT2mW9pLqXk", secret_word)) == [
        "Zq8vT2mW9pLqXk"
    ]
    assert _Counted.asked <= 3


def test_a_line_without_the_librarys_names_is_not_given_to_its_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    find = library.keyword_finder()

    def counted(window: str) -> Iterator[str]:
        read.append(window)
        return find(window)

    monkeypatch.setattr(library, "keyword_finder", lambda: counted)
    kinds: dict[str, str] = {}
    assert list(keywords._library_values("pw=1 " * 16, lambda _: True, kinds)) == []  # pyright: ignore[reportPrivateUsage]
    assert read == []
    list(keywords._library_values("pwd=1 " * 16, lambda _: True, kinds))  # pyright: ignore[reportPrivateUsage]
    assert read
