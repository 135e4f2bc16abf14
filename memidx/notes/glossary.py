"""Lists of terms and their names or translations (`- Postgres: Олег Бартунов`, `- Save:
保存`): an item of a label in Latin letters and a short value that is a name or a word in a
script without capitals is read as its label alone, when the labels read together as English;
the value is what the English note lists, not the language it is written in."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memidx.notes.language_model import MIN_SCORE
from memidx.notes.loanwords import LETTER_WORD
from memidx.notes.titlecase import named

Detect = Callable[[str], tuple[str, float]]

PAIR = re.compile(
    r"^(?P<label>[^:=→]{1,60}?)\s*(?::|=|→|->|\u2014|\u2013| - )\s*(?P<value>\S.{0,59})$"
)
_LATIN_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 ./+#'()-]*[A-Za-z0-9)+#]")
MAX_NAME_WORDS = 4  # "Олег Бартунов", "Santiago De Compostela"
MAX_TERM_CHARS = 12  # a term in a script without capitals, one word: "ファイルを開く"
MIN_PAIRS = 2  # one pair is a sentence with a colon as likely as a list


def named_pair(unit: str) -> str | None:
    """The label of a list item `label: value` whose label is in Latin letters and whose value
    is a name of MAX_NAME_WORDS words or fewer, or one short word in a caseless script."""
    if (found := PAIR.match(unit.strip())) is None:
        return None
    label, value = found["label"].strip(), found["value"].strip()
    if not _LATIN_LABEL.fullmatch(label):
        return None
    words = LETTER_WORD.findall(value)
    if named(value) and len(words) <= MAX_NAME_WORDS:
        return label
    caseless = value.isalpha() and not any(ch.isupper() or ch.islower() for ch in value)
    return label if caseless and len(value) <= MAX_TERM_CHARS else None


def labels_for_pairs(units: Sequence[str], detect: Detect) -> list[str]:
    """The units, a list of named pairs read by their labels when there are MIN_PAIRS or more,
    no label twice (a glossary names each term once) and the labels, read together, not surely
    another language (German terms beside Russian ones are no English note)."""
    labels, seen = dict[str, str](), set[str]()
    for unit in units:
        if (label := named_pair(unit)) is not None:
            if label in seen:
                return list(units)  # at once: a megabyte of one item took a second
            labels[unit] = label
            seen.add(label)
    if len(labels) < MIN_PAIRS:
        return list(units)
    lang, score = detect("\n".join(labels.values()))
    if lang != "en" and score >= MIN_SCORE:
        return list(units)
    return [labels.get(unit, unit) for unit in units]
