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
