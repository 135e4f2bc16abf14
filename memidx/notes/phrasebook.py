"""Phrase lists: an English phrase, then its translation (`- Where is the station?: Wo ist der
Bahnhof`, `- I do not understand: Nie rozumiem`). The list is read as two paragraphs, its
phrases and its translations, each weighing its letters: read by their values alone
(memidx.notes.glossary's reading of a list of pairs), English notes listing phrases were
refused as the translations' language; read item by item, the model takes a line of English
and German for German. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memidx.notes.function_words import ENGLISH_FUNCTION_WORDS
from memidx.notes.language_model import MIN_SCORE
from memidx.notes.letters import runs
from memidx.notes.loanwords import LETTER_WORD
from memidx.notes.slots import shared_word

Detect = Callable[[str], tuple[str, float]]

# an English phrase (a question or a request may hold `?`, `!`, `,`), a sign, its translation
PHRASE = re.compile(
    r"^(?P<label>[A-Za-z][A-Za-z ,.'\u2019?!-]{0,59}?)\s*(?::|=|→|->|\u2014|\u2013| - )\s*"
    r"(?P<value>\S.{0,59})$"
)
MIN_PHRASES = 3  # two pairs are as likely two sentences with a colon


def phrases_of_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, the items of a phrase list (_a_phrase_list) read as two paragraphs where its
    first item was: its phrases, then its translations (in pieces of MAX_PIECE_CHARS)."""
    found = [_phrase(unit) for unit in units]
    pairs = [pair for pair in found if pair is not None]
    if not _a_phrase_list(pairs, detect):
        return list(units)
    first = next(at for at, pair in enumerate(found) if pair is not None)
    read = [unit for unit, pair in zip(units, found, strict=True) if pair is None]
    sides = [[label for label, _ in pairs], [value for _, value in pairs]]
    return read[:first] + ["\n".join(run) for side in sides for run in runs(side)] + read[first:]


def _a_phrase_list(pairs: Sequence[tuple[str, str]], detect: Detect) -> bool:
    """Whether pairs are English phrases and their translations: MIN_PHRASES or more, distinct
    phrases sharing no word but English function words in more than half of them (no slots:
    `Step one`, `Step two`), more than half of them holding such a word and a fourth of all
    their words such words (prose, as labels of a word or three seldom are), read together
    surely as English."""
    labels = [label for label, _ in pairs]
    if len(pairs) < MIN_PHRASES or len(set(labels)) < len(labels):
        return False
    words = [[word.lower() for word in LETTER_WORD.findall(label)] for label in labels]
    content = [" ".join(w for w in label if w not in ENGLISH_FUNCTION_WORDS) for label in words]
    if shared_word(content):
        return False
    function = [sum(w in ENGLISH_FUNCTION_WORDS for w in label) for label in words]
    if sum(map(bool, function)) * 2 <= len(pairs) or sum(function) * 4 < sum(map(len, words)):
        return False
    lang, score = detect("\n".join(labels))
    return lang == "en" and score >= MIN_SCORE


def _phrase(unit: str) -> tuple[str, str] | None:
    """The English phrase and the translation of a list item `phrase: translation`."""
    if (found := PHRASE.match(unit.strip())) is None:
        return None
    return found["label"].strip(), found["value"].strip()
