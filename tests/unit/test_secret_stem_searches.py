"""The searches the secret detector makes only around stems or first letters (for speed on long
lines of code) answer as the whole-line searches they stand for, on generated lines dense with
names, signs, quotes and letters that fold to ASCII ones (`\u212a` is `k`, `\u017f` is `s`)."""

from __future__ import annotations

import random
import re

import pytest

from memidx.secrets import library, linear, windows

PIECES = [
    *"apikeyPASSWORDsecretdbpwdtokenAuthbearerBasic_-.:=\"'`; ()[]!@\t",
    *("\u212a", "\u017f", "\u0130", "\u00f1", "contrase\u00f1a", "API_KEY", "passwd", "\u212aey"),
    *("db_pass", "loginPw", "pw_confirm", "x-api-key", "GPG_PASSPHRASE", "bearer ", "basic "),
    *("secret", "pwd", "Private_Key", "==", "!=", '";', "';"),
]


def _lines(seed: int, count: int) -> list[str]:
    """Short lines and lines longer than LONG_LINE (a short one is searched whole)."""
    rng = random.Random(seed)
    sizes = [rng.choice((rng.randint(1, 30), rng.randint(100, 200))) for _ in range(count)]
    ascii_pieces = [piece for piece in PIECES if piece.isascii()]  # a long line all ASCII too
    pools = [rng.choice((PIECES, ascii_pieces)) for _ in range(count)]
    return [
        "".join(rng.choice(pool) for _ in range(size))
        for size, pool in zip(sizes, pools, strict=True)
    ]


@pytest.mark.parametrize("seed", range(4))
def test_a_secret_name_is_found_around_stems_as_in_the_whole_line(seed: int) -> None:
    secret_run = windows._secret_run()  # pyright: ignore[reportPrivateUsage]
    for line in _lines(seed, 5_000):
        whole = windows.SPOKEN.search(line) is not None or secret_run.search(line) is not None
        assert windows.gives_a_secret_name(line) == whole, line


@pytest.mark.parametrize("seed", range(4))
def test_a_library_name_is_found_around_stems_as_in_the_whole_line(seed: int) -> None:
    words = windows._library_words()  # pyright: ignore[reportPrivateUsage]
    for line in _lines(seed, 5_000):
        whole = any(mark in line for mark in windows.UNASSIGNED_MARKS) and bool(words.search(line))
        assert windows.unassigned_name(line) == whole, line


def test_the_keyword_rules_match_as_the_librarys_own() -> None:
    library.keyword_finder()
    module = library._plugin_modules()["keyword"]  # pyright: ignore[reportPrivateUsage]
    rules: dict[re.Pattern[str], int] = {}
    for name in library.RULE_SETS:
        rules.update(getattr(module, name))
    pairs = [
        (re.compile(rule.pattern.replace(linear.NO_OP, ""), rule.flags), tried)
        for rule in rules
        for tried in [linear._keyword_rule(rule)[0]]  # pyright: ignore[reportPrivateUsage]
    ]
    assert any(own.pattern != tried.pattern for own, tried in pairs)  # a look-ahead was added
    for line in _lines(9, 5_000):
        for own, tried in pairs:
            assert [m.span() for m in tried.finditer(line)] == [
                m.span() for m in own.finditer(line)
            ], (line, own.pattern)


NAMES = ["api_key", "dbkey", "database_pass", "key_pass", "passwd", "pwd", "SECRET", "contrasena"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("at", [0, 200, -1])
def test_each_library_name_is_found_anywhere_in_a_long_line(name: str, at: int) -> None:
    filler = "x == y; " * 50
    at = len(filler) if at == -1 else at
    line = filler[:at] + name + filler[at:]
    assert windows.unassigned_name(line) and not windows.unassigned_name(filler)
    given = filler[:at] + name + "=v " + filler[at:]
    assert windows.gives_a_secret_name(given) and not windows.gives_a_secret_name(filler)
