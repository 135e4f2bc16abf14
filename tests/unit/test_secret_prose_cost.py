"""Whether a long line gives a secret-sounding name a value (windows.gives_a_secret_name):
its words looked for at every character of every run of prose cost 0.2 s of CPU a MB, 7 times
what finding the runs given a value costs; now only a run given a value is read for them."""

from __future__ import annotations

import pytest

from memidx.secrets import windows
from memidx.secrets.windows import ASSIGNED_RUN
from tests.cpu_cost import least_ratio

PROSE = "the password is in the vault, so pass it on and keep the auth token safe " * 14_000


def test_a_prose_lines_words_are_not_read_at_every_character() -> None:
    windows.gives_a_secret_name("warm = 1")
    # 1.3 times now, 7 before; each measure weighed against the runs read just before it
    least, ratios = least_ratio(
        lambda: windows.gives_a_secret_name(PROSE), lambda: ASSIGNED_RUN.search(PROSE), below=3
    )
    assert least < 3, f"{ratios} times the CPU time of finding its runs"


@pytest.mark.parametrize(
    "line",
    ["a b c password=x", "secret token", "my password: x", "x.auth_token(", "pass it on",
     "the  password  =  x", "passwordx" * 50 + "=", "a" * 500, "  ", "loginPw :x"],
)  # fmt: skip
def test_it_answers_as_secret_names_does(line: str) -> None:
    assert windows.gives_a_secret_name(line) == bool(windows.secret_names(line))
