# Cyrillic words, not look-alikes of Latin letters, are in these examples.
# ruff: noqa: RUF002, RUF003
"""Names, or prose in Title Case: a list of short items whose every word begins with a capital
is a list of names and titles ("Der Zauberberg", "Tarte Tatin"), unless its words, read
together, surely read as another language and its items end in that language's function words
as prose cut in pieces does ("Bitte Vor Dem", "Push Ausführen Die"), and a name never does."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memidx.notes.function_words import (
    ANY_FUNCTION_WORD,
    CLOSING_WORDS,
    FUNCTION_WORDS,
    KIN,
    KIN_SCORE,
)
from memidx.notes.loanwords import LETTER_WORD

Detect = Callable[[str], tuple[str, float]]

MIN_SCORE = 0.8  # the names read together as another language this surely (the pool's bar)
MAX_NAME_WORDS = 3  # a person's name: "Александр Сергеевич Пушкин"; longer ones vote
MAX_NAME_LETTERS = 30  # as many letters as a paragraph needs bytes to vote (MIN_UNIT_BYTES)
MIN_WORDS = 6  # fewer words are a name or two, whatever they read as
MAX_NAMES = 1024  # read as a sample: a 1 MB list of names took a second more
# from this many whole strings, the last may close too: in two to four, a cut note's last piece
# ends where its sentence does (`Sorun yok`), as a whole string does
MIN_CLOSED_ITEMS = 5
MIN_CUT_ITEMS, MIN_CUT_SHARE = 1, 0.15  # items that end in a function word: prose cut in pieces

_UNSURE = frozenset(lang for kins in KIN for lang in kins)
# a word of LETTER_WORD that begins in an ASCII small letter: after no letter, nor after a
# letter and `'` or `-`, which join the word before
_LOWER_START = re.compile(r"(?<![^\W\d_])(?<![^\W\d_]['\u2019-])[a-z]")
# An initial is no word (`О. С. Бартунов`: `с` and `о` are Russian prepositions)
INITIAL = re.compile(r"\b\w\.")


def sure_bar(lang: str, sure: float) -> float:
    """How surely text must read as `lang` to count as it: KIN_SCORE at most for a language
    the model tells from its kin unsurely (no English pool of TIL's read as one at 0.45)."""
    return min(sure, KIN_SCORE) if lang in _UNSURE else sure


def named(unit: str) -> bool:
    """Whether every word of a paragraph begins with a capital: a name or a title ("Der
    Zauberberg", "Garmisch-Partenkirchen", "Château Margaux"), which reads as its language
    whatever the note is written in. A phrase with a word in lower case is prose (a word in
    ASCII found first: every word of every unit was listed, four times a unit in a list)."""
    if _LOWER_START.search(unit) is not None:  # in C: most prose at its second word
        return False
    words = LETTER_WORD.findall(unit)
    return bool(words) and all(word[0].isupper() for word in words)


def a_name(unit: str) -> bool:
    """Whether a unit is `named`, of MAX_NAME_WORDS words or fewer and MAX_NAME_LETTERS letters
    (not bytes): it does not vote, though a name in two-byte letters may have 30 bytes of them
    ("Александр Коротков" has 34); a Latin line that long is as likely prose in Title Case."""
    if not named(unit):
        return False
    words = LETTER_WORD.findall(unit)
    return len(words) <= MAX_NAME_WORDS and len("".join(words)) < MAX_NAME_LETTERS


def voteless_names(units: Sequence[str], detect: Detect) -> frozenset[str]:
    """The units that are `a_name` and do not vote, unless those, read together, are prose in
    Title Case with a function word anywhere (`Docker И Идут`, `Ничего Не Удаляйте`): three
    words in two-byte letters are a name as often as a Russian or Turkish note cut in pieces."""
    names = [unit for unit in units if a_name(unit)]
    return frozenset() if prose_in_title_case(names, detect, anywhere=True) else frozenset(names)


def prose_in_title_case(
    names: Sequence[str],
    detect: Detect,
    *,
    anywhere: bool = False,
    sure: float = MIN_SCORE,
    whole: bool = False,
) -> bool:
    """Whether names (units `named`) read together are prose in Title Case: surely another
    language, and items that end in one of its function words ("Vor Dem", "Und Laufen"), as a
    name or title does not ("Frankfurt Am Main", "Die Leiden Des Jungen Werthers"); `anywhere`:
    a function word anywhere in an item, for the names beside labels (memidx.notes.glossary);
    `sure`: how surely the names read as that language; `whole`: the items are whole strings
    (a message catalog's), which may end in a word that closes a sentence (CLOSING_WORDS)."""
    items = [
        [w.lower() for w in LETTER_WORD.findall(INITIAL.sub(" ", name))]
        for name in names[:MAX_NAMES]
    ]
    words = [word for item in items for word in item]
    if len(words) < MIN_WORDS:
        return False
    lang, score = detect(" ".join(words))
    if lang == "en" or score < sure_bar(lang, sure):
        return False
    function = FUNCTION_WORDS.get(lang, ANY_FUNCTION_WORD)
    if anywhere:
        return any(word in function for word in words)
    longer = len(items) >= MIN_CLOSED_ITEMS  # a longer list's last item may close too
    closed = [
        whole and (longer or at < len(items) - 1) and _closed(item) for at, item in enumerate(items)
    ]
    cut = sum(
        item[-1] in function and not end for item, end in zip(items, closed, strict=True) if item
    )
    return cut >= MIN_CUT_ITEMS and cut >= MIN_CUT_SHARE * len(items)


def _closed(item: Sequence[str]) -> bool:
    """Whether an item of two words or more ends in a word that closes a sentence (CLOSING_WORDS:
    `Kayıt yok`); a function word alone (`Niet`) is still a piece cut from prose, and so is the
    last of fewer than MIN_CLOSED_ITEMS items (two and three pieces of Turkish notes passed)."""
    return len(item) > 1 and item[-1] in CLOSING_WORDS


def unmasked(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, the names in lower case when they are prose in Title Case: the model reads
    Title Case unsurely (Spanish at 0.71, 0.98 in lower case), and names are never pooled."""
    if not prose_in_title_case(names := [unit for unit in units if named(unit)], detect):
        return list(units)
    lowered = set(names)
    return [unit.lower() if unit in lowered else unit for unit in units]
