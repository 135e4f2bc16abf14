"""The secret check's cost on a pathological single line of 1 MB or more: each line is read
back to its start once, not once per stem in it, and each repeated name and value is judged
once (`password=&`, `token=!a&b=` repeated: 2.5 s of CPU for 1 MB each before)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator

import pytest

from memidx.secrets import keywords, library, linear, windows
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.linear import NEXT_NAME
from memidx.secrets.patterns import Finding
from memidx.secrets.signs import _no_password as no_password  # pyright: ignore[reportPrivateUsage]
from memidx.secrets.signs import _personal as personal  # pyright: ignore[reportPrivateUsage]
from memidx.secrets.windows import _named, secret_word  # pyright: ignore[reportPrivateUsage]

MB = 1 << 20


def test_a_long_lines_stems_find_it_once() -> None:
    """Each stem of a 4 MB line read back to the line's start: 4 million characters read
    420,000 times (1.5 s of CPU for 1 MB, quadratic); now each line once per stem."""
    text = "password=&" * (4 * MB // 10) + "\nplain\ntoken: x\n"
    start = time.process_time()
    lines = keywords._candidate_lines(text)  # pyright: ignore[reportPrivateUsage]
    spent = time.process_time() - start

    assert lines == [(0, 4 * MB // 10 * 10), (len(text) - 9, len(text) - 1)]
    assert spent < 2.0, f"{spent:.1f} s of CPU"


def test_a_long_runs_repeated_values_and_names_are_judged_once() -> None:
    for judged in (no_password, personal, _named):
        judged.cache_clear()

    list(extra_keyword_values("token=!a&b=" * 20_000, secret_word))
    list(extra_keyword_values("password=&" * 20_000, secret_word))

    assert no_password.cache_info().misses < 50
    assert personal.cache_info().misses < 10
    assert _named.cache_info().misses < 10


def test_a_long_lines_repeated_windows_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`password=&` to 1 MB gives 8,077 windows of one text: the library's rules read it once
    (0.5 s of the 1.7 s of CPU the line cost)."""
    find = library.keyword_finder()
    texts: list[str] = []

    def counted(window: str) -> Iterator[str]:
        texts.append(window)
        return find(window)

    monkeypatch.setattr(library, "keyword_finder", lambda: counted)
    line = "password=&" * (MB // 10)

    assert list(keywords._library_values(line, lambda _: False, {})) == []  # pyright: ignore[reportPrivateUsage]
    assert len(texts) == len(set(texts)) < 32  # its ends' windows differ


def test_a_line_of_encoded_pairs_alone_is_read_decoded_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`password%3D%26` to 1 MB was read as it stands, where no name is given a value, and
    decoded: now decoded alone; a line with a plain pair too is read both ways."""
    read: list[str] = []
    line_values = keywords._line_values  # pyright: ignore[reportPrivateUsage]

    def counted(line: str, judge: Callable[[str], bool]) -> Iterable[Finding]:
        read.append(line[:20])
        return line_values(line, judge)

    monkeypatch.setattr(keywords, "_line_values", counted)
    list(keywords.assigned("password%3D%26" * 1000))
    assert read == ["password=&password=&"]

    read.clear()
    text = "token=Zq8vT2mW9pLq q=password%3DXk9mQ2zP7vLqW4"
    assert {text[f.start : f.end] for f in keywords.assigned(text)} == {
        "Zq8vT2mW9pLq",
        "Xk9mQ2zP7vLqW4",
    }
    assert len(read) == 2


class _CountedNames:
    """linear.NEXT_NAME, counting its readings."""

    def __init__(self) -> None:
        self.readings = 0

    def finditer(self, line: str, pos: int, endpos: int) -> Iterator[re.Match[str]]:
        self.readings += 1
        return NEXT_NAME.finditer(line, pos, endpos)


def test_a_long_runs_separators_are_read_ahead_not_once_per_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each value of `password=&` repeated asked next_name for the separators in its 200
    characters: one reading per value (20,000 for 200 KB, 0.3 s of CPU in 1 MB); now the
    separators are read ahead, some 4,000 characters at a time, and the values are the same."""
    line = "password=&" * 20_000 + "password=!Zq8vT2mW9pLq,token=!a"
    expected = list(extra_keyword_values(line, secret_word))
    counted = _CountedNames()
    monkeypatch.setattr(linear, "NEXT_NAME", counted)
    linear._JUDGED.line = None  # pyright: ignore[reportPrivateUsage]

    assert list(extra_keyword_values(line, secret_word)) == expected
    assert "!Zq8vT2mW9pLq" in expected
    assert counted.readings < 100, counted.readings


ASSIGNED_RUN = windows.ASSIGNED_RUN


class _CountedRuns:
    """windows.ASSIGNED_RUN, counting the names it gives."""

    def __init__(self) -> None:
        self.given = 0

    def finditer(self, line: str) -> Iterator[re.Match[str]]:
        for match in ASSIGNED_RUN.finditer(line):
            self.given += 1
            yield match


def test_whether_a_line_gives_a_secret_name_stops_at_the_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The keyword pass asked whether a line gives a secret-sounding name a value by listing
    every one (104,857 in 1 MB of `password=&`); the first found answers."""
    counted = _CountedRuns()
    monkeypatch.setattr(windows, "ASSIGNED_RUN", counted)

    list(keywords.assigned("password=&" * 20_000))

    assert counted.given < 100, counted.given


@pytest.mark.parametrize(
    "line",
    ["password=x", "x = 1", "db.Password : v", "bypass=1", "oauth=1", "loginPw=1", "api-key(",
     "a b", "secretsecret x", "Bearer abc", "x.auth =", "AUTH=1", "[password]=", "contraseña: x"],
)  # fmt: skip
def test_gives_a_secret_name_answers_as_secret_names_does(line: str) -> None:
    assert windows.gives_a_secret_name(line) == bool(windows.secret_names(line))
