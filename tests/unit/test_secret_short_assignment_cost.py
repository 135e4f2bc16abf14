"""The secret check's cost on text full of `password=1`-shaped lines (1.8 s a MB on a quiet
machine, ~10 times 1 MB of real notes): a line that is one name given a plain value of 7
characters or fewer is read for a short password alone (keywords.SHORT_ASSIGNMENT), each
distinct line once; and the library's keyword rules a line may match are chosen once for each
set of marks a line holds (linear._tried), not by each rule's marks looked for in each line.
The findings are the same. Figures: `make bench ONLY=secrets` (speed, `password=1` lines)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator

import pytest

from memidx.secrets import keywords, library, linear
from memidx.secrets.detect import find_secrets
from memidx.secrets.patterns import Finding

PIECES = [
    "password", "pw", "pass2", "db.pwd", "token", "auth", "api_key", "secret", "PASSWORD",
    "=", ":", ":=", "=>", " ", "\t", "1", "42", "1234", "123456789", "abc", "ab12", "hunter2",
    "abcdefgh", "Zq8vT2mW9pLqXk", "-", ".", "_", "|", "{", "[", '"', "'", "%3D", "<", "\r", "#",
]  # fmt: skip


def _lines(seed: int, count: int) -> Iterator[str]:
    rng = random.Random(seed)
    for _ in range(count):
        name = rng.choice(PIECES[:9]) + rng.choice(["", "_1", "Confirm", "x"])
        sign, value = (
            rng.choice(PIECES[9:13]),
            "".join(rng.choices(PIECES[13:], k=rng.randint(1, 3))),
        )
        yield rng.choice(["", "  ", "- "]) + name + rng.choice(["", " "]) + sign + value


def _found(text: str) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.kind) for f in find_secrets(text, allow=True)]


def test_reading_short_assignments_alone_changes_no_finding(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = list(_lines(13, 4_000))
    texts = [*lines, "\n".join(lines[:400]), "password:\n  Zq8vT2mW9pLqXk\npassword=1"]
    fast = [_found(text) for text in texts]
    monkeypatch.setattr(keywords, "SHORT_ASSIGNMENT", re.compile(r"(?!)"))
    assert [_found(text) for text in texts] == fast
    assert sum(map(bool, fast)) > 100  # the pieces make secrets, short ones too
    assert _found("password=1234")  # a short password is still one


@pytest.mark.parametrize(
    "shape",
    ["password={n}", "- password: {n}", "  - db_pw: {n}"],  # a YAML list's items too
)
def test_a_short_assignments_line_is_not_read_by_every_pass(
    monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    read: list[str] = []
    line_values = keywords._line_values  # pyright: ignore[reportPrivateUsage]

    def counted(line: str, judge: Callable[[str], bool]) -> Iterable[Finding]:
        read.append(line)
        return line_values(line, judge)

    monkeypatch.setattr(keywords, "_line_values", counted)
    text = "\n".join(shape.format(n=n % 1000) for n in range(3_000))
    # a quoted value is read by every pass (a plain one alone: one_name_lines.PLAIN_ASSIGNMENT)
    found = find_secrets(text + '\npassword="Zq8vT2mW9pLqXk"\ndb_pw: ab12', allow=True)
    assert read == ['password="Zq8vT2mW9pLqXk"']
    assert len(found) == 2  # the random value, and `ab12` a short password


def test_the_rules_a_line_may_match_are_chosen_once_for_its_marks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[re.Pattern[str]] = []
    keyword_rule = linear._keyword_rule  # pyright: ignore[reportPrivateUsage]

    def counted(rule: re.Pattern[str]) -> tuple[re.Pattern[str], tuple[tuple[str, ...], ...]]:
        asked.append(rule)
        return keyword_rule(rule)

    monkeypatch.setattr(linear, "_keyword_rule", counted)
    find = library.keyword_finder()
    values = [list(find(f"password=word{n}xyz")) for n in range(500)]
    assert values[7] == ["word7xyz"]
    assert len(asked) <= 16  # once for each rule at most: not 500 lines times each rule
