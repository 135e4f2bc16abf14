"""What a word is, as the index's FTS5 tokenizer (unicode61) sees it: a run of letters and
digits; everything else, `_` included, separates words. Queries are split by it, snippets are
cut along it, and the chunker counts its tokens from it, so all three agree with the index
(memidx.notes.separators tells the tokenizer where unicode61 alone would not agree)."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

WORD = re.compile(r"[^\W_]+")

# The combining marks unicode61 reads as part of a word and drops with `remove_diacritics`
# (SQLite's sqlite3Fts5UnicodeIsdiacritic: U+0300-U+0331 less a few). Python's `\w` splits a
# word at them, so a decomposed (NFD) "naïve" would be searched as "nai" AND "ve".
DIACRITICS = dict.fromkeys(
    [*range(0x300, 0x305), *range(0x306, 0x30D), 0x30F, 0x311, 0x31B, *range(0x323, 0x329)]
)
DIACRITICS.update(dict.fromkeys([0x32D, 0x32E, 0x330, 0x331]))

# The code points of every character with a canonical decomposition (Unicode 14; the test of
# fold reads them all): Latin, Greek, Cyrillic, their extensions, CJK compatibility ideographs
_DECOMPOSABLE = ((0xC0, 0x500), (0x1E00, 0x2400), (0xF900, 0xFB00), (0x2F800, 0x2FA20))


# Private-use characters (icon fonts: Nerd Fonts' in prompts and terminal output) separate
# words; unicode61 reads them as letters, too many to list as its separators
PRIVATE_USE = re.compile("[\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd]")


def fold(text: str) -> str:
    """Text as the index reads it: a character made of a letter and marks that unicode61
    drops is that letter, in every script ("ή" is "η", "й" is "и", "é" is "e"), so the composed
    (NFC) and the decomposed (NFD) forms are one word, as SQLite's `remove_diacritics` makes
    them for Latin only; any other canonically equivalent character is its composed form, and
    a private-use character a space. One character stands for one, a letter for a letter, so
    FTS5 finds the same words at the same places in the unfolded text (its snippets), private
    use aside (memidx.search.lexical.snippets)."""
    if text.isascii() or _foldable().search(text) is None:
        return text  # most text (a transcript with a curly quote or an emoji): not copied
    return PRIVATE_USE.sub(" ", text.translate(folds()))


@cache
def _foldable() -> re.Pattern[str]:
    """Any character fold changes. Filing a 5 MB transcript translated all of it when a single
    character was not ASCII (~0.4 s, ~100 ns a character); this scan in C costs ~20 ns."""
    ranges: list[list[int]] = []
    for code in sorted(folds()):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    listed = "".join(f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in ranges)
    return re.compile(f"[{listed}{PRIVATE_USE.pattern[1:-1]}]")


@cache
def folds() -> dict[int, str]:
    """fold's table: code point -> the character it reads as."""
    table: dict[int, str] = {}
    for first, last in _DECOMPOSABLE:
        for code in range(first, last):
            char = chr(code)
            if not _canonical(char):
                continue
            plain = unicodedata.normalize("NFD", char).translate(DIACRITICS)
            folded = unicodedata.normalize("NFC", plain)
            if len(folded) == 1 and folded != char and _is_word(folded) == _is_word(char):
                table[code] = folded
    return table


def _canonical(char: str) -> bool:
    decomposition = unicodedata.decomposition(char)
    return bool(decomposition) and not decomposition.startswith("<")


def _is_word(char: str) -> bool:
    return WORD.match(char) is not None
