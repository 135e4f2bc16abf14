"""Secret-sounding names on long lines: the keyword detector reads windows of a long line
(memidx.secrets.windows), finds the names in time linear in the line, still finds every
assignment, and masks a value a window cut short to its end."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator

import pytest

from memidx.secrets import library
from memidx.secrets.arrows import match_arm
from memidx.secrets.assignments import extra_keyword_values
from memidx.secrets.detect import find_secrets, redact_text
from memidx.secrets.signs import SIGNS, no_password
from memidx.secrets.values import looks_secret
from memidx.secrets.windows import (
    BEFORE,
    LONG_LINE,
    REACH,
    secret_names,
    secret_word,
    unassigned_name,
)
from tests.cpu_cost import least_ratio
from tests.unit.test_secrets_linear import detection_growth

# the short names memidx adds (`_pass`, `"pass":`, `login_pw=`, `auth=`, `loginPw`), as the old
# expressions would read them (they read `[_-]pass\b` alone)
SHORT = r"(?<![A-Za-z0-9])(?:pass|pw|auth)\b|(?-i:(?<=[a-z])(?:Pw|Pass|Auth)\b)"
# memidx's expression for a line worth the keyword detector, before it was made linear
OLD_NAMES = re.compile(
    "(?i)(?:"
    + "|".join([*library.keyword_words(), "token", "credential", "access[_-]?key", "bearer", SHORT])
    + r")[\w\"'\]\[.-]*\s*(?:=|:|\()|bearer\s|basic\s"
)
PIECES = [
    "password", "PASS", "_pass", "-pass", "api_key", "apikey", "token", "bearer", "Basic",
    "secret", "db.", '"', "'", "]", "[", "-", "_", "x", "Ab3", " ", "  ", "=", ":", "(",
    "=>", ":=", "`", ",", "é", "ñ", "contraseña",
]  # fmt: skip
SECRET_VALUES = ["Zq8vN3kLp2Rt7Wx", "hV4mB9cQ1sXe6Ty", "Pw5dK2nG8rJ3Lf0", "yT7aE1uR4oI9pQz"]


def test_names_are_the_lines_the_old_expression_found() -> None:
    rng = random.Random(38)
    for _ in range(3_000):
        line = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        names = secret_names(line)
        assert bool(names) == bool(OLD_NAMES.search(line)), line
        assert {m.span() for m in OLD_NAMES.finditer(line) if m.group()[-1] in "=:("} <= set(
            names
        ), line


@pytest.mark.parametrize(
    ("unit", "size", "tail"),
    [("secret", 2_000, ""), ("-db_pass", 500, ""), ("secret", 2_000, " password=warm")],
)
def test_names_on_a_long_line_stay_linear(unit: str, size: int, tail: str) -> None:
    """`secretsecret...`: the old expression read from each word to the end of the run; with an
    assignment on the line, a window at each name read its run to the window's end."""
    library.library_finders()
    find_secrets("password = warm")  # the keyword plugin loaded before timing
    small, large = ((unit * (n // len(unit) + 1))[:n] + tail for n in (size, 16 * size))
    least, ratios = detection_growth(small, large)
    assert least < 64, f"16x the text took {ratios}x the time"


@pytest.fixture
def windows_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each text the library's keyword detector is given."""
    real = library.keyword_finder()
    read: list[int] = []

    def counting(line: str) -> Iterator[str]:
        read.append(len(line))
        yield from real(line)

    finder: Callable[[], Callable[[str], Iterator[str]]] = lambda: counting  # noqa: E731
    monkeypatch.setattr(library, "keyword_finder", finder)
    return read


def test_a_long_line_is_read_in_windows(windows_read: list[int]) -> None:
    line = "`PASSWORD:" * 1_000
    find_secrets(line)
    assert windows_read and max(windows_read) <= BEFORE + REACH + 2  # and a closing quote and `;`
    assert sum(windows_read) <= 3 * len(line)


def test_a_short_line_is_read_whole(windows_read: list[int]) -> None:
    line = "x" * (LONG_LINE - 30) + " password = " + SECRET_VALUES[0]
    assert len(line) <= LONG_LINE
    assert SECRET_VALUES[0] not in redact_text(line).text
    assert windows_read == [len(line)]


def test_every_assignment_on_a_long_line_is_found() -> None:
    """The library reports the first match of each of its expressions: on a line read whole,
    one password of several."""
    filler = " and some words between them" * 4
    line = filler.join(f'password = "{value}"' for value in SECRET_VALUES) + filler
    assert len(line) > LONG_LINE
    redacted = redact_text(line).text
    assert [value for value in SECRET_VALUES if value in redacted] == []


def test_a_value_a_window_cut_short_is_masked_to_its_end() -> None:
    rng = random.Random(7)
    alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    value = "".join(rng.choice(alphabet) for _ in range(3 * REACH))
    line = "x " * LONG_LINE + "token: " + value + " after"
    redacted = redact_text(line).text
    assert value[-40:] not in redacted and value[:40] not in redacted
    assert redacted.endswith(" after")


OLD_EXTRA = re.compile(
    r"(?i)[\w.-]*(?:token|credential|access[_-]?key|secret[_-]?key|" + SHORT + r")[\w-]*[\"']?"
    r"\s*(?::=|=>|[:=])"
    r"\s*[\"'`]?([^\s\"'`,;]+)"
)
EXTRA_PIECES = [
    "token", "TOKEN", "credential", "access_key", "access-key", "secret_key", "_pass", "-pass",
    "pass", "x", "a.b", ".", "-", "_", '"', "'", "`", " ", "=", ":", ":=", "=>", ",", ";",
    "v4lue", "Zq8vN3kLp2", "é",
]  # fmt: skip


def test_extra_keywords_find_what_the_old_expression_found() -> None:
    """...but a sign-led field's name, path, entity or filter (`-pass::secret_key`), which no
    secret-sounding name is given as a password: the names after it are read again (a value
    `"#x_token=v4lue"` holds one), and may give what the old expression passed over."""
    rng = random.Random(381)
    for _ in range(5_000):
        line = "".join(rng.choice(EXTRA_PIECES) for _ in range(rng.randint(1, 12)))
        found = list(OLD_EXTRA.finditer(line))
        old = _judged([m.group(1) for m in found])
        arms = _judged([m.group(1) for m in found if _arm(line, m)])
        kept = [v for v in old if not (v[0] in SIGNS and no_password(v)) and v not in arms]
        new = _judged(list(extra_keyword_values(line, secret_word)))
        assert [v for v in new if v in old] == kept, line
        assert new == kept or kept != old, line


def _arm(line: str, match: re.Match[str]) -> bool:
    """Whether the old expression's value follows a match arm's `=>` (`Kind.Token => v4lue`,
    arrows.match_arm): code, no value."""
    head = line[match.start() : match.start(1)].rstrip(" \t\"'`")
    return head.endswith("=>") and match_arm(line, match.start(), match.start() + len(head))


# a plain value too short to be judged secret (values.looks_secret: 8 characters), which a run
# of such names given one passes over (assignments.SHORT_PLAIN)
SHORT_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_]{1,7}")


def _judged(values: list[str]) -> list[str]:
    return [value for value in values if not SHORT_PLAIN_VALUE.fullmatch(value)]


@pytest.mark.parametrize("unit", ["token", "secret_key", "a.token", "x-", "a:", "x.y="])
def test_extra_keywords_stay_linear_on_a_long_name(unit: str) -> None:
    """`tokentoken...token=`: the old expression took 1.8 s for 1 KB, minutes for 8 KB; `a:a:...`
    read a value to the end of the line after each name without a word (3 s for 64 KB)."""
    # a baseline of ~1 ms: smaller is noise on a busy machine; a loaded machine slowed one
    # measure past 64x (66x, once, at load 12); a quadratic expression (~256x) fails all three
    small, large = (unit * (size // len(unit)) + "=value" for size in (4_000, 64_000))
    least, ratios = least_ratio(
        lambda: list(extra_keyword_values(large, secret_word)),
        lambda: list(extra_keyword_values(small, secret_word)),
        below=64,
        runs=5,
    )
    assert least < 64, f"16x the name took {ratios}x the time"


ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
LONG_VALUE = "".join(random.Random(3).choices(ALPHABET, k=300))
FILLER = "x " * 150


@pytest.mark.parametrize(
    ("line", "value"),
    [  # JSON, and others: a window's end cut the quoted value
        ('{"a": 1, "password": "' + LONG_VALUE + '", "b": 2}', LONG_VALUE),
        (FILLER + 'password = "' + LONG_VALUE + '" and more', LONG_VALUE),
        ("pwd: 1 " + FILLER + 'private_key "' + LONG_VALUE + '"; more', LONG_VALUE),
        # a name with no `=` or `:` after it, far from the one that has
        (
            f'if (password !== "{SECRET_VALUES[0]}") {{ go() }} {FILLER} token: warm',
            SECRET_VALUES[0],
        ),
        (f'api_key = 1; {FILLER} private_key "{SECRET_VALUES[1]}";', SECRET_VALUES[1]),
        # a value that also starts a run a window's end cut short
        (
            FILLER
            + f"password: '{SECRET_VALUES[3]}', "
            + "y " * 100
            + f"url={SECRET_VALUES[3]}{LONG_VALUE}",
            SECRET_VALUES[3],
        ),
        # a value compared before its name, longer than BEFORE
        (FILLER + f"if '{SECRET_VALUES[2] * 3}' == password: pass", SECRET_VALUES[2] * 3),
    ],
)
def test_a_long_line_masks_what_the_whole_line_did(line: str, value: str) -> None:
    """What the library's keyword detector found reading the whole line: a quoted value a
    window's end cut, a name with no assignment after it, a long value compared before it."""
    assert len(line) > LONG_LINE
    assert value in [v.split()[0] for v in library.keyword_finder()(line)]
    redacted = redact_text(line).text
    assert value[:20] not in redacted and value[-20:] not in redacted


def test_every_value_the_whole_line_gave_is_masked() -> None:
    """The library's first value of each expression over a long line, each masked when it
    looks secret, whatever surrounds it."""
    rng = random.Random(11)
    entropy = library.entropy()
    for _ in range(150):
        line = ", ".join(random_pieces(rng))
        if not secret_names(line) and not unassigned_name(line):  # no line worth reading
            continue
        redacted = redact_text(line).text
        for value in library.keyword_finder()(line):
            token = value.split()[0].strip("\"'`,;") if value.split() else ""
            if looks_secret(token, entropy):
                assert token[:40] not in redacted, line


def random_pieces(rng: random.Random) -> Iterator[str]:
    names = ["password", "db_password", "API_KEY", "client_secret", "pwd", "private_key"]
    forms = [
        '"{n}":"{v}"', "{n}={v}", "export {n}={v}", "{n}: '{v}'", "'{v}' == {n}", '"{v}" != {n}:',
        '{n} !== "{v}"', '{n} "{v}";', '{n} := "{v}"', "{n}={v},", "cfg.{n} = \"{v}\"",
    ]  # fmt: skip
    filler = ['"a":"b"', "word", ",", "  ", ";", "the quick brown fox", "k=v", "'q'"]
    for _ in range(rng.randint(1, 24)):
        if rng.random() < 0.3:
            value = "".join(rng.choices(ALPHABET, k=rng.choice([12, 40, 280])))
            yield rng.choice(forms).format(n=rng.choice(names), v=value)
        else:
            yield rng.choice(filler) * rng.randint(1, 30)
