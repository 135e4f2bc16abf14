"""Lists of terms and their names or translations (`- Postgres: Олег Бартунов`, `- Save:
保存`): an item of a label in Latin letters and a short value that is a name or a word in a
script without capitals is read as its label alone, when the labels read together as English;
the value is what the English note lists, not the language it is written in."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from memidx.notes.language_model import MIN_SCORE
from memidx.notes.loanwords import LETTER_WORD
from memidx.notes.titlecase import named, prose_in_title_case

Detect = Callable[[str], tuple[str, float]]

PAIR = re.compile(
    r"^(?P<label>[^:=→]{1,60}?)\s*(?::|=|→|->|\u2014|\u2013| - )\s*(?P<value>\S.{0,59})$"
)
_LATIN_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 ./+#'()-]*[A-Za-z0-9)+#]")
MAX_NAME_WORDS = 4  # "Олег Бартунов", "Santiago De Compostela"
MAX_TERM_CHARS = 12  # a term in a script without capitals, one word: "ファイルを開く"
MIN_PAIRS = 2  # one pair is a sentence with a colon as likely as a list
MIN_SHARED_LABELS = 3  # `Open File`, `Save File`: two labels may share a word
# Names beside labels lose a cut note's function words only when its language is this sure:
# Danish cut in threes beside English labels (`Build: Udrulning Til Staging`) read at 0.77
LANGUAGE_SCORE = MIN_SCORE


def named_pair(unit: str) -> tuple[str, str] | None:
    """The label and value of a list item `label: value` whose label is in Latin letters and
    whose value is a name of MAX_NAME_WORDS words or fewer, or one short word in a caseless
    script (then the value is returned as "")."""
    if (found := PAIR.match(unit.strip())) is None:
        return None
    label, value = found["label"].strip(), found["value"].strip()
    if not _LATIN_LABEL.fullmatch(label):
        return None
    if named(value) and len(LETTER_WORD.findall(value)) <= MAX_NAME_WORDS:
        return label, value
    caseless = value.isalpha() and not any(ch.isupper() or ch.islower() for ch in value)
    return (label, "") if caseless and len(value) <= MAX_TERM_CHARS else None


def labels_for_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, a list of named pairs read by their labels when there are MIN_PAIRS or more,
    no label twice (a glossary names each term once), the labels, read together, not surely
    another language (German terms beside Russian ones are no English note), like a
    glossary's (_glossary_labels) and the names without function words (`- Step one: Bitte Vor
    Dem` cut from a German note)."""
    labels, seen, names, terms = dict[str, str](), set[str](), list[str](), 0
    for unit in units:
        if (pair := named_pair(unit)) is not None:
            if (label := pair[0]) in seen:
                return list(units)  # at once: a megabyte of one item took a second
            labels[unit] = label
            seen.add(label)
            names += [pair[1]] if pair[1] else []
            terms += 0 if pair[1] else len(unit.strip()) - len(label)
    if len(labels) < MIN_PAIRS or not _glossary_labels(list(labels.values()), terms):
        return list(units)
    if prose_in_title_case(names, detect, anywhere=True, sure=LANGUAGE_SCORE):
        return list(units)
    lang, score = detect("\n".join(labels.values()))
    if lang != "en" and score >= MIN_SCORE:
        return list(units)
    return [labels.get(unit, unit) for unit in units]


def _glossary_labels(labels: Sequence[str], terms: int) -> bool:
    """Whether labels look like a glossary's: no word in more than half of them, from
    MIN_SHARED_LABELS (`Item one`, `Item two` before each piece of a Japanese note), and no
    fewer letters than the characters of the terms in a caseless script (`Save: 保存`; the
    signs between them count with the terms)."""
    counts = Counter(word for label in labels for word in {*LETTER_WORD.findall(label.lower())})
    if counts and (top := max(counts.values())) >= MIN_SHARED_LABELS and top * 2 > len(labels):
        return False
    return terms <= sum(len("".join(LETTER_WORD.findall(label))) for label in labels)
