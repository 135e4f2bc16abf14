"""Labels that are slots, not words: numbered keys (`settings.key1`, `settings.key2`) and
labels sharing a word (`Item one`, `Item two`). What follows them is read alone
(memidx.notes.glossary): they say nothing of their own. Pure."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from functools import reduce
from math import gcd

from memidx.notes.loanwords import LETTER_WORD

MIN_SHARED_LABELS = 3  # `Open File`, `Save File`: two labels may share a word
_DIGITS = re.compile(r"[0-9]+")


def shared_word(labels: Sequence[str]) -> bool:
    """Whether a word is in more than half of the labels, from MIN_SHARED_LABELS of them."""
    counts = Counter(word for label in labels for word in {*LETTER_WORD.findall(label.lower())})
    return (
        bool(counts)
        and (top := max(counts.values())) >= MIN_SHARED_LABELS
        and top * 2 > len(labels)
    )


def numbered(keys: Sequence[str]) -> bool:
    """Whether message keys are numbered slots, not names of strings: one key, its digits left
    out, is more than half of MIN_SHARED_LABELS keys or more (`settings.key1`, `settings.key2`),
    as labels sharing a word are (`Item one`, `Item two`). A foreign note cut in pieces of one
    to six words, each hand-capitalised, behind numbered keys passed 11 to 20 of 103 so."""
    counts = Counter(_DIGITS.sub("", key) for key in keys)
    slot, top = counts.most_common(1)[0]
    if top < MIN_SHARED_LABELS or top * 2 <= len(keys):
        return False
    return _counted([key for key in keys if _DIGITS.sub("", key) == slot])


def _counted(keys: Sequence[str]) -> bool:
    """Whether keys of one slot are counted off, their last numbers a run in steps of one or of
    their common step (`key1`, `key2`, `key3`; `key2`, `key4`; `key10`, `key20`), a gap of one
    step at most: counted in twos or tens, a foreign note cut behind such keys passed 9 to 19
    of 103, 4 to 11 in ones. Status codes are names (`errors.http404`, `errors.http500`: a
    German catalog of them passed before numbered keys were slots, then was refused)."""
    numbers = sorted({int(found[-1]) for key in keys if (found := _DIGITS.findall(key))})
    if len(numbers) < 2:
        return True
    step = reduce(gcd, (b - a for a, b in itertools.pairwise(numbers)))
    return (numbers[-1] - numbers[0]) // step < len(numbers) + 1
