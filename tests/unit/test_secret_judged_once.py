"""The keyword pass judges each value once and finds its places in one reading of the line
(memidx.secrets.keywords, memidx.secrets.places), with the findings of the pass before, which
judged each value in each window again (tests/unit/secrets_oracle.py): compared exactly on
generated texts of real secrets, near misses, quotes, brackets and lines past a window."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from memidx.secrets import keywords, library, values
from memidx.secrets.detect import find_secrets
from memidx.secrets.patterns import Finding, merged
from memidx.secrets.places import FEW, every_place
from tests.cpu_cost import least_ratio
from tests.unit import secrets_oracle

NAMES = ["password", "api_key", "token", "secret", "pwd", "db_pass", "GITHUB_TOKEN",
         "credentials", "private_key", "x.password", '"password"', "'secret'", "PASSWORD",
         "Bearer", "Basic", "url", "name", "auth_token", "passwd"]  # fmt: skip
ASSIGNS = ["=", ": ", " := ", " => ", '("', " == ", " !== ", "=", ":", " = ", "[25] = "]
NEAR_MISSES = ["changeme", "${TOKEN}", 'os.environ["X"]', "xxxxxxxx", "authToken", "short",
               "DB_PASSWORD", "password", "your-token-here", "[REDACTED:x]", "settings.pw",
               "@string/maps_key", "true", "<PASSWORD>", "12345678", "correctHorse"]  # fmt: skip
MARKS = ['"', "'", "`", "{", "}", "[", "]", "(", ")", ",", ";", "&", " ", " ", " ", "  ",
         "\n", ".", "\u201c", "\u201d", "#", "@", "|", "/"]  # fmt: skip
ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789+/_-"


def secret(rnd: random.Random) -> str:
    return "".join(rnd.choices(ALPHABET, k=rnd.randint(6, 48)))


def generated(rnd: random.Random, size: int) -> str:
    """A text of about `size` characters: assignments of secrets (some used twice), near
    misses, quotes and brackets, in lines of a few characters to several windows long."""
    used: list[str] = []
    parts: list[str] = []
    total = 0
    newline = rnd.choice([0.0, 0.01, 0.05])  # most texts: a few long lines
    while total < size:
        roll = rnd.random()
        if roll < 0.45:
            quote = rnd.choice(["", '"', "'", "`", ""])
            value = rnd.choice(used) if used and rnd.random() < 0.2 else secret(rnd)
            value = rnd.choice(NEAR_MISSES) if rnd.random() < 0.25 else value
            used.append(value)
            piece = rnd.choice(NAMES) + rnd.choice(ASSIGNS) + quote + value + quote
        elif roll < 0.75:
            piece = rnd.choice(MARKS)
        elif roll < 0.85:
            piece = rnd.choice(used) if used else secret(rnd)  # a value standing alone
        else:
            piece = "\n" if rnd.random() < newline * 10 else rnd.choice(["see ", "a b ", "-"])
        parts.append(piece)
        total += len(piece)
    return "".join(parts)


def in_order(findings: list[Finding]) -> list[tuple[int, int, str]]:
    return [(f.start, f.end, f.kind) for f in merged(findings)]


# Sizes around a window (256) and many past it (one line of many windows); seeds fixed.
CASES = [(seed, size) for seed in range(120) for size in (200, 700, 3_000)] + [
    (seed, 12_000) for seed in range(120, 130)
]


@pytest.mark.parametrize(("seed", "size"), CASES)
def test_the_keyword_pass_finds_what_judging_each_window_again_found(seed: int, size: int) -> None:
    text = generated(random.Random(seed), size)
    assert in_order(list(keywords.assigned(text))) == in_order(
        list(secrets_oracle.assigned(text))
    ), text


# What a hostile or foreign paste holds: curly quotes, CRLF and lone CRs, Unicode spaces and
# separators (NBSP, U+2028, U+001C, which str.split and \\s take as spaces), a name after a
# separator inside a run (`,secret=`: where a cut value's run ends), XML and YAML keys, runs
# of 200-300 characters that push a value over a window's edge, and values with these inside.
ODD = ["\u201c", "\u201d", "\u2018", "\u2019", "\r\n", "\r", "\t", "\u00a0", "\u2028", "\x1c",
       "\x0b", "\u00e9", "\u65e5\u672c", "\U0001f600", "\u200b", ",secret=", "&token=", ";pwd=",
       ",url=", "\\", '\\"', "</password>", "<password>", "password:\n  ", "password: |\n  ",
       "{password: ", "://u:", "@host", "Authorization: Basic ", "Bearer ",
       "dXNlcjpwNHNzdzByZDEyMw=="]  # fmt: skip


def adverse(rnd: random.Random, size: int) -> str:
    """A text of about `size` characters of assignments whose quotes, values and neighbours
    are the odd ones above, with values used again and values standing alone."""
    used: list[str] = []
    parts: list[str] = []
    while sum(map(len, parts)) < size:
        roll = rnd.random()
        if roll < 0.4:
            quote = rnd.choice(["", '"', "'", "`", "\u201c", "\u2018", ""])
            shut = rnd.choice([quote, quote, "\u201d", "\u2019", ""])
            value = rnd.choice(used) if used and rnd.random() < 0.3 else secret(rnd)
            value = rnd.choice(NEAR_MISSES) if rnd.random() < 0.2 else value
            if rnd.random() < 0.15:
                value += rnd.choice(ODD) + secret(rnd)
            used.append(value)
            names = [*NAMES, "contrase\u00f1a", "client_secret", "apiKey"]
            piece = rnd.choice(names) + rnd.choice(ASSIGNS) + quote + value + shut
        elif roll < 0.7:
            piece = rnd.choice(MARKS + ODD)
        elif roll < 0.8:
            piece = rnd.choice(used) if used else secret(rnd)
        elif roll < 0.85:
            piece = "x" * rnd.randint(200, 300)
        else:
            piece = rnd.choice(["see ", "a b ", "-", "\n"])
        parts.append(piece)
    return "".join(parts)


@pytest.mark.parametrize(
    ("seed", "size"), [(seed, size) for seed in range(1000, 1060) for size in (256, 3_000)]
)
def test_odd_texts_find_what_judging_each_window_again_found(seed: int, size: int) -> None:
    text = adverse(random.Random(seed), size)
    assert in_order(list(keywords.assigned(text))) == in_order(
        list(secrets_oracle.assigned(text))
    ), text


def test_a_dense_line_of_many_secrets_past_few_finds_them_as_before() -> None:
    """Past FEW values a line is read once for their places, not searched once per value."""
    rnd = random.Random(7)
    values = [secret(rnd) + "Zq9" for _ in range(4 * FEW)]
    line = " ".join(f'password="{v}" url={rnd.choice(values)}' for v in values)
    new, old = keywords.assigned(line), secrets_oracle.assigned(line)
    assert in_order(list(new)) == in_order(list(old))


def test_the_library_entropy_is_the_plugins_own() -> None:
    modules = library._plugin_modules()  # pyright: ignore[reportPrivateUsage]
    plugin: Any = modules["high_entropy_strings"].Base64HighEntropyString()
    rnd = random.Random(3)
    texts = [secret(rnd) for _ in range(500)] + ["aaaa", "é€x+/", "x" * 300, "a1" * 97]
    measure = library.entropy()
    assert [measure(t) for t in texts] == [plugin.calculate_shannon_entropy(t) for t in texts]


def judgments(text: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every value the keyword pass judged, in order, once per judgment."""
    seen: list[str] = []
    real: Callable[[str, Callable[[str], float]], bool] = values.looks_secret

    def counted(value: str, entropy: Callable[[str], float]) -> bool:
        seen.append(value)
        return real(value, entropy)

    monkeypatch.setattr(values, "looks_secret", counted)  # keywords imports it at its use
    find_secrets(text)
    return seen


@pytest.mark.parametrize(
    "text",
    [
        'password="' * 3_000,  # each window cut the same run: 43,000 judgments for 100 KB
        " ".join(f'password="{"Zk9x" * 5}{n:06d}"' for n in range(2_000)),  # 2,000 secrets
        "".join(f"pwd={n:05d}Xq7-" for n in range(3_000)),  # one run of assignments
    ],
)
def test_each_value_is_judged_once(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = judgments(text, monkeypatch)
    assert len(seen) == len(set(seen)), f"{len(seen)} judgments of {len(set(seen))} values"


def places_by_find(line: str, values: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """Every place of each value, one str.find over the line for each (as before)."""
    found: list[tuple[int, int, str]] = []
    for value, kind in dict.fromkeys(values):
        at = line.find(value)
        while at != -1 and value:
            found.append((at, at + len(value), kind))
            at = line.find(value, at + len(value))
    return sorted(found)


@pytest.mark.parametrize("seed", range(40))
def test_every_place_is_each_values_places_by_str_find(seed: int) -> None:
    rnd = random.Random(seed)
    values = [(secret(rnd)[: rnd.randint(1, 12)] + rnd.choice(["", "aaaaaaaa"]), "k")
              for _ in range(rnd.choice([3, FEW + 1, 4 * FEW]))]  # fmt: skip
    values += [("aaaaaaaa", "k"), ("aaaaaaaaa", "k"), ("aaaaaaaa", "other"), ("", "k")]
    line = "".join(rnd.choice([v for v, _ in values] + ["a", " ", "aaaa"]) for _ in range(400))
    assert sorted(every_place(line, values)) == places_by_find(line, values)


def test_every_place_reads_a_line_once_not_once_per_value() -> None:
    """18,000 secrets in a 900 KB line, each looked for with str.find over the whole line,
    cost 14 s: 16x the values in a 16x longer line took ~256x the time; read once, ~16x."""
    rnd = random.Random(5)

    def places(count: int) -> Callable[[], object]:
        values = [(secret(rnd) + "Zq9x0000", "k") for _ in range(count)]
        line = " ".join(f'password="{v}"' for v, _ in values)
        return lambda: list(every_place(line, values))

    least, ratios = least_ratio(places(16 * 300), places(300), below=64, pairs=2)
    assert least < 64, f"16x the values and the line took {ratios}x"


class CountedSpace:
    """keywords.SPACE, counting the characters each search for a space reads."""

    def __init__(self, space: re.Pattern[str]) -> None:
        self.space = space
        self.read = 0

    def search(self, line: str, at: int) -> re.Match[str] | None:
        found = self.space.search(line, at)
        self.read += (found.start() if found else len(line)) - at
        return found


@pytest.mark.parametrize("form", ["password={},", "pwd={};", "api_key={},url=x,"])
def test_a_run_is_read_for_its_space_once(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`password=v4lue,` repeated to 900 KB took 20 s: each value a window cut short looked
    for its run's space to the line's end, reading the line again and again (quadratic). 120
    values (~5 KB, a run cut by ~20 windows) read the line ~95 times that way; 500 did too,
    at 10 times the CPU, most of it in the oracle."""
    rnd = random.Random(11)
    line = "".join(form.format(secret(rnd) + "Zq9x") for _ in range(120)) + " end"
    counted = CountedSpace(keywords.SPACE)
    monkeypatch.setattr(keywords, "SPACE", counted)
    assert in_order(list(keywords.assigned(line))) == in_order(list(secrets_oracle.assigned(line)))
    assert counted.read <= 2 * len(line), f"{counted.read} characters read in {len(line)}"
