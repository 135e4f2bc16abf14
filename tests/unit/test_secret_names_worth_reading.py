"""memidx's own assignments read only the names worth reading (memidx/secrets/candidates.py):
the values found are those every name read one by one finds, and a line dense with names
that give nothing costs little (`a=1 ` or `x=y&` to 1 MB: 0.3 to 1.0 s of CPU before)."""

from __future__ import annotations

import random
import re

import pytest

from memidx.secrets import candidates, library, windows
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.candidates import EXTRA_ASSIGNED
from memidx.secrets.windows import secret_word
from tests.cpu_cost import least_ratio

NAMES = (
    "a", "x.y", "password", "db.pass", "TOKEN", "loginPw", "auth", "bypass", "k1", "pw",
    "api-key", "secret_key", "cd", "credentials", "passwd2", "oauth", "sort_key",
)  # fmt: skip
VALUES = ["1", "v4lue", "Zq8vT2mW9pLqXk7R", "!Zq8vT2mW9pL", "&lt;", "@a/b", "", "-x", "${X}"]
SIGNS = ["=", ":", ": ", " := ", "=>", '"="', "="]
BETWEEN = [" ", "&", ",", ";", "&", "?", " & ", "\t", "%26", "'"]


def generated(seed: int) -> str:
    chosen = random.Random(seed)
    parts: list[str] = []
    for _ in range(chosen.randint(1, 40)):
        parts += [chosen.choice(NAMES), chosen.choice(SIGNS), chosen.choice(VALUES)]
        parts.append(chosen.choice(BETWEEN))
        if chosen.random() < 0.2:
            parts.append("z" * chosen.randint(1, 240))
    return "".join(parts)


def every_name(line: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The values found reading every name one by one (the reading before)."""
    with monkeypatch.context() as patched:
        patched.setattr(
            candidates.WorthReading,
            "first",
            lambda self, at: candidates.EXTRA_ASSIGNED.search(self.line, at),  # pyright: ignore
        )
        return list(extra_keyword_values(line, secret_word))


@pytest.mark.parametrize("seed", range(400))
def test_the_names_worth_reading_find_what_every_name_finds(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = generated(seed)
    assert list(extra_keyword_values(line, secret_word)) == every_name(line, monkeypatch), line


def test_a_line_dense_with_names_that_give_nothing_is_read_fast() -> None:
    """262,144 names given a value in 1 MB, one secret-sounding: each was read in Python."""
    for line in ("password=x " + "a=1 " * (1 << 18), "password=x " + "x=y&" * (1 << 18)):
        assert list(extra_keyword_values(line, secret_word)) == []
        # against the names found in C, the plain work of the same line (not seconds: a slower
        # machine or a busy neighbour slows both): 1.2-1.5x, each name read in Python 21x
        least, ratios = least_ratio(
            lambda line=line: list(extra_keyword_values(line, secret_word)),
            lambda line=line: EXTRA_ASSIGNED.findall(line),
            below=6,
        )
        assert least < 6, f"{ratios}x the names found in C"


LIBRARY_PIECES = (
    "api_key", "APIKEY", "database_pass", "db", "pass", "password", "x", "_", "key", "secret",
    "pwd", "Contrasena", "keypass", "key_pass", "=", " ", "-", "1",
)  # fmt: skip


@pytest.mark.parametrize("seed", range(300))
def test_the_library_names_around_stems_are_those_of_the_whole_line(seed: int) -> None:
    chosen = random.Random(seed)
    line = "".join(chosen.choice(LIBRARY_PIECES) for _ in range(chosen.randint(1, 60)))
    words = windows._library_words()  # pyright: ignore[reportPrivateUsage]
    around = windows._library_word_matches(line)  # pyright: ignore[reportPrivateUsage]
    assert [m.span() for m in around] == [m.span() for m in words.finditer(line)]


def test_the_library_names_of_a_line_dense_with_other_names_are_found_fast() -> None:
    """`a=1 ` to 1 MB: the library's names tried at each character took 0.14 s of CPU."""
    line = "password=x " + "a=1 " * (1 << 18)
    assert windows.library_names(line) == [(0, 0)]
    # against the names found in C (above): 0.1x, the names tried at each character 2.6x
    least, ratios = least_ratio(
        lambda: windows.library_names(line), lambda: EXTRA_ASSIGNED.findall(line), below=0.6
    )
    assert least < 0.6, f"{ratios}x the names found in C"


def test_the_screen_looks_for_a_needed_literal_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """1 MB of runs without `eyJ`, `T3BlbkFJ`, `_authToken=` or `-us`: each kind's linear
    pattern was tried at each character (0.02 to 0.03 s of CPU each). Counted, not timed: a
    bound of 0.08 s of CPU held the other kinds' 0.07 s on a busy machine."""
    text = "\n".join(["ab=cd,ef=gh,ij=kl"] * (1 << 16))
    tried: list[str] = []
    screen = library._screen()  # pyright: ignore[reportPrivateUsage]
    counted = tuple((_Tried(pattern, needed, tried), needed) for pattern, needed in screen)
    monkeypatch.setattr(library, "_screen", lambda: counted)

    assert not library.may_find(text)
    assert tried == [""] * sum(needed == "" for _, needed in screen), (
        tried
    )  # none whose literal is missing


class _Tried:
    """A screen's pattern that notes the literal it needs each time it is searched."""

    def __init__(self, pattern: re.Pattern[str], needed: str, tried: list[str]) -> None:
        self.pattern, self.needed, self.tried = pattern, needed, tried

    def search(self, text: str) -> re.Match[str] | None:
        self.tried.append(self.needed)
        return self.pattern.search(text)


SPARSE_NAMES = (
    "password", "db.pass", "GITHUB_TOKEN", "loginPw", "auth", "basicAuth", "x-api-key",
    "credentials", "secret", "bearer", "contrasena", "Subscription-Key", "pwd",
)  # fmt: skip


@pytest.mark.parametrize("name", SPARSE_NAMES)
@pytest.mark.parametrize("gap", [0, 150, 190, 199, 200, 214, 220])
def test_a_name_in_a_line_sparse_with_stems_is_read_as_every_name_reads_it(
    name: str, gap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line with few stems among many names is read around its stems only (not name by
    name, as a dense one is): each secret-sounding word's stem must be looked for, and a query
    pair up to 200 characters after the name that opened the pairs is read."""
    filler = "a=1 " * 40
    line = f"{filler}{name}=ab{'c' * gap}&cd=Zq8vT2mW9pLq&ef=!Xr7uQ1nV8oKp {filler}"
    line += f"{name}: !Zq8vT2mW9pLr {filler}"
    assert not candidates.WorthReading(line).every
    found = list(extra_keyword_values(line, secret_word))
    assert found == every_name(line, monkeypatch), line
