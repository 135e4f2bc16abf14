"""The secret check's cost on long encoded lines: a tool result's 1 MB line of a query string
(`password%3D%26` repeated, read decoded as `password=&`) is read in linear time with a small
constant. The library's keyword rules read to each window's end at each name given a value (a
lookahead that is always true), and each was tried in every window, a quote or a `:` in it or
not: 7 s of CPU for the line here (15-20 s on a reviewer's machine)."""

from __future__ import annotations

import random
import re

import pytest

from memidx.secrets import library
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.detect import find_secrets
from memidx.secrets.linear import NEXT_NAME, _query_pair, every_match, next_name  # pyright: ignore[reportPrivateUsage]
from memidx.secrets.windows import secret_word
from tests.cpu_cost import least_ratio

MB = 1 << 20
PROSE = "the password is in the vault, so pass it on and keep the auth token safe "
LINES = [
    'password = "Zq8vT2mW9pL"',
    "password=Zq8vT2mW9pL&token=Xk9mQ2zP7vLq",
    "api_key: Zq8vT2mW9pL",
    "secret := Zq8vT2mW9pL",
    'private_key "Zq8vT2mW9pL";',
    "'Zq8vT2mW9pL' == password",
    'char password[25] = "Zq8vT2mW9pL";',
    'secret.assign("Zq8vT2mW9pL", 15)',
    "password=&password=&" * 20,
    "pwd: `Zq8vT2mW9pL`, db_pass => 'Xk9mQ2zP7vLq'",
]


def _rules() -> dict[re.Pattern[str], int]:
    library.keyword_finder()
    module = library._plugin_modules()["keyword"]  # pyright: ignore[reportPrivateUsage]
    rules: dict[re.Pattern[str], int] = {}
    for name in library.RULE_SETS:
        rules.update(getattr(module, name))
    return rules


@pytest.mark.parametrize("line", LINES)
def test_each_rule_finds_what_the_librarys_own_finds(line: str) -> None:
    """Without its no-op lookahead, and not tried where its marks are missing, each rule
    finds the first value the library's own finds."""
    for rule, group in _rules().items():
        own = rule.search(line)
        ours = list(every_match({rule: group}, line))
        assert ours[:1] == ([own.group(group)] if own else []), (rule.pattern[:60], line)


@pytest.mark.parametrize(
    ("unit", "size"),
    [("password%3D%26", MB), ("password:|", MB // 4)],
)
def test_a_long_line_of_pairs_is_read_in_seconds_of_cpu(unit: str, size: int) -> None:
    """Before, 7 s of CPU for `password%3D%26` (about 37 times as much prose); `password:|`
    read each name's sign-led run to its end before YAML took it for no value (20 s for
    256 KB, quadratic). Now 8 and 4.5 times as much prose, weighed against prose read just
    before it: a bound of 4.5 s of CPU held 1.4-1.7 s, under three times, on a busy machine."""
    find_secrets("password = warm")  # the plugins loaded before timing
    line = unit * (size // len(unit)) + "\n"
    prose = (PROSE * (size // len(PROSE) + 1))[:size] + "\n"
    least, ratios = least_ratio(
        lambda: find_secrets(line), lambda: find_secrets(prose), below=16, pairs=2, runs=1
    )
    assert least < 16, f"{ratios} times as much prose"


def test_each_separator_of_a_line_is_judged_once() -> None:
    """Each value of `token=!a&b=` repeated (cut at a secret-sounding name or a query
    string's next pair) judged every `&b=` of its 200 characters again: 20 names asked per
    pair, 4.6 s of CPU for 1 MB."""
    calls = 0

    def counted(name: str) -> bool:
        nonlocal calls
        calls += 1
        return secret_word(name)

    list(extra_keyword_values("token=!a&b=" * 4_000, counted))

    assert calls <= 3 * 4_000, calls


def _next_name_once(line: str, start: int, end: int) -> int | None:
    """next_name as it read each value before: every separator in it judged again."""
    if start and line[start - 1] in "\"'`":
        return None
    for found in NEXT_NAME.finditer(line, start, end):
        if secret_word(found.group(1)) or _query_pair(line, found.start()):
            return found.start()
    return None


def test_a_separator_judged_once_gives_next_name_the_same_answers() -> None:
    """Values read forwards, backwards and across one another, on lines of names, pairs,
    separators, quotes and spaces: the same answer as judging each value's separators."""
    rng = random.Random(47)
    pieces = ["token", "b", "pw", "&", ",", ";", "=", ":=", "=>", ":", '"', " ", "?", "x.y", "!"]
    for _ in range(300):
        line = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
        start = 0
        for _ in range(20):
            start = rng.randrange(len(line) + 1) if rng.random() < 0.3 else start
            end = rng.randrange(start, len(line) + 1)
            expected = _next_name_once(line, start, end)
            assert next_name(line, start, end, secret_word) == expected, (line, start, end)
            start = min(len(line), start + rng.randrange(4))
