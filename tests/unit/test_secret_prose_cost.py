"""Whether a long line gives a secret-sounding name a value (windows.gives_a_secret_name):
its words looked for at every character of every run of prose cost 0.2 s of CPU a MB, 7 times
what finding the runs given a value costs; now only a run given a value is read for them."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from memidx.secrets import windows
from memidx.secrets.windows import ASSIGNED_RUN

PROSE = "the password is in the vault, so pass it on and keep the auth token safe " * 14_000


def _cpu(work: Callable[[], object]) -> float:
    spent: list[float] = []
    for _ in range(3):
        start = time.process_time()
        work()
        spent.append(time.process_time() - start)
    return min(spent)


def test_a_prose_lines_words_are_not_read_at_every_character() -> None:
    windows.gives_a_secret_name("warm = 1")
    given = _cpu(lambda: windows.gives_a_secret_name(PROSE))
    runs = _cpu(lambda: ASSIGNED_RUN.search(PROSE))
    assert given < 3 * runs + 0.01, f"{given:.3f} s against {runs:.3f} s for its runs"


@pytest.mark.parametrize(
    "line",
    ["a b c password=x", "secret token", "my password: x", "x.auth_token(", "pass it on",
     "the  password  =  x", "passwordx" * 50 + "=", "a" * 500, "  ", "loginPw :x"],
)  # fmt: skip
def test_it_answers_as_secret_names_does(line: str) -> None:
    assert windows.gives_a_secret_name(line) == bool(windows.secret_names(line))
