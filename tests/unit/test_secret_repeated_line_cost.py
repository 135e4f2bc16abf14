"""The secret check's cost on text full of one assignment repeated (`password="1"`,
`password=1;`, `password='1'`: 4.6 to 10.9 s a MB, 9 to 17 times 1 MB of real notes, each line
read by every pass): a named line's values are read once for each distinct text
(keywords._values_once), and the entropy and the character classes each value is judged by
are counted in C. The findings are the same. Figures: `make bench ONLY=secrets`."""

from __future__ import annotations

import math
import random
import string
from collections import Counter
from collections.abc import Callable, Iterable

import pytest

from memidx.secrets import keywords
from memidx.secrets.detect import find_secrets
from memidx.secrets.entropy import shannon
from memidx.secrets.patterns import Finding
from memidx.secrets.values import character_classes


@pytest.mark.parametrize("shape", ['password="{n}"', "password={n};", "token: '{n}',"])
def test_a_repeated_line_is_read_once(monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    read: list[str] = []
    line_values = keywords._line_values  # pyright: ignore[reportPrivateUsage]

    def counted(line: str, judge: Callable[[str], bool]) -> Iterable[Finding]:
        read.append(line)
        return line_values(line, judge)

    monkeypatch.setattr(keywords, "_line_values", counted)
    text = "\n".join(shape.format(n=n % 3) for n in range(3_000)) + '\npassword="Zq8vT2mW9pLqXk"'
    found = find_secrets(text, allow=True)
    assert len(read) == 4  # three distinct lines and the secret's
    assert [text[f.start : f.end] for f in found] == ["Zq8vT2mW9pLqXk"]


def test_reading_each_line_once_changes_no_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(54)
    names, signs, quotes = ["password", "token", "pw", "auth", "x"], ["=", ": ", " = "], "\"'`"
    values = ["1", "Zq8vT2mW9pLqXk", "hunter2", "abc", "s3cr3t!x", "read-only", "{a}"]
    lines = [
        rng.choice(names) + rng.choice(signs) + q + rng.choice(values) + q + rng.choice(";, ")
        for q in rng.choices(["", *quotes], k=300)
    ]
    text = "\n".join(lines * 3)
    once = find_secrets(text, allow=True)
    line_values = keywords._line_values  # pyright: ignore[reportPrivateUsage]

    def every_time(
        line: str, judge: Callable[[str], bool], read: dict[str, list[Finding]]
    ) -> list[Finding]:
        return list(line_values(line, judge))

    monkeypatch.setattr(keywords, "_values_once", every_time)
    assert find_secrets(text, allow=True) == once
    assert len(once) > 30


def _library_shannon(text: str, charset: str) -> float:
    """The library's sum, 64 steps over its charset."""
    if not text:
        return 0.0
    counts, total = Counter(text), 0.0
    for char in charset:
        p_x = float(counts[char]) / len(text)
        if p_x > 0:
            total += -p_x * math.log(p_x, 2)
    return total


def _symbol(char: str) -> bool:
    return not char.isalnum()


CLASSES: tuple[Callable[[str], bool], ...] = (str.islower, str.isupper, str.isdigit, _symbol)


def test_the_entropy_and_classes_are_the_same() -> None:
    rng = random.Random(54)
    charset = string.ascii_letters + string.digits + "+/="
    alphabet = charset + "-_.!@ \u00e9\u00c9\u0663"
    for _ in range(20_000):
        value = "".join(rng.choices(alphabet, k=rng.randint(0, 40)))
        assert shannon(value, charset) == _library_shannon(value, charset)
        assert character_classes(value) == sum(any(t(c) for c in value) for t in CLASSES)
