"""The index's tokenizer splits words where a query does (memidx.notes.separators), and fold
reads every character with a canonical decomposition (memidx.notes.words)."""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterator
from contextlib import closing

import pytest

from memidx.notes.separators import TOKENIZER
from memidx.notes.words import DIACRITICS, PRIVATE_USE, WORD, fold, folds

# where Unicode assigns characters below plane 15 (planes 4 to 13 hold none)
ASSIGNED = (*range(0x80, 0x40000), *range(0xE0000, 0xE1000))


def _code_points() -> Iterator[int]:
    """Every character text holds (private use aside: `categories` makes all of it separate),
    and the emoji blocks' unassigned code points."""
    for code in ASSIGNED:
        char = chr(code)
        category = unicodedata.category(char)
        if code in DIACRITICS or category in ("Cs", "Co"):
            continue
        if category != "Cn" or 0x1F000 <= code < 0x1FC00:
            yield code


def _first_disagreement(codes: list[int]) -> str | None:
    """The first code point whose "x<it>x" the index's tokenizer reads as one word and a query
    as two ("x" "x"), or the other way; None when there is none."""
    with closing(sqlite3.connect(":memory:")) as conn:
        conn.execute(f'CREATE VIRTUAL TABLE t USING fts5(body, tokenize="{TOKENIZER}")')
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        conn.execute("INSERT INTO t VALUES (?)", (" ".join(f"x{chr(c)}x" for c in codes),))
        found = {int(n) for (n,) in conn.execute("SELECT offset FROM v WHERE term = 'x'")}
    at = 0
    for code in codes:  # where each word a query reads stands
        if WORD.match(chr(code)) is not None:
            if at in found:
                return f"U+{code:04X} separates words in the index"
            at += 1
        else:
            if at not in found:
                return f"U+{code:04X} is part of a word in the index"
            at += 2
    return None


def test_the_index_splits_every_character_as_a_query_does() -> None:
    """unicode61 reads Unicode 6.1: newer emoji ("deploy🥺fails") and private-use characters
    were letters to the index and separators to a query, so neither word found the note."""
    assert _first_disagreement(list(_code_points())) is None


def test_fold_reads_every_character_with_a_canonical_decomposition() -> None:
    everywhere: dict[int, str] = {}
    for code in ASSIGNED:
        char = chr(code)
        if not unicodedata.decomposition(char):
            continue
        folded = unicodedata.normalize(
            "NFC", unicodedata.normalize("NFD", char).translate(DIACRITICS)
        )
        if (
            len(folded) == 1
            and folded != char
            and bool(WORD.match(folded)) == bool(WORD.match(char))
        ):
            everywhere[code] = folded

    assert folds() == everywhere


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Ελληνικά γλώσσα", "Ελληνικα γλωσσα"),
        ("йогурт ёлка їжак", "иогурт елка іжак"),
        ("naïve İstanbul", "naive Istanbul"),
        ("ἄλφα ᾶ", "ἀλφα ᾶ"),  # marks unicode61 keeps (psili, perispomeni) stay
        ("東京 タワー が 한국어", "東京 タワー が 한국어"),
        ("plain ascii", "plain ascii"),
        ("build\ue000log \U000f0001x\U00100000", "build log  x "),  # private use: spaces
    ],
)
def test_fold_drops_the_marks_the_index_drops_in_every_script(text: str, folded: str) -> None:
    assert fold(text) == folded
    assert fold(unicodedata.normalize("NFD", text)).translate(DIACRITICS) == unicodedata.normalize(
        "NFD", folded
    ).translate(DIACRITICS)


@pytest.mark.parametrize(
    "text",
    [
        "it\u2019s — done ✅ 🥺 日本語 한국어 ß ø " * 1000,  # not ASCII, nothing to fold
        "é",
        "\U0002f800 ideograph",  # the last range of the table, beyond the BMP
        "\U0010fffd icon",
        "x\ue000",
    ],
)
def test_fold_copies_only_text_it_changes(text: str) -> None:
    """A 5 MB transcript with one curly quote was translated whole (~0.4 s of its filing, a
    copy of it in memory) though fold changed nothing in it."""
    folded = fold(text)
    assert folded == PRIVATE_USE.sub(" ", text.translate(folds()))
    assert (folded is text) == (folded == text)
