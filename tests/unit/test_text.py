"""Text for people: what a terminal would hide or act on is dropped from a note's text."""

from __future__ import annotations

import pytest

from memidx.text import prose, prose_line


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain words", "plain words"),
        ("lines\n\tand tabs\n", "lines\n\tand tabs\n"),  # what prose is written with
        ("access = \u202euser\u202c", "access = user"),  # a bidi override (Trojan Source)
        ("\u202a\u202b\u202d embeddings", " embeddings"),
        ("\u2066isolates\u2067\u2068\u2069", "isolates"),
        ("zero\u200bwidth\u200c\u200d\u200e\u200f", "zerowidth"),
        ("\ufeffBOM first", "BOM first"),
        ("soft\u00adhyphen and \u2060joiner \U000e0041tag", "softhyphen and joiner tag"),  # Cf
        ("\x1b]0;pwned\x07 \x1b[2J\x00\r\x7f", "]0;pwned [2J"),  # C0 controls, DEL
        ("c1 \x85\x9b controls", "c1  controls"),
        ("caf\u00e9 \u65e5\u672c \U0001f525", "caf\u00e9 \u65e5\u672c \U0001f525"),  # text stays
    ],
)
def test_prose_drops_what_a_terminal_hides_or_acts_on(text: str, shown: str) -> None:
    assert prose(text) == shown


def test_prose_on_one_line_escapes_the_newlines_it_keeps() -> None:
    assert prose_line("a title\u202e\nover two lines\t") == "a title\\nover two lines\\t"


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # man ZWJ woman ZWJ girl: one emoji
RAINBOW = "\U0001f3f3\ufe0f\u200d\U0001f308"  # the rainbow flag
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # tag sequence


@pytest.mark.parametrize(
    "text",
    [
        f"the team {FAMILY} and {RAINBOW}",
        f"{ENGLAND} won",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian: ZWNJ keeps two letters apart
        "\u0915\u094d\u200d\u0937",  # Devanagari: ZWJ asks for the half form
        "\u0600\u0661\u0662 and \u06dd\u0663",  # Arabic's number sign and end of ayah: shown signs
        "\u05e9\u05dc\u05d5\u05dd and \u0645\u0631\u062d\u0628\u0627\tin a table",  # RTL, a tab
    ],
)
def test_prose_keeps_the_format_characters_people_write_with(text: str) -> None:
    assert prose(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("us\u200der and a\u200c\U0001f525", "user and a\U0001f525"),  # a joiner next to ASCII
        ("\U0001f468\u200d\u202e\U0001f469", "\U0001f468\U0001f469"),  # next to an override
        ("tag \U000e0067\U000e007f alone", "tag  alone"),  # tags with no flag before them
    ],
)
def test_prose_drops_joiners_and_tags_that_join_nothing(text: str, shown: str) -> None:
    assert prose(text) == shown
