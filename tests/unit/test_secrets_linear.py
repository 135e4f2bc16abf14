"""The detectors stay linear on hostile input (a paste of `eyJeyJ...` into an agent's turn must
not stall its hook), and the linear stand-ins for the library's patterns find exactly what the
library's own patterns find."""

from __future__ import annotations

import random
import re

import pytest

from memidx.secrets import library
from memidx.secrets.detect import find_secrets
from memidx.secrets.library_patterns import TOKEN_PATTERNS
from memidx.secrets.linear import STAND_INS, linear
from tests.benchmark.secrets.labeled import samples
from tests.cpu_cost import least_ratio

SECRETS, LOOK_ALIKES = samples(seed=23, per_kind=4)
OPENAI_MARK = "T3Blbk" + "FJ"  # assembled: no scanner should take the source for a key
HEX36 = "0123456789abcdef" * 2 + "01234"
# pieces that start, continue, break or end the three patterns' matches
PIECES = [
    "eyJ", "e", "yJ", "sk-", "sk", "//", "/", "/:_authToken=", "npm_", "npm_x", HEX36, ".",
    "..", OPENAI_MARK, "A" * 20, "b9" * 5, "_", "-", "=", " ", "\n", "\n ", ":", "@", "+",
]  # fmt: skip
EDGES = [
    "xxeyJabc.def.ghi and eyJeyJ.x then eyJ.eyJa.b.",
    "eyJabc.def eyJx.y.eyJz.w eyJ",
    "sk-" + "A" * 20 + OPENAI_MARK + "B" * 20 + "sk-" + "C" * 20 + OPENAI_MARK + "D" * 20,
    "sk-sk-" + "A" * 25 + OPENAI_MARK + "B" * 22 + "-sk-" + "x" * 60,
    "a//b//c/:_authToken=npm_abc d\n//r/:_authToken=\n\n  " + HEX36 + " tail\n//x/:_authToken=z",
    "///:_authToken=npm_ab //h/:_authToken=npm_abcdefghij",
]


def library_patterns() -> list[re.Pattern[str]]:
    return [
        re.compile(pattern, flags)
        for patterns in TOKEN_PATTERNS.values()
        for pattern, flags in patterns
        if pattern in STAND_INS
    ]


def found(pattern: re.Pattern[str], text: str) -> list[list[tuple[int, int]]]:
    """Each match's spans: the library pattern's whole match, then its groups."""
    stand_in, whole = linear(pattern)
    return [
        [match.span(g) for g in range(whole, stand_in.groups + 1)]
        for match in stand_in.finditer(text)
    ]


def test_every_stand_in_replaces_one_of_the_library_patterns() -> None:
    assert len(library_patterns()) == len(STAND_INS) == 3


def fuzzed(count: int) -> list[str]:
    rng = random.Random(5)
    return ["".join(rng.choices(PIECES, k=rng.randint(1, 40))) for _ in range(count)]


@pytest.mark.parametrize("pattern", library_patterns(), ids=lambda p: p.pattern[:8])
def test_a_stand_in_finds_what_the_library_pattern_finds(pattern: re.Pattern[str]) -> None:
    texts = [*EDGES, *(s.line for s in (*SECRETS, *LOOK_ALIKES)), *fuzzed(3000)]
    matched = 0
    for text in texts:
        expected = [[m.span(g) for g in range(pattern.groups + 1)] for m in pattern.finditer(text)]
        assert found(pattern, text) == expected, text
        matched += bool(expected)
    assert matched >= 8  # the comparison saw matches, not only texts without one


def detect(text: str) -> None:
    find_secrets(text)  # the screen, and whatever it lets through
    for _kind, spans in library.library_finders():  # every library detector, screened or not
        list(spans(text))


def detection_growth(small: str, large: str) -> tuple[float, list[float]]:
    """The least ratio of detect's CPU time on large to that on small measured just before it
    (each the least of 5): 16x the text takes ~16x the time, a quadratic detector ~256x."""
    return least_ratio(lambda: detect(large), lambda: detect(small), below=64, runs=5)


# A prefix repeated: each library pattern tried at each one scanned to the end of the run,
# quadratic: 16x the text took ~256x the time, seconds at the larger size; linear takes ~16x.
@pytest.mark.parametrize(
    ("unit", "size"),
    [("eyJ", 2_500), ("sk-", 1_500), ("https://u:", 5_000), ("//a", 2_500)],
)
def test_the_detectors_stay_linear_on_a_repeated_prefix(unit: str, size: int) -> None:
    library.library_finders()  # loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] for n in (size, 16 * size))
    # a loaded machine slowed one measure past 64x (once, at load 9); a quadratic one fails all
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.mark.parametrize("tail", ["}", "]", ")", "}.", "})", ")."])
def test_a_value_before_a_run_of_closing_brackets_is_read_in_linear_time(tail: str) -> None:
    """`token=Zk9` and 100 KB of `}` took 13 s: the brackets that close a flow collection the
    value sits in (`{api_key: v4lue}`) were taken off it one at a time, each time counting the
    rest again."""
    library.library_finders()  # loaded before timing
    small, large = (f"token=Zk9{tail * (n // len(tail))}" for n in (4_000, 64_000))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"
