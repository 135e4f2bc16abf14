"""Code, addresses and paths are stripped in time linear in a line's length: the patterns for
an e-mail address, a path and `Foo.java:88` were tried at every letter of a run they could not
match, each scan running to the run's end. A 64 KB base64url token in a note took 6 s of CPU
at every commit (four times as long for twice the length); 0.2 s now."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memidx.notes.prose import clean_inline
from tests.cpu_cost import least_ratio

# a base64url token's letters (no `@`, no `/`), a run of words joined by `-`, one long word,
# each as long as `size` characters
LINES: dict[str, Callable[[int], str]] = {
    "token": lambda size: "Qx7-_bZ9" * (size // 8),
    "hyphens": lambda size: "a-" * (size // 2) + "|",
    "word": lambda size: "x" * size + "|",
}


@pytest.mark.parametrize("shape", sorted(LINES))
def test_a_long_run_of_letters_is_cleaned_in_linear_time(shape: str) -> None:
    """1.5 s, 3.5 s and 1 s of CPU for 32,000 characters before; 4 to 7 ms now. 16x the line
    takes ~16x the time, quadratic ~256x: a ratio to the smaller line read just before, not
    seconds (a bound of 0.25 s held ~35 times today's cost, yet counted a neighbour's load)."""
    small, large = (LINES[shape](size) for size in (2_000, 32_000))
    least, ratios = least_ratio(lambda: clean_inline(large), lambda: clean_inline(small), below=64)
    assert least < 64, f"16x the line took {ratios}x the time"
    cleaned = clean_inline(large)
    assert cleaned[:3] == large[:3]  # a word, not an address or a path


@pytest.mark.parametrize(
    ("line", "cleaned"),
    [
        ("Write to ops.team+alerts@example.com today", "Write to today"),
        ("Edit src/app/main.py and -x/y.txt", "Edit and"),
        ("Failed at Foo.java:88 again", "Failed at again"),
    ],
)
def test_addresses_paths_and_places_in_code_are_still_stripped(line: str, cleaned: str) -> None:
    assert clean_inline(line) == cleaned
