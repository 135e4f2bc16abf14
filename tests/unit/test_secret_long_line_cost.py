"""The secret check's cost on a pathological single line of 1 MB or more: each line is read
back to its start once, not once per stem in it, and each repeated name and value is judged
once (`password=&`, `token=!a&b=` repeated: 2.5 s of CPU for 1 MB each before)."""

from __future__ import annotations

import time

from memidx.secrets import keywords
from memidx.secrets.assignments import extra_keyword_values
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
