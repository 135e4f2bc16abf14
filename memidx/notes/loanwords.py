"""English with loanwords (café, naïve, façade, résumé): the language model reads a few accented
words as their language ("Café au lait: the naïve façade résumé is fine in English." is French
at 0.55), so a paragraph it reads as another language in Latin script gets a second look at
its words without accents. Pure, given a detector."""

from __future__ import annotations

import re
from collections.abc import Callable

from memidx.notes.quotation import unquoted

Detect = Callable[[str], tuple[str, float]]  # (language code, score) of a text's top guess

# a word of letters, with ' or - inside
LETTER_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
# the Latin letters with accents (Latin-1 Supplement to Latin Extended Additional): a word in
# any other script (Cyrillic, Greek, CJK, Hangul...) leaves the paragraph to the first reading
_ACCENTED = re.compile(r"[\u00c0-\u024f\u1e00-\u1eff]")
_NOT_LATIN = re.compile(r"[^\x00-\u024f\u1e00-\u1eff]")
_LONE_LETTER = re.compile(r"(?<![^\W\d_])[A-Za-z](?![^\W\d_])")  # a, x, y: a word, or a variable
_GREEK_CYRILLIC = re.compile(r"[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]")
# letters of any script but Latin, Greek and Cyrillic (a sign or a digit is no letter here)
_OTHER_SCRIPT = re.compile(
    r"[^\W\d_\x00-\u024f\u1e00-\u1eff\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f]"
)
MAX_NAMED_WORDS = 0.25  # of a paragraph's words, in Greek or Cyrillic letters
MAX_LOANWORDS = 0.4  # share of words: Vietnamese, Polish or Turkish prose accents most of them
MIN_REST_BYTES = 20  # letters left without the accented words, enough to read
MIN_REST_SCORE = 0.6  # Portuguese "Testes do Playwright no CI" reads as English at 0.54
# a sentence of a paragraph given the second look reads on its own once it has as many letters
# as a paragraph needs to vote (english.MIN_UNIT_BYTES), against English from english.MIN_SCORE
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
MIN_SENTENCE_LETTERS, MIN_SENTENCE_SCORE = 30, 0.3
MIN_PIECE_WORDS = 4  # a sentence or a pooled line this long is held to MAX_LOANWORDS on its own


def english_beside_loanwords(unit: str, detect: Detect) -> bool:
    """Whether a paragraph of Latin letters that the model reads as another language is
    English once its accented words (a minority) are set aside: the rest reads as English
    with score >= MIN_REST_SCORE (English words read at 0.7 to 1.0). French, Spanish or
    German prose keeps its own words around its accented ones, and reads as its language.
    Each sentence long enough to read that reads as another language must pass on its own: a
    Vietnamese or Portuguese sentence beside an English one is not a loanword; one in
    quotation marks is someone else's (an error message), held only to the first rule, and so
    are names (Łukasz Wróbel), which read as their language in any sentence."""
    if not _rest_is_english(unit, detect):
        return False
    pieces = [_without_names(piece) for piece in SENTENCE.split(unquoted(unit))]
    if any(_mostly_accented(piece) for piece in pieces):  # a list item in Vietnamese, pooled
        return False
    sentences = [s for s in pieces if _letters(s) >= MIN_SENTENCE_LETTERS]
    for sentence in sentences if len(sentences) > 1 else ():
        lang, score = detect(sentence)
        if lang != "en" and score >= MIN_SENTENCE_SCORE and not _rest_is_english(sentence, detect):
            return False
    return True


def english_beside_variables(unit: str, detect: Detect) -> bool:
    """Whether a paragraph the model reads as another language is English once its lone Latin
    letters are set aside: math's variables ("We compute x - y and then y - z" read as Spanish
    for its y) carry no language; the rest reads as English with score >= MIN_REST_SCORE."""
    rest, count = _LONE_LETTER.subn(" ", unit)
    if not count or _letters(rest) < MIN_REST_BYTES:
        return False
    lang, score = detect(rest)
    return lang == "en" and score >= MIN_REST_SCORE


def english_beside_greek_or_cyrillic(unit: str, detect: Detect) -> bool:
    """Whether a paragraph the model reads as another language is English naming a few words
    in Greek or Cyrillic letters (UI strings, names: "the buttons say Сохранить, Отмена and
    Удалить" read as Russian): they are MAX_NAMED_WORDS of its words at most, and fewer letters
    than the rest, which reads as English with score >= MIN_REST_SCORE; and no sentence of
    the paragraph is mostly such words (a Russian sentence pasted bare stays Russian)."""
    if _OTHER_SCRIPT.search(unit) or not _GREEK_CYRILLIC.search(unit):
        return False
    words = LETTER_WORD.findall(unit)
    named = [word for word in words if _GREEK_CYRILLIC.search(word)]
    if len(named) > MAX_NAMED_WORDS * len(words) or 2 * _letters("".join(named)) >= _letters(unit):
        return False
    if any(_mostly_named(sentence) for sentence in SENTENCE.split(unit)):
        return False
    rest = " ".join(word for word in words if not _GREEK_CYRILLIC.search(word))
    lang, score = detect(rest)
    return lang == "en" and score >= MIN_REST_SCORE


def _mostly_named(sentence: str) -> bool:
    words = LETTER_WORD.findall(sentence)
    named = sum(1 for word in words if _GREEK_CYRILLIC.search(word))
    return len(words) >= MIN_PIECE_WORDS and named > MAX_LOANWORDS * len(words)


def _rest_is_english(unit: str, detect: Detect) -> bool:
    """Whether `unit`, without its accented words (a minority), reads as English."""
    if any(map(str.isalpha, _NOT_LATIN.findall(unit))):  # a loop in C: ~5 ms a 1 MB note
        return False
    words = LETTER_WORD.findall(unit)
    rest = [word for word in words if not _ACCENTED.search(word)]
    if len(rest) == len(words) or len(words) - len(rest) > MAX_LOANWORDS * len(words):
        return False
    text = " ".join(rest)
    if _letters(text) < MIN_REST_BYTES:
        return False
    lang, score = detect(text)
    return lang == "en" and score >= MIN_REST_SCORE


def _mostly_accented(piece: str) -> bool:
    """Whether a sentence or line of MIN_PIECE_WORDS words or more accents more than
    MAX_LOANWORDS of them: a phrase of another language, not English with a loanword."""
    words = LETTER_WORD.findall(piece)
    accented = sum(1 for word in words if _ACCENTED.search(word))
    return len(words) >= MIN_PIECE_WORDS and accented > MAX_LOANWORDS * len(words)


def _without_names(piece: str) -> str:
    """`piece` without its accented words that begin with a capital: names (Paweł Żółć)."""
    return LETTER_WORD.sub(lambda m: " " if _name(m[0]) else m[0], piece)


def _name(word: str) -> bool:
    return word[0].isupper() and _ACCENTED.search(word) is not None


def _letters(text: str) -> int:
    return sum(map(str.isalpha, text))
