"""The secret check's caches keep short names and values only: a long-lived process (the MCP
server, a pre-commit run over many files) that checks notes holding a long sign-led value
kept each value whole, up to 4,096 of them (40 notes of a 1 MB value held 40 MB after their
check)."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable

from memidx.secrets.detect import find_secrets
from memidx.secrets.signs import no_password, personal
from memidx.secrets.windows import secret_word

KB = 1 << 10


# Kept whole, the arguments held ARGUMENTS times 64 KB (384 KB; 20 of them, 1.3 MB, cost 2.2 s
# of CPU under tracemalloc); kept short, none held more than 5 KB. 64 KB each: a cache kept for
# arguments under a longer bound than today's 256 characters (up to 64 KB) is caught too.
ARGUMENTS, MAX_HELD = 6, 128 * KB


def _retained(judge: Callable[[str], bool]) -> int:
    """Bytes still held after judging ARGUMENTS distinct 64 KB arguments with `judge`."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(ARGUMENTS):
            argument = f"@{n}/" + "ab/" * (64 * KB // 3)
            judge(argument)
            del argument
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_long_values_and_names_are_not_kept_after_their_check() -> None:
    for judge in (no_password, personal, secret_word):
        assert _retained(judge) < MAX_HELD, judge


def test_a_long_value_is_still_judged_as_before() -> None:
    run = "ab/" * (64 * KB // 3)
    assert no_password("@" + run)  # a path
    assert not no_password("!Zq8vT2mW9pL" + run)  # `!` leads no path
    assert not find_secrets(f"password: @{run}\n")
