"""The snippet of a very long body (a transcript), found here because FTS5's snippet() slows
down with every match: a window around the first word that reads like one of the query's terms,
by a rough stemmer that agrees with the index's Porter stemmer where it matters ("locked" and
"locking" read like "lock", "locksmith" does not) and ignores diacritics as the index does."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from itertools import islice

from memidx.notes.words import DIACRITICS, folds

MARK_START, MARK_END = "\x02", "\x03"  # cannot occur in a note's text; the output marks them
_SUFFIXES = ("ings", "ing", "ies", "ied", "es", "ed", "ly", "s", "e", "d", "y")
_ENDINGS = frozenset(("", *_SUFFIXES))
_MARKS = "\u0300-\u036f"  # combining marks a decomposed (NFD) body holds inside its words
_SPAN = 48  # characters per word read back for the words before the match
_WORD = re.compile(rf"[^\W_](?:[^\W_]|[{_MARKS}])*")  # WORD, and the marks within a word


def window(body: str, terms: Sequence[str], before: int = 8, after: int = 16) -> str:
    """A snippet around the first word that reads like one of the terms, matched words
    marked; reads only as far as it needs."""
    return window_at(body, terms, before, after)[0]


def window_at(
    body: str, terms: Sequence[str], before: int = 8, after: int = 16
) -> tuple[str, int | None]:
    """window() and where its text starts in `body` (after its `…`); None for an excerpt
    of a body none of whose words reads like a term, masked already."""
    stems = tuple(dict.fromkeys(_stem(_plain(term.lower())) for term in terms if term))
    like = _reads_like(stems)
    first = _first(body, stems, like)
    if first is None:
        from memidx.secrets.cuts import masked_excerpt

        return masked_excerpt(body, 240), None  # masked before it is cut, as every snippet is
    start = max(0, first.start() - _SPAN * before)
    recent = list(_WORD.finditer(body, start, first.start()))
    if recent and _inside(body, recent[0].start()):  # the tail of a word the read-back cut
        recent.pop(0)
    recent = recent[-before:]
    chosen = [*recent, *islice(_WORD.finditer(body, first.start()), after + 1)]
    pieces = ["…" if chosen[0].start() > 0 else ""]
    cursor = chosen[0].start()
    for word in chosen:
        pieces.append(body[cursor : word.start()])
        text = word.group()
        pieces.append(f"{MARK_START}{text}{MARK_END}" if like(text) else text)
        cursor = word.end()
    pieces.append("…" if cursor < len(body.rstrip()) else "")
    return "".join(pieces), chosen[0].start()


def _inside(body: str, at: int) -> bool:
    """Whether `at` is inside a word: after a letter, combining marks between (a decomposed
    word's, where the read-back may begin)."""
    while at > 0 and "\u0300" <= body[at - 1] <= "\u036f":
        at -= 1
    return at > 0 and _WORD.match(body, at - 1) is not None


def _first(body: str, stems: tuple[str, ...], like: Callable[[str], bool]) -> re.Match[str] | None:
    """The first word of `body` that reads like a stem: candidates found by one regular
    expression (the scan of a long body stays in C), each checked whole."""
    if not stems:
        return None
    letters = "|".join("".join(map(_letter, stem)) for stem in stems)
    candidates = re.compile(rf"(?<![^\W_])(?<![{_MARKS}])(?:{letters})(?:[^\W_]|[{_MARKS}])*", re.I)
    for found in candidates.finditer(body):
        if like(found.group()):
            return _WORD.match(body, found.start())
    return None


def _letter(char: str) -> str:
    """A pattern for one letter of a stem: with its accented forms and combining marks."""
    forms = _accented().get(char, "")
    if not forms:
        return re.escape(char)
    return f"[{re.escape(char)}{forms}][{_MARKS}]*"


@cache
def _accented() -> dict[str, str]:
    """Each letter's precomposed forms, which the index reads as it ("e": "èéêë...")."""
    forms: dict[str, str] = {}
    for code, folded in folds().items():
        char, base = chr(code), folded.lower()
        if base != char.lower() and base.isalpha():
            forms[base] = forms.get(base, "") + char
    return forms


def _reads_like(stems: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a word reads like one of the stems: without its diacritics, the stem and one of a
    few inflections."""

    def like(word: str) -> bool:
        plain = _plain(word.lower())
        if not plain.startswith(stems):
            return False
        return any(plain.startswith(stem) and plain[len(stem) :] in _ENDINGS for stem in stems)

    return like


def _stem(term: str) -> str:
    """The term without its inflection, keeping at least 3 letters ("processes": "process")."""
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 3:
            return term[: -len(suffix)]
    return term


def _plain(word: str) -> str:
    """The word without its diacritics ("café" is "cafe"), as `remove_diacritics` reads it."""
    return word if word.isascii() else unicodedata.normalize("NFD", word).translate(DIACRITICS)
